"""The Commissary: books for goods into the locker; bad input refused, nothing posted."""

from __future__ import annotations

import uuid
from decimal import Decimal
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from ledger import services
from ledger.models import Good, Posting, Reason, StoreOrder
from ledger.services import BOOKS
from tests.ledger.helpers import assert_books_balance, books, give, goods, take_all

BUY = "/commissary/buy/"


@pytest.mark.django_db
def test_buying_moves_books_to_the_store_and_goods_to_the_locker(alice: Any, soup: Good) -> None:
    before = books(alice)
    order = services.commissary_buy(user=alice, good_id=soup.pk, quantity=3, token=uuid.uuid4())
    assert (order.quantity, order.unit_price, order.total) == (3, soup.price, 3 * soup.price)
    assert books(alice) == before - 3 * soup.price
    assert goods(alice, soup) == 3
    posting = Posting.objects.get(key=f"order:{order.pk}")
    assert posting.reason == Reason.PURCHASE and posting.order == order
    assert_books_balance()


@pytest.mark.django_db
def test_the_same_form_sent_twice_buys_once(alice: Any, soup: Good) -> None:
    token = uuid.uuid4()
    first = services.commissary_buy(user=alice, good_id=soup.pk, quantity=2, token=token)
    again = services.commissary_buy(user=alice, good_id=soup.pk, quantity=2, token=token)
    assert first.pk == again.pk and goods(alice, soup) == 2
    with pytest.raises(services.LedgerError, match="reload"):
        services.commissary_buy(user=alice, good_id=soup.pk, quantity=5, token=token)
    assert goods(alice, soup) == 2


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("good", "quantity", "words"),
    [
        ("soup", -1, "smallest amount here is 1"),
        ("soup", 0, "smallest amount here is 1"),
        ("soup", 1.5, "whole numbers"),
        ("soup", Decimal("2"), "whole numbers"),
        ("soup", "2", "whole numbers"),
        ("soup", 100, "largest amount here is 99"),
        (987654, 1, "no such good"),
        ("x", 1, "no such good"),
        (None, 1, "no such good"),
    ],
)
def test_bad_orders_are_refused_and_post_nothing(
    alice: Any, soup: Good, good: Any, quantity: Any, words: str
) -> None:
    before = (books(alice), Posting.objects.count(), StoreOrder.objects.count())
    good_id = soup.pk if good == "soup" else good
    with pytest.raises(services.LedgerError) as refused:
        services.commissary_buy(user=alice, good_id=good_id, quantity=quantity, token=uuid.uuid4())
    assert words in refused.value.message
    assert (books(alice), Posting.objects.count(), StoreOrder.objects.count()) == before


@pytest.mark.django_db
def test_buying_without_enough_books_is_refused(alice: Any, warden: Any, soup: Good) -> None:
    take_all(alice, BOOKS, warden)
    give(alice, BOOKS, soup.price * 2, warden)
    with pytest.raises(services.InsufficientFunds) as refused:
        services.commissary_buy(user=alice, good_id=soup.pk, quantity=3, token=uuid.uuid4())
    assert "Not enough on your books" in refused.value.message
    assert f"you have {soup.price * 2} books" in refused.value.message
    assert books(alice) == soup.price * 2 and goods(alice, soup) == 0
    assert not StoreOrder.objects.filter(user=alice).exists()


@pytest.mark.django_db
def test_out_of_stock_goods_are_not_sold(alice: Any, soup: Good) -> None:
    Good.objects.filter(pk=soup.pk).update(in_stock=False)
    with pytest.raises(services.LedgerError, match="out of stock"):
        services.commissary_buy(user=alice, good_id=soup.pk, quantity=1, token=uuid.uuid4())
    assert goods(alice, soup) == 0


@pytest.mark.django_db
def test_the_store_page_buys_and_explains_refusals(client: Client, alice: Any, soup: Good) -> None:
    client.force_login(alice)
    page = client.get(reverse("ledger:commissary")).content.decode()
    assert "no cash value" in page and soup.name in page and "ever exchanged for Dollars" in page
    response = client.post(
        BUY, {"good": soup.pk, "quantity": 2, "token": uuid.uuid4()}, follow=True
    )
    assert "It is in your locker" in response.content.decode()
    assert goods(alice, soup) == 2
    for quantity, words in [("-3", "greater than or equal to 1"), ("1.5", "whole number")]:
        response = client.post(BUY, {"good": soup.pk, "quantity": quantity, "token": uuid.uuid4()})
        assert response.status_code == 400
        assert words in response.content.decode()
    response = client.post(BUY, {"good": 98765, "quantity": 1, "token": uuid.uuid4()})
    assert response.status_code == 400 and "no such good" in response.content.decode()
    response = client.post(BUY, {"good": soup.pk, "quantity": 9999, "token": uuid.uuid4()})
    assert response.status_code == 400
    assert goods(alice, soup) == 2


@pytest.mark.django_db
def test_forged_requests_never_move_anything_between_players(
    client: Client, alice: Any, bob: Any, soup: Good
) -> None:
    """Everything a forger might try from Alice's browser: other players' ids in every field,
    Bob's account ids, made-up endpoints. Bob's balances and the posting count never change
    except by what Alice herself legitimately bought."""
    from ledger.models import Account

    client.force_login(alice)
    bob_accounts = list(Account.objects.filter(user=bob).values_list("pk", flat=True))
    bob_before = dict(Account.objects.filter(user=bob).values_list("pk", "balance"))
    forged = {
        "user": bob.pk,
        "player": bob.pk,
        "to": bob.pk,
        "account": bob_accounts[0],
        "account_id": bob_accounts[0],
        "from_account": bob_accounts[0],
        "to_account": bob_accounts[-1],
        "amount": 50,
    }
    # 1. A purchase padded with other players' ids buys for Alice, from Alice, and nothing else.
    response = client.post(BUY, {"good": soup.pk, "quantity": 1, "token": uuid.uuid4(), **forged})
    assert response.status_code == 302
    order = StoreOrder.objects.get()
    assert order.user == alice
    # 2. Negative, fractional and enormous quantities; unknown goods; Bob's account as a "good".
    count = Posting.objects.count()
    for bad in [
        {"good": soup.pk, "quantity": -5},
        {"good": soup.pk, "quantity": "0.5"},
        {"good": soup.pk, "quantity": "1e3"},
        {"good": bob_accounts[0] * 1000, "quantity": 1},
        {"good": "bob", "quantity": 1},
    ]:
        response = client.post(BUY, {"token": uuid.uuid4(), **forged, **bad})
        assert response.status_code == 400
    # 3. Claiming with someone else's id claims for Alice, once.
    client.post(reverse("ledger:claim"), forged)
    client.post(reverse("ledger:claim"), forged)
    assert Posting.objects.filter(reason=Reason.ALLOWANCE, user=bob).count() == 0
    assert Posting.objects.filter(reason=Reason.ALLOWANCE, user=alice).count() == 1
    assert Posting.objects.count() == count + 1
    # 4. There is no page that transfers, cashes out or buys with real money.
    for path in [
        "/ledger/transfer/",
        "/locker/transfer/",
        "/locker/send/",
        "/commissary/sell/",
        "/commissary/cashout/",
        "/locker/cashout/",
        "/commissary/deposit/",
    ]:
        assert client.post(path, forged).status_code == 404
    # 5. The staff adjustment form is not a player's way in.
    response = client.post(
        reverse("ledger:adjust"),
        {"player": alice.pk, "unit": "dollars", "amount": 500, "reason": "gift", **forged},
    )
    assert (
        response.status_code in (302, 403)
        and not Posting.objects.filter(reason=Reason.ADJUSTMENT).exists()
    )
    assert dict(Account.objects.filter(user=bob).values_list("pk", "balance")) == bob_before
    assert Posting.objects.filter(parties__user=bob).exclude(reason=Reason.SIGNUP).count() == 0
    assert_books_balance()


def test_no_service_moves_value_between_players_except_settlement() -> None:
    """The ledger's public services, all of them: each names one player (or a game)."""
    import inspect

    public = {
        name
        for name, fn in inspect.getmembers(services, inspect.isfunction)
        if fn.__module__ == services.__name__ and not name.startswith("_")
    }
    movers = {
        name for name in public if "posting_make" in inspect.getsource(getattr(services, name))
    }
    assert movers - {"posting_make"} == {
        "signup_grant",
        "allowance_claim",
        "commissary_buy",
        "adjustment_make",
        "game_stake_hold",
        "game_settle",
        "game_refund",
    }
    for name in movers - {"posting_make", "game_stake_hold", "game_settle", "game_refund"}:
        params = inspect.signature(getattr(services, name)).parameters
        players = [p for p in params if p in ("user", "to", "from_user", "recipient", "payee")]
        assert players == ["user"], name  # one player: their own accounts and the house's
