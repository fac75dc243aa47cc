"""Quick pairing's services: pairing by rating with a range that widens with the wait, one pool
at a time, leaving, never with oneself or a house player, covering the stake, the table's
"Ready" as the confirmation (or the seat goes to the next player), and house players on
request."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from typing import Any

import pytest
from django.utils import timezone

from house import services as house
from pairing import services
from pairing.cells import Cell, CellError, cell_of, cell_parse
from pairing.models import Match, PoolEntry
from pairing.selectors import pool_status
from ratings.models import Rating
from tables import services as tables
from tables.models import Game, Table

pytestmark = pytest.mark.django_db

ONE_ON_ONE = Cell("citizen", "1v1", 0)
T0 = dt.datetime(2026, 12, 1, 12, 0, tzinfo=dt.UTC)


def at(seconds: float) -> dt.datetime:
    return T0 + dt.timedelta(seconds=seconds)


def rated(user: Any, rating: float, pool: str = "allfives-1v1") -> Any:
    Rating.objects.create(
        user=user, pool=pool, rating=rating, deviation=60, games=30, last_game_at=timezone.now()
    )
    return user


def waiting(cell: Cell = ONE_ON_ONE) -> list[int]:
    return list(
        PoolEntry.objects.filter(cell=cell.key, status="waiting").values_list("user_id", flat=True)
    )


def table_of(user: Any) -> Table:
    entry = PoolEntry.objects.get(user=user, status="seated")
    assert entry.match is not None
    return entry.match.table


def seated_ids(table: Table) -> list[int | None]:
    return list(table.seats.order_by("number").values_list("user_id", flat=True))


def test_two_players_in_one_cell_are_seated_at_one_new_table(alice: Any, bob: Any) -> None:
    first = services.pool_join(user=alice, cell=ONE_ON_ONE)
    assert first.status == "waiting"
    assert pool_status(alice)["state"] == "waiting"
    assert pool_status(alice)["pool_size"] == 1
    second = services.pool_join(user=bob, cell="citizen:1v1:0")
    assert second.status == "seated"
    table = table_of(alice)
    assert table == table_of(bob)
    assert seated_ids(table) == [alice.pk, bob.pk]  # the one who waited longest hosts
    assert table.mode == "citizen" and table.players == 2 and table.private and table.rated
    match = table.pairing_match
    assert match.status == Match.Status.CONFIRMING and match.cell == "citizen:1v1:0"
    status = pool_status(bob)
    assert status["state"] == "seated" and status["url"] == f"/tables/{table.pk}/"
    assert not status["ready"]
    assert waiting() == []


def test_each_cell_is_its_own_pool(alice: Any, bob: Any, make_user: Callable[..., Any]) -> None:
    carol = make_user("Carol")
    services.pool_join(user=alice, cell="citizen:1v1:0")
    services.pool_join(user=bob, cell="citizen:1v1:10")  # another stake
    services.pool_join(user=carol, cell="citizen:ct3:0")  # another shape
    assert PoolEntry.objects.filter(status="waiting").count() == 3
    assert not Table.objects.exists()


def test_cut_throat_waits_for_three_and_partners_balances_the_sides(
    make_user: Callable[..., Any],
) -> None:
    ct3 = Cell("citizen", "ct3", 0)
    a, b, c = (make_user(n) for n in ("Ann", "Ben", "Cid"))
    services.pool_join(user=a, cell=ct3)
    services.pool_join(user=b, cell=ct3)
    assert len(waiting(ct3)) == 2
    services.pool_join(user=c, cell=ct3)
    assert seated_ids(table_of(a)) == [a.pk, b.pk, c.pk]

    partners = Cell("citizen", "partners", 0)
    people = [rated(make_user(n), r, "allfives-partners") for n, r in [
        ("P1560", 1560), ("P1500", 1500), ("P1480", 1480), ("P1540", 1540)]]  # fmt: skip
    for person in people:
        services.pool_join(user=person, cell=partners)
    table = table_of(people[0])
    assert table.settings["partners"] is True
    by_rating = {p.pk: r for p, r in zip(people, (1560, 1500, 1480, 1540), strict=True)}
    seats = [by_rating[uid] for uid in seated_ids(table) if uid]
    # seats 0 and 2 play together: the strongest with the weakest
    assert seats == [1560, 1540, 1480, 1500]
    assert seats[0] + seats[2] == seats[1] + seats[3]


def test_the_range_widens_with_the_wait(alice: Any, bob: Any) -> None:
    rated(alice, 1500)
    rated(bob, 1850)  # 350 apart: ±100 at first, ±350 after 5 s
    services.pool_join(user=alice, cell=ONE_ON_ONE, now=at(0))
    services.pool_join(user=bob, cell=ONE_ON_ONE, now=at(0))
    assert services.pool_pair(cell=ONE_ON_ONE, now=at(2)) == 0
    assert services.pool_pair(cell=ONE_ON_ONE, now=at(4.9)) == 0
    assert services.pool_pair(cell=ONE_ON_ONE, now=at(5)) == 2
    assert table_of(alice) == table_of(bob)
    assert services.rating_range(0) == 100
    assert services.rating_range(5) == 350
    assert services.rating_range(3600) == services.RANGE_MOST == 600


def test_the_longest_wait_takes_the_nearest_rating_that_fits() -> None:
    low = services.Waiting(1, 11, 1500, at(0))
    near = services.Waiting(2, 12, 1590, at(1))
    nearer = services.Waiting(3, 13, 1560, at(2))
    far = services.Waiting(4, 14, 1800, at(0))
    assert services.groups_find([near, far, nearer, low], 2, at(2)) == [[low, nearer]]
    # after 15 s (±600) Far fits: Low, who waited longest, still takes the nearest first
    assert services.groups_find([near, far, nearer, low], 2, at(15)) == [
        [low, nearer],
        [far, near],
    ]


def test_a_far_rating_is_never_paired(make_user: Callable[..., Any]) -> None:
    low, far = rated(make_user("Low"), 1500), rated(make_user("Far"), 2600)
    services.pool_join(user=low, cell=ONE_ON_ONE, now=at(0))
    services.pool_join(user=far, cell=ONE_ON_ONE, now=at(0))
    services.pool_pair(cell=ONE_ON_ONE, now=at(3600))  # 1100 apart: beyond the widest range
    assert set(waiting()) == {low.pk, far.pk}


def test_a_player_is_in_one_pool_at_a_time(alice: Any, bob: Any) -> None:
    services.pool_join(user=alice, cell=ONE_ON_ONE)
    services.pool_join(user=alice, cell="fives:1v1:0")
    assert list(PoolEntry.objects.filter(user=alice).values_list("cell", "status")) == [
        ("citizen:1v1:0", "left"),
        ("fives:1v1:0", "waiting"),
    ]
    services.pool_join(user=bob, cell=ONE_ON_ONE)
    assert waiting() == [bob.pk]  # Alice is no longer in that pool
    assert not Table.objects.exists()


def test_joining_the_same_pool_again_is_never_pairing_with_oneself(alice: Any) -> None:
    services.pool_join(user=alice, cell=ONE_ON_ONE)
    services.pool_join(user=alice, cell=ONE_ON_ONE)
    services.pool_pair(cell=ONE_ON_ONE, now=timezone.now() + dt.timedelta(hours=1))
    assert waiting() == [alice.pk]
    assert not Table.objects.exists()
    # and the pure choice refuses a group with one player twice
    me = services.Waiting(1, alice.pk, 1500, T0)
    again = services.Waiting(2, alice.pk, 1500, T0)
    assert services.groups_find([me, again], 2, at(60)) == []


def test_leaving_the_pool(alice: Any, bob: Any) -> None:
    services.pool_join(user=alice, cell=ONE_ON_ONE)
    assert services.pool_leave(user=alice) is True
    assert services.pool_leave(user=alice) is False
    assert pool_status(alice)["state"] == "idle"
    services.pool_join(user=bob, cell=ONE_ON_ONE)
    assert waiting() == [bob.pk]


def test_house_players_never_join_a_pool(alice: Any) -> None:
    bot = house.house_player_get(level="shark")
    with pytest.raises(services.PairingError) as refused:
        services.pool_join(user=bot, cell=ONE_ON_ONE)
    assert refused.value.code == "house_player"
    services.pool_join(user=alice, cell=ONE_ON_ONE)
    assert waiting() == [alice.pk]


def test_cells_are_those_of_the_grid() -> None:
    assert cell_of("citizen", "partners", "10") == Cell("citizen", "partners", 10)
    assert cell_of("citizen_gym", "1v1", "50").stake == 0  # a workout, never money
    assert cell_of("inmate", "ct4", "100").stake == 0  # canteen bets are chosen at a table
    for bad in [("fives", "ct3", 0), ("poker", "1v1", 0), ("citizen", "1v1", 7)]:
        with pytest.raises(CellError):
            cell_of(*bad)
    with pytest.raises(CellError):
        cell_parse("citizen:1v1")


def test_the_stake_must_be_covered_to_join(settings: Any, make_user: Callable[..., Any]) -> None:
    settings.LEDGER_SIGNUP_DOLLARS = 150
    poor = make_user("Poor")
    with pytest.raises(services.PairingError) as refused:
        services.pool_join(user=poor, cell="citizen:1v1:100")  # needs 200: a skunk owes double
    assert refused.value.code == "cannot_cover"
    assert "200" in refused.value.message and "150" in refused.value.message
    assert not PoolEntry.objects.exists()
    services.pool_join(user=poor, cell="fives:1v1:100")  # no skunk at Fives: 100 is enough
    assert waiting(Cell("fives", "1v1", 100)) == [poor.pk]


def test_the_stake_is_checked_again_when_seated(
    alice: Any, bob: Any, warden: Any, make_user: Callable[..., Any]
) -> None:
    from ledger import services as ledger

    staked = Cell("citizen", "1v1", 100)
    services.pool_join(user=alice, cell=staked)
    # Alice's Dollars go elsewhere while she waits
    ledger.adjustment_make(
        staff=warden, user=alice, currency="dollars", amount=-900, reason="test: spent"
    )
    services.pool_join(user=bob, cell=staked)
    assert PoolEntry.objects.get(user=alice).status == "left"  # out of the pool, not seated
    assert waiting(staked) == [bob.pk]
    assert not Table.objects.exists()
    carol = make_user("Carol")
    services.pool_join(user=carol, cell=staked)
    table = table_of(bob)
    assert seated_ids(table) == [bob.pk, carol.pk]
    assert table.stake.dollars == 100


def test_ready_starts_the_game_and_a_late_player_is_replaced(
    alice: Any, bob: Any, make_user: Callable[..., Any]
) -> None:
    services.pool_join(user=alice, cell=ONE_ON_ONE)
    services.pool_join(user=bob, cell=ONE_ON_ONE)
    table = table_of(alice)
    match = table.pairing_match
    tables.seat_ready(table_id=table.pk, user=alice, ready=True)
    carol = make_user("Carol")
    services.pool_join(user=carol, cell=ONE_ON_ONE)
    assert waiting() == [carol.pk]  # the table is full: Carol waits

    services.pairing_sweep(now=match.confirm_by - dt.timedelta(seconds=1))
    assert seated_ids(table) == [alice.pk, bob.pk]
    services.pairing_sweep(now=match.confirm_by + dt.timedelta(seconds=1))
    # Bob did not press Ready in time: his seat went to Carol, who has her own time to confirm
    assert PoolEntry.objects.get(user=bob).status == "dropped"
    assert pool_status(bob)["state"] == "dropped"
    assert seated_ids(table) == [alice.pk, carol.pk]
    assert pool_status(carol)["state"] == "seated"
    tables.seat_ready(table_id=table.pk, user=carol, ready=True)
    table.refresh_from_db()
    assert table.status == Table.Status.PLAYING
    assert Game.objects.get(table=table).players == [alice.pk, carol.pk]
    services.pairing_sweep()
    match.refresh_from_db()
    assert match.status == Match.Status.STARTED
    assert pool_status(alice)["state"] == "idle"


def test_a_table_nobody_confirms_is_called_off(alice: Any, bob: Any) -> None:
    services.pool_join(user=alice, cell=ONE_ON_ONE)
    services.pool_join(user=bob, cell=ONE_ON_ONE)
    table = table_of(alice)
    services.pairing_sweep(now=table.pairing_match.confirm_by + dt.timedelta(seconds=1))
    table.refresh_from_db()
    assert table.status == Table.Status.ABORTED
    assert table.pairing_match.status == Match.Status.CANCELLED
    assert seated_ids(table) == [None, None]
    # both may join again at once
    services.pool_join(user=alice, cell=ONE_ON_ONE)
    services.pool_join(user=bob, cell=ONE_ON_ONE)
    assert table_of(alice) == table_of(bob) != table


def test_a_player_who_leaves_the_seat_is_replaced(
    alice: Any, bob: Any, make_user: Callable[..., Any]
) -> None:
    services.pool_join(user=alice, cell=ONE_ON_ONE)
    services.pool_join(user=bob, cell=ONE_ON_ONE)
    table = table_of(alice)
    tables.seat_leave(table_id=table.pk, user=bob)
    carol = make_user("Carol")
    services.pool_join(user=carol, cell=ONE_ON_ONE)  # the join fills the empty seat at once
    assert seated_ids(table) == [alice.pk, carol.pk]
    services.pairing_sweep()
    assert PoolEntry.objects.get(user=bob).status == "dropped"


def test_seated_players_may_not_join_another_pool_until_they_play_or_leave(
    alice: Any, bob: Any
) -> None:
    services.pool_join(user=alice, cell=ONE_ON_ONE)
    services.pool_join(user=bob, cell=ONE_ON_ONE)
    with pytest.raises(services.PairingError) as refused:
        services.pool_join(user=alice, cell="fives:1v1:0")
    assert refused.value.code == "already_seated"


def test_house_players_fill_the_table_after_the_wait_and_it_is_casual(alice: Any) -> None:
    ct3 = Cell("citizen", "ct3", 0)
    services.pool_join(user=alice, cell=ct3, house_fill=True, now=at(0))
    assert services.pool_pair(cell=ct3, now=at(44)) == 0
    assert services.pool_pair(cell=ct3, now=at(45)) == 1
    table = table_of(alice)
    players = [s.user for s in table.seats.select_related("user").order_by("number")]
    assert players[0] == alice and all(p.house_level for p in players[1:])
    assert table.rated is False and table.pairing_match.house_filled
    assert table.seats.filter(ready=True).count() == 2  # the house is ready; Alice confirms
    tables.seat_ready(table_id=table.pk, user=alice, ready=True)
    table.refresh_from_db()
    assert table.status == Table.Status.PLAYING


def test_house_players_only_for_those_who_asked_and_only_for_nothing(alice: Any, bob: Any) -> None:
    services.pool_join(user=alice, cell=ONE_ON_ONE, now=at(0))
    assert services.pool_pair(cell=ONE_ON_ONE, now=at(600)) == 0
    entry = services.pool_join(user=bob, cell="citizen:1v1:10", house_fill=True, now=at(0))
    assert entry.house_fill is False  # a staked game is never filled with house players
    assert services.pool_pair(cell=Cell("citizen", "1v1", 10), now=at(600)) == 0
    assert not Table.objects.exists()


def test_a_table_with_a_free_seat_is_filled_from_the_pool_before_a_new_one_opens(
    make_user: Callable[..., Any],
) -> None:
    ct3 = Cell("citizen", "ct3", 0)
    a, b, c, d = (make_user(n) for n in ("Ann", "Ben", "Cid", "Dot"))
    for person in (a, b, c):
        services.pool_join(user=person, cell=ct3)
    table = table_of(a)
    tables.seat_leave(table_id=table.pk, user=b)
    services.pool_join(user=d, cell=ct3)
    assert seated_ids(table) == [a.pk, d.pk, c.pk]
    assert Table.objects.count() == 1


def test_an_empty_seat_of_players_who_asked_is_filled_with_a_house_player(
    make_user: Callable[..., Any],
) -> None:
    ct3 = Cell("citizen", "ct3", 0)
    a, b, c = (make_user(n) for n in ("Ann", "Ben", "Cid"))
    for person in (a, b, c):
        services.pool_join(user=person, cell=ct3, house_fill=True, now=at(0))
    table = table_of(a)
    for person in (a, c):
        tables.seat_ready(table_id=table.pk, user=person, ready=True)
    tables.seat_leave(table_id=table.pk, user=b)
    services.pairing_sweep(now=at(20))
    assert seated_ids(table)[1] is None  # nobody waiting, and not yet 45 s
    services.pairing_sweep(now=at(46))
    table.refresh_from_db()
    bot = table.seats.select_related("user").get(number=1).user
    assert bot.house_level
    assert table.status == Table.Status.PLAYING and table.rated is False
    assert table.pairing_match.house_filled


def test_seated_players_are_told_on_the_notices_socket(
    alice: Any, bob: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from social import notices

    sent: list[tuple[int, str, dict[str, Any]]] = []
    monkeypatch.setattr(notices, "notify_users", lambda batch: sent.extend(batch))
    services.pool_join(user=alice, cell=ONE_ON_ONE)
    assert sent == []
    services.pool_join(user=bob, cell=ONE_ON_ONE)
    table = table_of(alice)
    assert [(uid, kind) for uid, kind, _data in sent] == [
        (alice.pk, "pairing_seated"),
        (bob.pk, "pairing_seated"),
    ]
    assert sent[0][2]["url"] == f"/tables/{table.pk}/" and sent[0][2]["table"] == table.pk
    sent.clear()
    services.pairing_sweep(now=table.pairing_match.confirm_by + dt.timedelta(seconds=1))
    assert sorted(uid for uid, kind, _d in sent if kind == "pairing_dropped") == sorted(
        [alice.pk, bob.pk]
    )


def test_a_player_whose_page_was_closed_leaves_the_pool(alice: Any, bob: Any) -> None:
    services.pool_join(user=alice, cell=ONE_ON_ONE, now=at(0))
    assert pool_status(alice, now=at(30))["state"] == "waiting"  # the page asked: it is open
    services.pairing_sweep(now=at(70))
    assert waiting() == [alice.pk]
    services.pairing_sweep(now=at(76))  # nothing heard for more than 45 s
    assert waiting() == []
    assert PoolEntry.objects.get(user=alice).status == "left"
    services.pool_join(user=bob, cell=ONE_ON_ONE)
    assert waiting() == [bob.pk]  # nobody is seated with a closed page


def test_the_host_cannot_remove_a_matched_player_before_the_ready_time_runs_out(
    alice: Any, bob: Any, make_user: Callable[..., Any]
) -> None:
    services.pool_join(user=alice, cell=ONE_ON_ONE)
    services.pool_join(user=bob, cell=ONE_ON_ONE)
    table = table_of(alice)
    assert table.host_id == alice.pk
    seq = Table.objects.get(pk=table.pk).seq
    with pytest.raises(tables.TableError) as refused:
        tables.seat_remove(table_id=table.pk, host=alice, number=1)
    assert refused.value.code == "seats_fixed"
    assert "Ready" in refused.value.message
    # Nothing changed: Bob keeps his seat and his place, and is never told he was dropped.
    assert seated_ids(table) == [alice.pk, bob.pk]
    assert Table.objects.get(pk=table.pk).seq == seq
    assert PoolEntry.objects.get(user=bob).status == "seated"
    assert pool_status(bob)["state"] == "seated"
    # The pool's own expiry still frees the seat of a player not ready in time, and fills it.
    tables.seat_ready(table_id=table.pk, user=alice, ready=True)
    carol = make_user("Carol")
    services.pool_join(user=carol, cell=ONE_ON_ONE)
    match = Match.objects.get(table=table)
    services.pairing_sweep(now=match.confirm_by + dt.timedelta(seconds=1))
    assert PoolEntry.objects.get(user=bob).status == "dropped"
    assert seated_ids(table) == [alice.pk, carol.pk]


def test_the_host_may_remove_once_the_ready_time_ran_out(
    alice: Any, bob: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    services.pool_join(user=alice, cell=ONE_ON_ONE)
    services.pool_join(user=bob, cell=ONE_ON_ONE)
    table = table_of(alice)
    late = Match.objects.get(table=table).confirm_by + dt.timedelta(seconds=1)
    monkeypatch.setattr(timezone, "now", lambda: late)
    tables.seat_remove(table_id=table.pk, host=alice, number=1)
    assert seated_ids(table) == [alice.pk, None]
