"""Conservation as a property: random sequences of grants, claims, purchases, stakes,
settlements, refunds and adjustments never create or destroy value.

After every step: every posting balances per unit, every cached balance equals the sum of its
entries, no player balance or pot is negative, and each unit sums to zero over all accounts
(the house's accounts run below zero by exactly what players hold). A refused step (not enough
money, a day already claimed, a stake a player cannot cover) changes nothing at all.
"""

from __future__ import annotations

import datetime as dt
import uuid
from typing import Any

import pytest
from django.db import transaction
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from accounts.models import AgeStatus, User
from ledger import services
from ledger.models import Account, Good, Posting
from ledger.services import DOLLARS, StakeSpec
from tables import services as tables
from tables.models import Game
from tests.ledger.helpers import assert_books_balance, finish

START = dt.datetime(2026, 5, 1, 9, 0, tzinfo=dt.UTC)
ZONES = ["UTC", "America/Los_Angeles", "Asia/Tokyo", "Pacific/Kiritimati"]

player = st.integers(min_value=0, max_value=3)
signup = st.tuples(st.just("signup"))
claim = st.tuples(st.just("claim"), player, st.integers(0, 40), st.sampled_from(ZONES))
buy = st.tuples(st.just("buy"), player, st.integers(0, 3), st.integers(1, 30))
adjust = st.tuples(
    st.just("adjust"),
    player,
    st.sampled_from(["dollars", "books", "good"]),
    st.integers(-400, 400).filter(bool),
)
game = st.tuples(
    st.just("game"),
    st.sampled_from(["citizen", "citizen_partners", "fives", "inmate"]),
    st.permutations([0, 1, 2, 3]),
    st.integers(2, 4),
    st.integers(1, 400),
    st.one_of(
        st.tuples(st.just("settle"), st.integers(0, 3), st.sets(st.integers(0, 3))),
        st.tuples(st.just("void")),
        st.tuples(st.just("abort")),
    ),
)
steps = st.lists(st.one_of(signup, claim, buy, adjust, game), min_size=1, max_size=18)


def snapshot() -> tuple[int, dict[int, int]]:
    return Posting.objects.count(), dict(Account.objects.values_list("pk", "balance"))


class World:
    def __init__(self) -> None:
        self.players = [self.new_player() for _ in range(4)]
        self.staff = User.objects.create_user(
            "warden-p@example.com",
            None,
            display_name="WardenP",
            date_of_birth=dt.date(1980, 1, 1),
            age_status=AgeStatus.VERIFIED,
            is_staff=True,
        )
        self.goods = list(Good.objects.order_by("pk")[:4])
        self.day = START

    def new_player(self) -> Any:
        n = User.objects.count()
        return User.objects.create_user(
            f"p{n}-{uuid.uuid4().hex[:6]}@example.com",
            None,
            display_name=f"P{n}{uuid.uuid4().hex[:6]}",
            date_of_birth=dt.date(1990, 1, 1),
        )

    def run(self, step: tuple[Any, ...]) -> None:
        kind = step[0]
        if kind == "signup":
            self.players.append(self.new_player())
            return
        if kind == "claim":
            _, who, hours, zone = step
            user = self.players[who]
            User.objects.filter(pk=user.pk).update(time_zone=zone)
            user.time_zone = zone
            self.day += dt.timedelta(hours=hours)
            self.refusable(
                services.AlreadyClaimed, services.allowance_claim, user=user, now=self.day
            )
            return
        if kind == "buy":
            _, who, good, quantity = step
            self.refusable(
                services.InsufficientFunds,
                services.commissary_buy,
                user=self.players[who],
                good_id=self.goods[good].pk,
                quantity=quantity,
                token=uuid.uuid4(),
            )
            return
        if kind == "adjust":
            _, who, unit, amount = step
            self.refusable(
                services.InsufficientFunds,
                services.adjustment_make,
                staff=self.staff,
                user=self.players[who],
                currency="goods" if unit == "good" else unit,
                good_id=self.goods[0].pk if unit == "good" else None,
                amount=amount,
                reason="property test",
            )
            return
        self.play(*step[1:])

    def refusable(self, refusal: type[Exception], service: Any, **kwargs: Any) -> None:
        """Run a service that may be refused; a refusal must leave the books untouched."""
        before = snapshot()
        try:
            with transaction.atomic():
                service(**kwargs)
        except refusal:
            assert snapshot() == before
            event(f"refused: {service.__name__}")

    def play(self, mode: str, order: list[int], count: int, amount: int, end: Any) -> None:
        options: dict[str, Any] = {}
        if mode == "citizen_partners":
            mode, count, options = "citizen", 4, {"partners": True}
        if mode == "fives":
            count = 2
        seated = [self.players[i] for i in order[:count]]
        if mode == "inmate":
            spec = StakeSpec(bundle=((self.goods[0].pk, 1 + amount % 3), (self.goods[1].pk, 1)))
        else:
            spec = StakeSpec(dollars=amount)
        before = snapshot()
        try:
            with transaction.atomic():
                table = tables.table_create(
                    host=seated[0], mode=mode, players=count, stake=spec, **options
                )
                for number, user in enumerate(seated[1:], start=1):
                    tables.seat_take(table_id=table.pk, user=user, number=number)
                for user in seated:
                    tables.seat_ready(table_id=table.pk, user=user, ready=True)
        except (services.NotCovered, tables.TableError) as exc:
            assert getattr(exc, "code", "cannot_cover") == "cannot_cover"
            assert snapshot() == before
            event("game refused: a stake not covered")
            return
        held = Game.objects.get(table=table)
        assert held.status == Game.Status.PLAYING
        sides = 2 if options.get("partners") else count
        if end[0] == "settle":
            winner = end[1] % sides
            skunked = sorted({s % sides for s in end[2]} - {winner}) if mode != "fives" else []
            finish(held, winner=winner, skunked=skunked)
            posting = services.game_settle(game_id=held.pk)
            assert posting is not None
        elif end[0] == "void":
            tables.game_void(table_id=table.pk, by=self.staff, reason="property test")
        else:
            Game.objects.filter(pk=held.pk).update(status=Game.Status.ABORTED)
            services.game_refund(game_id=held.pk, why="aborted before the first play")
        event(f"game closed: {end[0]}")
        pots = Account.objects.filter(table=table)
        assert all(a.balance == 0 for a in pots), "a closed game leaves nothing in its pot"


class Rollback(Exception):
    pass


@pytest.mark.django_db
@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(sequence=steps)
def test_value_is_conserved_by_any_sequence(sequence: list[tuple[Any, ...]]) -> None:
    try:
        with transaction.atomic():
            world = World()
            for step in sequence:
                world.run(step)
                assert_books_balance()
            raise Rollback
    except Rollback:
        pass


@pytest.mark.django_db
def test_the_property_checker_catches_a_broken_book(alice: Any) -> None:
    """assert_books_balance fails when a cached balance drifts from its entries."""
    from django.db import connection

    account = services.player_account(alice.pk, DOLLARS)
    with connection.cursor() as cursor:
        cursor.execute(
            "UPDATE ledger_account SET balance = balance + 1 WHERE id = %s", [account.pk]
        )
    with pytest.raises(AssertionError):
        assert_books_balance()
