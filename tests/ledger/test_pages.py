"""The stake on the create-table form and in the lobby, the locker's history after a game, the
socket's refusals, and every idempotency key in one place."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from django.test import Client
from django.urls import reverse

from ledger import services
from ledger.models import Account, Good, Posting, Reason, StakeItem, TableStake
from ledger.services import DOLLARS, StakeSpec, good_unit
from tables.models import Game, Table
from tests.ledger.helpers import dollars, finish, give, open_table, staked_game, take_all

LOBBY = "/lobby/"


def create(client: Client, **fields: Any) -> Any:
    data = {
        "mode": "citizen",
        "shape": "one_on_one",
        "deal": 7,
        "target": 150,
        "bone_set": "double-six",
    }
    data.update(fields)
    return client.post(LOBBY, data)


@pytest.mark.django_db
def test_the_create_form_sets_a_dollar_stake(client: Client, alice: Any) -> None:
    client.force_login(alice)
    page = client.get(LOBBY).content.decode()
    assert 'name="stake"' in page and "no cash value" in page
    assert "until the ledger opens" not in page
    response = create(client, stake=15)
    assert response.status_code == 302
    stake = TableStake.objects.get()
    assert (stake.kind, stake.dollars) == ("dollars", 15)
    create(client, mode="fives", bone_set="double-six", stake=0)
    assert not TableStake.objects.filter(table__mode="fives").exists()


@pytest.mark.django_db
def test_the_create_form_sets_a_canteen_bet(
    client: Client, alice: Any, warden: Any, soup: Good, coffee: Good
) -> None:
    give(alice, good_unit(soup.pk), 4, warden)
    give(alice, good_unit(coffee.pk), 2, warden)
    client.force_login(alice)
    # The Dollars field still holds its default: an Inmate table ignores it.
    response = create(
        client, mode="inmate", stake=10, **{f"canteen_{soup.pk}": 2, f"canteen_{coffee.pk}": 1}
    )
    assert response.status_code == 302, response.context["form"].errors
    stake = TableStake.objects.get()
    assert stake.kind == "canteen" and stake.dollars == 0
    assert sorted(StakeItem.objects.values_list("good__name", "quantity")) == [
        ("Coffee", 1),
        ("Soup", 2),
    ]


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("fields", "field", "words"),
    [
        ({"stake": -5}, "stake", "greater than or equal to 0"),
        ({"stake": "2.5"}, "stake", "whole number"),
        ({"stake": 100001}, "stake", "less than or equal to 100000"),
        ({"stake": 600}, "stake", "Alice needs 1200 Dollars"),
        ({"mode": "inmate", "canteen_SOUP": 3}, "canteen_SOUP", "Alice needs 6"),
        ({"mode": "inmate", "canteen_SOUP": -1}, "canteen_SOUP", "greater than or equal to 0"),
        ({"mode": "inmate", "canteen_SOUP": 21}, "canteen_SOUP", "less than or equal to 20"),
    ],
)
def test_refused_stakes_are_explained_on_their_field(
    client: Client, alice: Any, soup: Good, fields: dict[str, Any], field: str, words: str
) -> None:
    fields = {k.replace("SOUP", str(soup.pk)): v for k, v in fields.items()}
    field = field.replace("SOUP", str(soup.pk))
    client.force_login(alice)
    response = create(client, **fields)
    assert response.status_code == 400
    errors = response.context["form"].errors
    assert field in errors and any(words in e for e in errors[field]), errors
    assert not Table.objects.exists() and not Posting.objects.filter(reason="hold").exists()


@pytest.mark.django_db
def test_the_lobby_filters_the_stakes_a_player_can_cover(
    client: Client, alice: Any, bob: Any, warden: Any
) -> None:
    cheap = open_table([alice], stake=StakeSpec(dollars=10))
    dear = open_table([alice], stake=StakeSpec(dollars=400))
    take_all(bob, DOLLARS, warden)
    give(bob, DOLLARS, 100, warden)
    client.force_login(bob)
    html = client.get("/lobby/tables/", {"stake": "covered"}).content.decode()
    assert f'data-table="{cheap.pk}"' in html and f'data-table="{dear.pk}"' not in html
    everything = client.get("/lobby/tables/", {"stake": "nonsense"}).content.decode()
    assert f'data-table="{dear.pk}"' in everything


@pytest.mark.django_db
def test_the_locker_history_says_what_each_posting_was_for(client: Client, four: list[Any]) -> None:
    alice, bob, carol, _dave = four
    staked = staked_game([alice, bob, carol], stake=StakeSpec(dollars=10))
    finish(staked.game, winner=0, skunked=[1])
    services.game_settle(game_id=staked.game.pk)
    game_link = f'href="/tables/{staked.table.pk}/"'
    pages = {}
    for player in (alice, bob, carol):
        client.force_login(player)
        pages[player.display_name] = client.get(reverse("ledger:locker")).content.decode()
    assert "Won the game at table" in pages["Alice"] and game_link in pages["Alice"]
    assert "+50 Dollars" in pages["Alice"]  # 30 in the pot, Bob's reserve, her own reserve
    assert "Skunked in the game at table" in pages["Bob"]
    assert "your stake and your skunk reserve went to the winners" in pages["Bob"]
    assert "Lost the game at table" in pages["Carol"] and "+10 Dollars" in pages["Carol"]
    assert "Stake held for the game" in pages["Carol"] and "Welcome grant" in pages["Carol"]


@pytest.mark.django_db
def test_the_history_is_paginated(client: Client, alice: Any) -> None:
    stamp = Good.objects.get(name="Stamp")
    for _ in range(25):
        services.commissary_buy(user=alice, good_id=stamp.pk, quantity=1, token=uuid.uuid4())
    client.force_login(alice)
    first = client.get(reverse("ledger:locker")).content.decode()
    assert "Page 1 of 2" in first and "Welcome grant" not in first
    second = client.get(reverse("ledger:locker"), {"page": 2}).content.decode()
    assert "Welcome grant" in second


@pytest.mark.django_db
def test_every_key_pays_once(alice: Any, bob: Any, warden: Any, soup: Good) -> None:
    """Call every posting service twice with the same key: the second call posts nothing."""
    staked = staked_game([alice, bob], stake=StakeSpec(dollars=10))
    token = uuid.uuid4()
    adjustment_token = uuid.uuid4()
    finished = staked_game([alice, bob], stake=StakeSpec(dollars=5))
    finish(finished.game, winner=1)
    Game.objects.filter(pk=staked.game.pk).update(status=Game.Status.ABORTED)
    calls = [
        lambda: services.signup_grant(user=alice),
        lambda: services.commissary_buy(user=alice, good_id=soup.pk, quantity=1, token=token),
        lambda: services.adjustment_make(
            staff=warden,
            user=alice,
            currency="books",
            amount=3,
            reason="twice",
            token=adjustment_token,
        ),
        lambda: services.game_stake_hold(game=Game.objects.get(pk=staked.game.pk)),
        lambda: services.game_refund(game_id=staked.game.pk, why="twice"),
        lambda: services.game_settle(game_id=finished.game.pk),
    ]
    for call in calls:
        call()
        before = (Posting.objects.count(), dict(Account.objects.values_list("pk", "balance")))
        call()
        assert (Posting.objects.count(), dict(Account.objects.values_list("pk", "balance"))) == (
            before
        )
    # The allowance's key holds the day: a second claim is refused, not paid.
    services.allowance_claim(user=alice)
    with pytest.raises(services.AlreadyClaimed):
        services.allowance_claim(user=alice)
    assert Posting.objects.filter(reason=Reason.ALLOWANCE).count() == 1


@pytest.mark.django_db(transaction=True)
async def test_the_socket_refuses_a_seat_that_is_not_covered_and_knows_no_transfers(
    make_user: Any,
) -> None:
    from tests.tables.helpers import connect, next_reply

    alice = await sync_to_async(make_user)("Alice")
    bob = await sync_to_async(make_user)("Bob")
    warden = await sync_to_async(make_user)("Warden", staff=True)
    await sync_to_async(give)(alice, DOLLARS, 300, warden)  # Alice can cover 1200; Bob cannot
    table = await sync_to_async(open_table)([alice], stake=StakeSpec(dollars=600))
    socket = await connect(bob, table.pk)
    await socket.send_json_to({"type": "hello", "last_seq": None})
    assert (await next_reply(socket))["type"] == "snapshot"
    await socket.send_json_to({"type": "sit", "seat": 1})
    reply = await next_reply(socket)
    assert reply["type"] == "error" and reply["code"] == "cannot_cover"
    assert "Bob needs 1200 Dollars" in reply["message"]
    before = await sync_to_async(dollars)(bob)
    postings = await Posting.objects.acount()
    for kind in ("transfer", "pay", "tip", "give"):
        await socket.send_json_to({"type": kind, "to": alice.pk, "amount": 50})
        reply = await next_reply(socket)
        assert reply["type"] == "error" and reply["code"] == "unknown_type"
    assert await sync_to_async(dollars)(bob) == before
    assert await Posting.objects.acount() == postings
    await socket.disconnect()
