"""Stakes: covering them to sit, holding them at the start, settling, skunks, refunds."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from django.db import connection
from django.test import Client

from ledger import services
from ledger.models import Account, Kind, Posting, Reason, TableStake
from ledger.services import DOLLARS, StakeSpec, good_unit
from tables import services as tables
from tables.models import Game, Table
from tests.ledger.helpers import (
    assert_books_balance,
    dollars,
    finish,
    give,
    goods,
    open_table,
    staked_game,
    start,
    take_all,
)


def pot(table: Table, unit: services.Unit = DOLLARS) -> int:
    rows = Account.objects.filter(table=table, currency=unit[0], good_id=unit[1])
    return sum(a.balance for a in rows)


# --- sitting ---------------------------------------------------------------------------------


@pytest.mark.django_db
def test_a_player_who_cannot_cover_twice_the_stake_cannot_sit(
    alice: Any, bob: Any, warden: Any
) -> None:
    table = open_table([alice], stake=StakeSpec(dollars=30))
    take_all(bob, DOLLARS, warden)
    give(bob, DOLLARS, 59, warden)
    with pytest.raises(tables.TableError) as refused:
        tables.seat_take(table_id=table.pk, user=bob, number=1)
    assert refused.value.code == "cannot_cover"
    assert "Bob needs 60 Dollars to sit here" in refused.value.message
    assert (
        "twice the stake" in refused.value.message and "Bob has 59 Dollars" in refused.value.message
    )
    assert table.seats.get(number=1).user is None
    give(bob, DOLLARS, 1, warden)
    tables.seat_take(table_id=table.pk, user=bob, number=1)
    assert table.seats.get(number=1).user == bob


@pytest.mark.django_db
def test_head_to_head_needs_the_stake_once(alice: Any, bob: Any, warden: Any) -> None:
    """Fives and Threes have no skunk, so the most a player can lose is the stake."""
    table = open_table([alice], mode="fives", stake=StakeSpec(dollars=30))
    take_all(bob, DOLLARS, warden)
    give(bob, DOLLARS, 29, warden)
    with pytest.raises(tables.TableError, match="needs 30 Dollars"):
        tables.seat_take(table_id=table.pk, user=bob, number=1)
    give(bob, DOLLARS, 1, warden)
    tables.seat_take(table_id=table.pk, user=bob, number=1)


@pytest.mark.django_db
def test_the_host_must_cover_the_stake_too(alice: Any, warden: Any) -> None:
    take_all(alice, DOLLARS, warden)
    give(alice, DOLLARS, 10, warden)
    with pytest.raises(services.NotCovered, match="Alice needs 20 Dollars"):
        tables.table_create(host=alice, mode="citizen", players=2, stake=StakeSpec(dollars=10))
    assert not Table.objects.exists() and not TableStake.objects.exists()


@pytest.mark.django_db
def test_a_canteen_bet_needs_twice_the_bundle(
    alice: Any, bob: Any, soup: Any, coffee: Any, warden: Any
) -> None:
    bundle = StakeSpec(bundle=((soup.pk, 2), (coffee.pk, 1)))
    times = "\N{MULTIPLICATION SIGN}"
    with pytest.raises(services.NotCovered, match=f"Alice needs 4 {times} Soup, 2 {times} Coffee"):
        open_table([alice], mode="inmate", stake=bundle)
    for player in (alice, bob):
        give(player, good_unit(soup.pk), 4, warden)
        give(player, good_unit(coffee.pk), 1, warden)
    with pytest.raises(services.NotCovered, match=f"has 4 {times} Soup, 1 {times} Coffee"):
        open_table([alice], mode="inmate", stake=bundle)
    give(alice, good_unit(coffee.pk), 1, warden)
    table = open_table([alice], mode="inmate", stake=bundle)
    with pytest.raises(tables.TableError, match="Bob needs"):
        tables.seat_take(table_id=table.pk, user=bob, number=1)


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("mode", "spec", "words"),
    [
        ("citizen_gym", StakeSpec(dollars=5), "workout"),
        ("inmate", StakeSpec(dollars=5), "canteen bet"),
        ("citizen", StakeSpec(bundle=((0, 1),)), "no such good"),
        ("citizen", StakeSpec(dollars=-5), "smallest amount"),
        ("citizen", StakeSpec(dollars=2.5), "whole numbers"),  # type: ignore[arg-type]
        ("fives", StakeSpec(dollars=10**9), "largest amount"),
    ],
)
def test_stakes_a_mode_does_not_allow_are_refused(
    alice: Any, mode: str, spec: StakeSpec, words: str
) -> None:
    with pytest.raises(services.LedgerError) as refused:
        tables.table_create(host=alice, mode=mode, players=2, stake=spec)
    assert words in refused.value.message
    assert not Table.objects.exists()


@pytest.mark.django_db
def test_the_stake_is_checked_again_at_the_start(alice: Any, bob: Any, warden: Any) -> None:
    table = open_table([alice, bob], stake=StakeSpec(dollars=100))
    take_all(bob, DOLLARS, warden)  # Bob's Dollars went elsewhere after he sat down
    tables.seat_ready(table_id=table.pk, user=alice, ready=True)
    with pytest.raises(tables.TableError, match="Bob needs 200 Dollars"):
        tables.seat_ready(table_id=table.pk, user=bob, ready=True)
    game = Game.objects.get(table=table)
    assert game.status == Game.Status.WAITING
    assert not Posting.objects.filter(reason=Reason.HOLD).exists()


# --- holding and settling ------------------------------------------------------------------------


@pytest.mark.django_db
def test_the_stakes_are_held_when_the_game_starts(alice: Any, bob: Any) -> None:
    before = [dollars(alice), dollars(bob)]
    staked = staked_game([alice, bob], stake=StakeSpec(dollars=25))
    hold = Posting.objects.get(key=f"game:{staked.game.pk}:hold")
    assert hold.reason == Reason.HOLD and hold.game == staked.game
    # The stake goes into the pot and a second stake into the skunk reserve.
    assert [dollars(alice), dollars(bob)] == [before[0] - 50, before[1] - 50]
    assert Account.objects.get(table=staked.table, kind=Kind.POT).balance == 50
    assert Account.objects.get(table=staked.table, kind=Kind.RESERVE).balance == 50
    assert_books_balance()


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("skunked", "paid"),
    [([], [25, -25]), ([1], [50, -50])],
)
def test_one_on_one_settlement(alice: Any, bob: Any, skunked: list[int], paid: list[int]) -> None:
    before = [dollars(alice), dollars(bob)]
    staked = staked_game([alice, bob], stake=StakeSpec(dollars=25))
    finish(staked.game, winner=0, skunked=skunked)
    posting = services.game_settle(game_id=staked.game.pk)
    assert posting is not None and posting.key == f"game:{staked.game.pk}:settle"
    assert [dollars(alice) - before[0], dollars(bob) - before[1]] == paid
    assert pot(staked.table) == 0
    assert_books_balance()


@pytest.mark.django_db
def test_partners_split_the_pot_and_each_skunked_loser_pays_a_stake(four: list[Any]) -> None:
    before = [dollars(p) for p in four]
    staked = staked_game(four, stake=StakeSpec(dollars=10), partners=True)
    # Side 1 (seats 1 and 3) wins; side 0 (seats 0 and 2) is skunked.
    finish(staked.game, winner=1, skunked=[0])
    services.game_settle(game_id=staked.game.pk)
    assert [dollars(p) - b for p, b in zip(four, before, strict=True)] == [-20, 20, -20, 20]
    assert_books_balance()


@pytest.mark.django_db
def test_partners_without_a_skunk(four: list[Any]) -> None:
    before = [dollars(p) for p in four]
    staked = staked_game(four, stake=StakeSpec(dollars=7), partners=True)
    finish(staked.game, winner=0)
    services.game_settle(game_id=staked.game.pk)
    assert [dollars(p) - b for p, b in zip(four, before, strict=True)] == [7, -7, 7, -7]


@pytest.mark.django_db
def test_cut_throat_winner_takes_all_and_skunked_losers_pay_the_extra(four: list[Any]) -> None:
    before = [dollars(p) for p in four]
    staked = staked_game(four, stake=StakeSpec(dollars=10))
    finish(staked.game, winner=2, skunked=[0, 3])
    services.game_settle(game_id=staked.game.pk)
    # Pot 40 + two extra stakes to seat 2; seats 0 and 3 lose 20, seat 1 loses 10.
    assert [dollars(p) - b for p, b in zip(four, before, strict=True)] == [-20, -10, 50, -20]
    assert_books_balance()


@pytest.mark.django_db
def test_a_forfeit_is_a_loss(four: list[Any]) -> None:
    three = four[:3]
    before = [dollars(p) for p in three]
    staked = staked_game(three, stake=StakeSpec(dollars=10))
    finish(staked.game, winner=1, forfeit=0)
    services.game_settle(game_id=staked.game.pk)
    assert [dollars(p) - b for p, b in zip(three, before, strict=True)] == [-10, 20, -10]


def test_a_remainder_goes_to_the_first_partner_in_seat_order() -> None:
    """Equal stakes always split evenly between two partners; the rule for an odd amount is
    still exact: every unit is paid, the odd one to the first partner in seat order."""
    assert services.prize_shares(29, [3, 1]) == {1: 15, 3: 14}
    assert services.prize_shares(28, [1, 3]) == {1: 14, 3: 14}
    assert services.prize_shares(7, [2]) == {2: 7}


@pytest.mark.django_db
def test_head_to_head_winner_takes_the_pot(alice: Any, bob: Any) -> None:
    before = [dollars(alice), dollars(bob)]
    staked = staked_game([alice, bob], mode="threes", stake=StakeSpec(dollars=40))
    assert not Account.objects.filter(table=staked.table, kind=Kind.RESERVE).exists()
    assert [dollars(alice), dollars(bob)] == [before[0] - 40, before[1] - 40]
    finish(staked.game, winner=1)
    services.game_settle(game_id=staked.game.pk)
    assert [dollars(alice) - before[0], dollars(bob) - before[1]] == [-40, 40]


@pytest.mark.django_db
def test_a_canteen_bet_is_settled_in_goods(
    alice: Any, bob: Any, soup: Any, coffee: Any, warden: Any
) -> None:
    for player in (alice, bob):
        give(player, good_unit(soup.pk), 4, warden)
        give(player, good_unit(coffee.pk), 2, warden)
    staked = staked_game(
        [alice, bob], mode="inmate", stake=StakeSpec(bundle=((soup.pk, 2), (coffee.pk, 1)))
    )
    assert (goods(alice, soup), goods(alice, coffee)) == (0, 0)
    finish(staked.game, winner=1, skunked=[0])
    services.game_settle(game_id=staked.game.pk)
    assert (goods(alice, soup), goods(alice, coffee)) == (0, 0)
    assert (goods(bob, soup), goods(bob, coffee)) == (8, 4)
    assert_books_balance()


@pytest.mark.django_db
def test_settlement_pays_once_and_only_when_the_game_is_over(alice: Any, bob: Any) -> None:
    staked = staked_game([alice, bob])
    with pytest.raises(services.LedgerError, match="not over"):
        services.game_settle(game_id=staked.game.pk)
    finish(staked.game, winner=0)
    first = services.game_settle(game_id=staked.game.pk)
    after = [dollars(alice), dollars(bob)]
    again = services.game_settle(game_id=staked.game.pk)
    assert first is not None and again is not None and first.pk == again.pk
    assert [dollars(alice), dollars(bob)] == after
    assert Posting.objects.filter(reason=Reason.SETTLE).count() == 1


@pytest.mark.django_db
def test_a_game_played_for_nothing_posts_nothing(alice: Any, bob: Any) -> None:
    table = open_table([alice, bob])
    game = start(table, [alice, bob])
    finish(game, winner=0)
    assert services.game_settle(game_id=game.pk) is None
    assert not Posting.objects.filter(game=game).exists()


@pytest.mark.django_db(transaction=True)
def test_two_settlements_at_once_pay_once(make_user: Any) -> None:
    alice, bob = make_user("Alice"), make_user("Bob")
    staked = staked_game([alice, bob], stake=StakeSpec(dollars=50))
    finish(staked.game, winner=0, skunked=[1])
    before = [dollars(alice), dollars(bob)]
    barrier = threading.Barrier(6)
    postings: list[int] = []
    errors: list[BaseException] = []

    def settle() -> None:
        try:
            barrier.wait(timeout=30)
            posting = services.game_settle(game_id=staked.game.pk)
            assert posting is not None
            postings.append(posting.pk)
        except BaseException as exc:  # reported below
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=settle) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert errors == []
    assert len(postings) == 6 and len(set(postings)) == 1
    assert Posting.objects.filter(reason=Reason.SETTLE).count() == 1
    assert [dollars(alice) - before[0], dollars(bob) - before[1]] == [200, 0]
    assert_books_balance()


@pytest.mark.django_db(transaction=True)
def test_a_settlement_and_a_refund_at_once_never_both_happen(make_user: Any) -> None:
    alice, bob = make_user("Alice"), make_user("Bob")
    staked = staked_game([alice, bob], stake=StakeSpec(dollars=50))
    finish(staked.game, winner=0)
    # The staff's void races the settlement: the game row says aborted for the refund's sake.
    results: list[str] = []
    barrier = threading.Barrier(2)

    def run(kind: str) -> None:
        try:
            barrier.wait(timeout=30)
            if kind == "settle":
                services.game_settle(game_id=staked.game.pk)
            else:
                Game.objects.filter(pk=staked.game.pk).update(status=Game.Status.ABORTED)
                services.game_refund(game_id=staked.game.pk, why="test")
            results.append(kind)
        except services.LedgerError as exc:
            results.append(exc.code)
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(k,)) for k in ("settle", "refund")]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    closed = Posting.objects.filter(reason__in=[Reason.SETTLE, Reason.REFUND]).count()
    assert closed == 1, results
    assert pot(staked.table) == 0
    assert_books_balance()


# --- refunds -------------------------------------------------------------------------------


@pytest.mark.django_db
def test_a_voided_game_refunds_every_stake_exactly(four: list[Any], warden: Any) -> None:
    three = four[:3]
    before = [dollars(p) for p in three]
    staked = staked_game(three, stake=StakeSpec(dollars=15))
    game = tables.game_void(table_id=staked.table.pk, by=warden, reason="a player's line died")
    assert game.status == Game.Status.ABORTED
    assert Table.objects.get(pk=staked.table.pk).status == Table.Status.ABORTED
    refund = Posting.objects.get(key=f"game:{game.pk}:refund")
    assert refund.created_by == warden and refund.detail == {"why": "a player's line died"}
    assert [dollars(p) for p in three] == before
    assert pot(staked.table) == 0
    # Twice: still once. Settling a refunded game: refused.
    again = services.game_refund(game_id=game.pk, by=warden)
    assert again is not None and again.pk == refund.pk
    with pytest.raises(services.LedgerError, match="refunded"):
        services.game_settle(game_id=game.pk)
    assert_books_balance()


@pytest.mark.django_db
def test_an_aborted_game_before_the_first_play_is_refunded(alice: Any, bob: Any) -> None:
    before = [dollars(alice), dollars(bob)]
    staked = staked_game([alice, bob], stake=StakeSpec(dollars=20))
    Game.objects.filter(pk=staked.game.pk).update(status=Game.Status.ABORTED)
    services.game_refund(game_id=staked.game.pk, why="aborted before the first play")
    assert [dollars(alice), dollars(bob)] == before


@pytest.mark.django_db
def test_refunds_only_for_aborted_games_and_never_after_settlement(
    alice: Any, bob: Any, warden: Any
) -> None:
    staked = staked_game([alice, bob])
    with pytest.raises(services.LedgerError, match="aborted"):
        services.game_refund(game_id=staked.game.pk)
    finish(staked.game, winner=0)
    services.game_settle(game_id=staked.game.pk)
    Game.objects.filter(pk=staked.game.pk).update(status=Game.Status.ABORTED)
    with pytest.raises(services.LedgerError, match="settled"):
        services.game_refund(game_id=staked.game.pk, by=warden)
    with pytest.raises(tables.TableError, match="Only staff"):
        tables.game_void(table_id=staked.table.pk, by=alice, reason="x")


# --- the real thing --------------------------------------------------------------------------


@pytest.mark.django_db
def test_a_whole_game_played_through_the_table_service_is_settled(alice: Any, bob: Any) -> None:
    import random

    from engine import GameState

    rng = random.Random(11)
    before = [dollars(alice), dollars(bob)]
    staked = staked_game([alice, bob], stake=StakeSpec(dollars=30))
    players = [alice, bob]
    moves = 0
    while True:
        game = Game.objects.get(pk=staked.game.pk)
        if game.status != Game.Status.PLAYING:
            break
        state = GameState.from_json(game.state)
        action = rng.choice(state.legal_actions()).to_dict()
        seat = action.pop("seat")
        tables.game_act(
            table_id=staked.table.pk, user=players[seat], version=game.version, action=action
        )
        moves += 1
        assert moves < 3000
    result = game.result
    assert game.status == Game.Status.FINISHED and result is not None
    settle = Posting.objects.get(key=f"game:{game.pk}:settle")
    assert settle.detail["winners"] == [result["winner"]]
    skunk = 30 if result["skunked"] else 0
    won = 30 + skunk
    gains = [dollars(alice) - before[0], dollars(bob) - before[1]]
    assert gains == ([won, -won] if result["winner"] == 0 else [-won, won])
    assert_books_balance()


@pytest.mark.django_db
def test_the_lobby_and_the_table_show_the_stake(client: Client, alice: Any, bob: Any) -> None:
    staked_open = open_table([alice], stake=StakeSpec(dollars=12))
    free = open_table([alice])
    client.force_login(bob)
    lobby = client.get("/lobby/").content.decode()
    assert "Stake: 12 Dollars" in lobby and "a skunk costs 12 Dollars more" in lobby
    only = client.get("/lobby/tables/", {"stake": "dollars"}).content.decode()
    assert f'data-table="{staked_open.pk}"' in only and f'data-table="{free.pk}"' not in only
    none = client.get("/lobby/tables/", {"stake": "none"}).content.decode()
    assert f'data-table="{free.pk}"' in none and f'data-table="{staked_open.pk}"' not in none
    page = client.get(f"/tables/{staked_open.pk}/").content.decode()
    assert "To sit you need 24 Dollars." in page
    assert "A skunk costs one more stake: 12 Dollars more, 24 Dollars in all." in page
    assert "no cash value" in page
