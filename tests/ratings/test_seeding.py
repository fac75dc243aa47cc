"""Tournament organizers may seed an event by rating: best rating first, in the event's pool."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import Group

from ratings.pools import Pool
from tests.ratings.helpers import set_rating
from tests.tournaments.conftest import make_event, quick_user, register_and_check_in, start
from tournaments.forms import TournamentForm
from tournaments.models import ORGANIZERS_GROUP, Tournament

pytestmark = pytest.mark.django_db


@pytest.fixture
def organizer() -> Any:
    user = quick_user("Olga")
    user.groups.add(Group.objects.get_or_create(name=ORGANIZERS_GROUP)[0])
    return user


@pytest.fixture
def entrants() -> list[Any]:
    return [quick_user(name) for name in ("Ana", "Ben", "Cruz", "Dee")]


def test_the_event_form_offers_seeding_by_rating() -> None:
    assert ("rating", "By rating, best first") in [
        (v, str(label)) for v, label in TournamentForm().fields["seeding"].choices
    ]


def test_seeded_by_rating_best_first(organizer: Any, entrants: list[Any]) -> None:
    ana, ben, cruz, dee = entrants
    set_rating(ana, Pool.FIVES, 1400, 60)
    set_rating(ben, Pool.FIVES, 1800, 60)
    set_rating(dee, Pool.FIVES, 1650, 60)
    set_rating(cruz, Pool.THREES, 2200, 60)  # another pool: Cruz is new at Fives (1500)
    tournament = make_event(organizer, seeding="rating")
    register_and_check_in(tournament, [ana, ben, cruz, dee])
    tournament = start(tournament)
    assert tournament.status == Tournament.Status.RUNNING
    seeds = {e.player_id: e.seed for e in tournament.entries.all()}
    assert seeds == {ben.pk: 1, dee.pk: 2, cruz.pk: 3, ana.pk: 4}
    # Round one: seed 1 against seed 4, seed 2 against seed 3.
    pairs = {
        frozenset((m.entry_a.player_id, m.entry_b.player_id))
        for m in tournament.matches.filter(round=1).select_related("entry_a", "entry_b")
    }
    assert pairs == {frozenset((ben.pk, ana.pk)), frozenset((dee.pk, cruz.pk))}


def test_partners_are_seeded_by_their_mean_rating(organizer: Any, entrants: list[Any]) -> None:
    ana, ben, cruz, dee = entrants
    pool = Pool.ALLFIVES_PARTNERS
    set_rating(ana, pool, 1900, 60)
    set_rating(ben, pool, 1300, 60)  # Ana and Ben: 1600
    set_rating(cruz, pool, 1700, 60)
    set_rating(dee, pool, 1550, 60)  # Cruz and Dee: 1625
    tournament = make_event(
        organizer,
        seeding="rating",
        mode="citizen",
        table_options={"players": 4, "partners": True, "target": 150},
    )
    register_and_check_in(tournament, [ana, ben, cruz, dee], partners=True)
    tournament = start(tournament)
    seeds = {e.player_id: e.seed for e in tournament.entries.all()}
    assert seeds == {cruz.pk: 1, ana.pk: 2}
