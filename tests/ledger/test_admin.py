"""Staff: read-only books in admin, adjustments with a reason and a name, voiding a game."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from ledger import services
from ledger.models import Account, Adjustment, Good, Posting, Reason
from ledger.services import StakeSpec
from tables.models import Game
from tests.ledger.helpers import assert_books_balance, dollars, goods, staked_game

ADJUST = "/ledger/staff/adjust/"


@pytest.mark.django_db
@pytest.mark.parametrize(
    "model",
    [
        "account",
        "posting",
        "storeorder",
        "adjustment",
        "tablestake",
        "reconciliationrun",
        "mismatch",
        "stakedgame",
    ],
)
def test_the_books_are_read_only_in_admin(
    client: Client, warden: Any, alice: Any, model: str
) -> None:
    client.force_login(warden)
    listing = client.get(reverse(f"admin:ledger_{model}_changelist"))
    assert listing.status_code == 200
    if model != "adjustment":
        assert client.get(reverse(f"admin:ledger_{model}_add")).status_code == 403
    posting = Posting.objects.filter(user=alice).first()
    assert posting is not None
    account = Account.objects.filter(user=alice).first()
    assert account is not None
    page = client.get(reverse("admin:ledger_account_change", args=[account.pk]))
    assert page.status_code == 200 and 'name="_save"' not in page.content.decode()
    entries = client.get(
        reverse("admin:ledger_posting_changelist"), {"entries__account__id__exact": account.pk}
    )
    assert entries.status_code == 200 and posting.key in entries.content.decode()
    page = client.get(reverse("admin:ledger_posting_change", args=[posting.pk]))
    assert page.status_code == 200 and 'name="_save"' not in page.content.decode()
    response = client.post(
        reverse("admin:ledger_posting_delete", args=[posting.pk]), {"post": "yes"}
    )
    assert response.status_code == 403
    assert Posting.objects.filter(pk=posting.pk).exists()


@pytest.mark.django_db
def test_staff_manage_the_commissary_goods(client: Client, warden: Any) -> None:
    client.force_login(warden)
    response = client.post(
        reverse("admin:ledger_good_add"),
        {
            "name": "Ramen",
            "name_es": "Ramen",
            "icon": "🍥",
            "price": 2,
            "in_stock": "on",
            "position": 9,
        },
    )
    assert response.status_code == 302
    assert Good.objects.get(name="Ramen").price == 2


@pytest.mark.django_db
def test_an_adjustment_needs_a_reason_and_records_who(
    client: Client, warden: Any, alice: Any
) -> None:
    client.force_login(warden)
    before = dollars(alice)
    page = client.get(ADJUST)
    assert page.status_code == 200 and "against the house" in page.content.decode()
    data = {"player": alice.pk, "unit": "dollars", "amount": 25, "token": uuid.uuid4()}
    response = client.post(ADJUST, {**data, "reason": "   "})
    assert response.status_code == 400 and not Adjustment.objects.exists()
    for amount, words in [("0", "changes nothing"), ("2.5", "whole number")]:
        response = client.post(ADJUST, {**data, "amount": amount, "reason": "x"})
        assert response.status_code == 400 and words in response.content.decode()
    response = client.post(ADJUST, {**data, "reason": "Lost a game to a server bug (ticket 12)"})
    assert response.status_code == 302
    adjustment = Adjustment.objects.get()
    assert adjustment.made_by == warden and adjustment.reason.startswith("Lost a game")
    posting = Posting.objects.get(key=f"adjustment:{adjustment.pk}")
    assert posting.reason == Reason.ADJUSTMENT and posting.created_by == warden
    house = Account.objects.get(code="house:dollars")
    assert house.balance == -25 and dollars(alice) == before + 25
    # The same form sent again adjusts once.
    client.post(ADJUST, {**data, "reason": "Lost a game to a server bug (ticket 12)"})
    assert Adjustment.objects.count() == 1
    # Taking more than the player has is refused, with the numbers.
    response = client.post(
        ADJUST, {**data, "token": uuid.uuid4(), "amount": -(before + 26), "reason": "too much"}
    )
    assert response.status_code == 400 and "Not enough" in response.content.decode()
    assert dollars(alice) == before + 25
    assert_books_balance()


@pytest.mark.django_db
def test_adjusting_goods_and_the_limits_of_adjustments(warden: Any, alice: Any, soup: Good) -> None:
    services.adjustment_make(
        staff=warden, user=alice, currency="goods", good_id=soup.pk, amount=3, reason="prize"
    )
    assert goods(alice, soup) == 3
    with pytest.raises(services.LedgerError, match="own balance"):
        services.adjustment_make(
            staff=warden, user=warden, currency="dollars", amount=5, reason="me"
        )
    with pytest.raises(services.LedgerError, match="Only staff"):
        services.adjustment_make(staff=alice, user=alice, currency="dollars", amount=5, reason="me")
    with pytest.raises(services.LedgerError, match="no such good"):
        services.adjustment_make(
            staff=warden, user=alice, currency="goods", good_id=999, amount=1, reason="x"
        )
    with pytest.raises(services.LedgerError, match="whole numbers"):
        services.adjustment_make(
            staff=warden, user=alice, currency="dollars", amount=1.5, reason="x"
        )
    assert Adjustment.objects.count() == 1


@pytest.mark.django_db
def test_staff_void_a_game_from_admin(client: Client, warden: Any, four: list[Any]) -> None:
    players = four[:2]
    before = [dollars(p) for p in players]
    staked = staked_game(players, stake=StakeSpec(dollars=30))
    client.force_login(warden)
    url = reverse("admin:ledger_stakedgame_changelist")
    listing = client.get(url)
    assert listing.status_code == 200 and str(staked.game) in listing.content.decode()
    action = {"action": "void_games", "_selected_action": [staked.game.pk]}
    asked = client.post(url, action)
    assert asked.status_code == 200 and "Why is the game voided?" in asked.content.decode()
    done = client.post(url, {**action, "apply": "1", "reason": "Abandoned: both players left"})
    assert done.status_code == 302
    assert Game.objects.get(pk=staked.game.pk).status == Game.Status.ABORTED
    assert [dollars(p) for p in players] == before
    refund = Posting.objects.get(reason=Reason.REFUND)
    assert refund.created_by == warden
    assert_books_balance()
