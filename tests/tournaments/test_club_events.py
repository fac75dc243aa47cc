"""Clubs' own events and series, and club battle arenas: who may make and run them (a club's
leaders, organizers or not), who may register (members only; each battle entrant for one of
their clubs), every refusal in words with nothing changed, the club's page listing them, and
the clubs' standings of a battle."""

from __future__ import annotations

import datetime as dt
import random
from typing import Any

import pytest
from django.test import Client
from django.utils import timezone

from clubs import services as club_services
from clubs.models import Club, Policy
from tests.tournaments.conftest import event_settings, quick_user
from tests.tournaments.test_arena_flow import everyone_plays, make_arena
from tests.tournaments.test_money import dollars
from tests.tournaments.test_pages import form_data
from tests.tournaments.test_series import series_data
from tournaments import arenas, services
from tournaments import series as series_services
from tournaments.models import Entry, Series, Tournament
from tournaments.services import TournamentError


def club_of(leader: Any, name: str, *members: Any) -> Club:
    club = club_services.club_found(user=leader, name=name, description="", policy=Policy.OPEN)
    for member in members:
        club_services.club_join(club_id=club.pk, user=member)
    return club


def client_of(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


@pytest.fixture
def people(db: None) -> dict[str, Any]:
    return {name: quick_user(name) for name in ("Lena", "Marta", "Nico", "Otto", "Pia")}


# --- a club's own events ------------------------------------------------------------------------


def test_a_club_leader_makes_the_clubs_own_event_and_only_members_register(
    people: dict[str, Any],
) -> None:
    lena, marta, nico = people["Lena"], people["Marta"], people["Nico"]
    club = club_of(lena, "Los Tranques", marta)
    assert not services.is_organizer(lena)  # a leader, not a tournament organizer
    with pytest.raises(TournamentError) as refused:
        services.tournament_create(organizer=lena, **event_settings())
    assert refused.value.code == "not_organizer"  # an open event is an organizer's

    event = services.tournament_create(organizer=lena, club=club, **event_settings())
    services.tournament_publish(tournament_id=event.pk, by=lena)
    assert event.club == club

    services.entry_register(tournament_id=event.pk, user=marta)
    balance = dollars(nico)
    with pytest.raises(TournamentError) as refused:
        services.entry_register(tournament_id=event.pk, user=nico)
    assert refused.value.code == "club_only"
    assert "Only members of Los Tranques may register" in refused.value.message
    assert not Entry.objects.filter(tournament=event, player=nico).exists()
    assert dollars(nico) == balance
    # Once in the club, Nico may.
    club_services.club_join(club_id=club.pk, user=nico)
    services.entry_register(tournament_id=event.pk, user=nico)
    assert services.active_entries(event).count() == 2


def test_a_partner_outside_the_club_is_refused_on_the_partner_field(
    people: dict[str, Any],
) -> None:
    lena, marta, nico, otto = (people[n] for n in ("Lena", "Marta", "Nico", "Otto"))
    club = club_of(lena, "Los Tranques", marta, nico)
    settings = event_settings(mode="citizen", table_options={"players": 4, "partners": True})
    event = services.tournament_create(organizer=lena, club=club, **settings)
    services.tournament_publish(tournament_id=event.pk, by=lena)
    with pytest.raises(TournamentError) as refused:
        services.entry_register(tournament_id=event.pk, user=marta, partner=otto)
    assert refused.value.errors == {"partner": ["Otto is not a member of Los Tranques."]}
    assert not event.entries.exists()
    services.entry_register(tournament_id=event.pk, user=marta, partner=nico)


def test_every_leader_runs_the_clubs_events_and_only_its_leaders_make_them(
    people: dict[str, Any], organizer: Any
) -> None:
    lena, marta, nico = people["Lena"], people["Marta"], people["Nico"]
    club = club_of(lena, "Los Tranques", marta)
    other = club_of(nico, "Las Fichas")
    # Neither another club's leader nor an organizer outside the club makes its events.
    for outsider in (nico, organizer):
        with pytest.raises(TournamentError) as refused:
            services.tournament_create(organizer=outsider, club=club, **event_settings())
        assert refused.value.errors == {
            "club": ["Only the leaders of Los Tranques make its events."]
        }
    assert not Tournament.objects.exists()

    event = services.tournament_create(organizer=lena, club=club, **event_settings())
    assert services.may_manage(lena, event)
    assert not services.may_manage(marta, event)
    assert not services.may_manage(nico, event)
    club_services.leader_appoint(club_id=club.pk, member_id=marta.pk, by=lena)
    assert services.may_manage(marta, event)  # a leader appointed later runs it too
    services.tournament_publish(tournament_id=event.pk, by=marta)
    club_services.club_leave(club_id=club.pk, user=lena)
    assert not services.may_manage(lena, event)  # and one who left no longer does
    assert services.clubs_led(nico) == [other]


def test_a_club_series_makes_club_events_and_its_leaders_run_it(
    people: dict[str, Any],
) -> None:
    lena, marta, nico = people["Lena"], people["Marta"], people["Nico"]
    club = club_of(lena, "Los Tranques", marta)
    with pytest.raises(TournamentError) as refused:
        series_services.series_create(organizer=nico, club=club, **series_data())
    assert refused.value.code == "not_leader"
    assert not Series.objects.exists()

    series = series_services.series_create(organizer=lena, club=club, **series_data())
    events = list(series.events.all())
    assert events and all(e.club_id == club.pk for e in events)
    club_services.leader_appoint(club_id=club.pk, member_id=marta.pk, by=lena)
    series_services.series_pause(series_id=series.pk, by=marta)
    with pytest.raises(TournamentError):
        series_services.series_resume(series_id=series.pk, by=nico)
    with pytest.raises(TournamentError) as refused:
        services.entry_register(tournament_id=events[0].pk, user=nico)
    assert refused.value.code == "club_only"


# --- club battles -------------------------------------------------------------------------------


def test_a_battles_settings_are_checked_on_their_fields(
    people: dict[str, Any], organizer: Any
) -> None:
    a = club_of(people["Lena"], "Los Tranques")
    b = club_of(people["Nico"], "Las Fichas")
    cases = [
        (
            {"format": "single", "arena_minutes": None, "max_entrants": 8},
            [a, b],
            2,
            "battle_clubs",
            "A club battle is an arena",
        ),
        ({}, [a], 2, "battle_clubs", "from 2 to 16 clubs"),
        ({}, [a, b], 0, "battle_top", "best 1 to 50 players"),
        ({}, [a, b], None, "battle_top", "best 1 to 50 players"),
    ]
    for overrides, chosen, top, field, words in cases:
        settings = event_settings(
            **{"format": "arena", "arena_minutes": 30, "max_entrants": 100, **overrides}
        )
        with pytest.raises(TournamentError) as refused:
            services.tournament_create(
                organizer=organizer, battle_clubs=chosen, battle_top=top, **settings
            )
        assert words in refused.value.errors[field][0], (overrides, top)
    assert not Tournament.objects.exists()
    with pytest.raises(TournamentError) as refused:  # a leader's club event is not a battle
        services.tournament_create(
            organizer=people["Lena"],
            club=a,
            battle_clubs=[a, b],
            battle_top=2,
            **event_settings(format="arena", arena_minutes=30, max_entrants=100),
        )
    assert "can't be a battle" in refused.value.errors["battle_clubs"][0]


def battle(organizer: Any, clubs: list[Club], top: int = 2) -> Tournament:
    now = timezone.now()
    data = event_settings(
        now,
        name="Club Night Battle",
        format="arena",
        arena_minutes=30,
        max_entrants=100,
        starts_at=now + dt.timedelta(minutes=20),
    )
    event = services.tournament_create(
        organizer=organizer, battle_clubs=clubs, battle_top=top, **data
    )
    return services.tournament_publish(tournament_id=event.pk, by=organizer)


def test_battle_entrants_play_for_one_of_their_clubs(
    people: dict[str, Any], organizer: Any
) -> None:
    lena, marta, nico, otto, pia = (people[n] for n in ("Lena", "Marta", "Nico", "Otto", "Pia"))
    a = club_of(lena, "Los Tranques", marta)
    b = club_of(nico, "Las Fichas", marta)
    event = battle(organizer, [a, b])
    assert services.entry_register(tournament_id=event.pk, user=lena).club == a
    # Marta is in both: she chooses (without a choice, the first by name).
    with pytest.raises(TournamentError) as refused:
        services.entry_register(tournament_id=event.pk, user=marta, club=club_of(otto, "Otra"))
    assert refused.value.errors == {"club": ["Choose one of your clubs in this battle."]}
    assert services.entry_register(tournament_id=event.pk, user=marta, club=a.pk).club == a
    with pytest.raises(TournamentError) as refused:
        services.entry_register(tournament_id=event.pk, user=pia)
    assert refused.value.code == "club_only"
    assert services.entry_register(tournament_id=event.pk, user=nico).club == b


def test_a_battle_ranks_its_clubs_by_their_best_players_points(
    people: dict[str, Any], organizer: Any
) -> None:
    """A played battle: the frame's clubs are each club's best two players' points, as the
    rules module sums them, and the page shows them."""
    names = ("Lena", "Marta", "Nico", "Otto")
    lena, marta, nico, otto = (people[n] for n in names)
    a = club_of(lena, "Los Tranques", marta)
    b = club_of(nico, "Las Fichas", otto)
    event = battle(organizer, [a, b])
    for user in (lena, marta, nico, otto):
        services.entry_register(tournament_id=event.pk, user=user)
    rng = random.Random(7)
    now = event.starts_at
    services.tournament_sweep(now=now)
    for _ in range(3):
        now += dt.timedelta(minutes=3)
        everyone_plays(event, now, rng)
    event.refresh_from_db()
    matches = list(event.matches.select_related("entry_a", "entry_b"))
    assert matches
    for match in matches:  # clubmates never meet: a club could feed its own points
        assert match.entry_a.club_id != match.entry_b.club_id  # type: ignore[union-attr]
    frame = arenas.standings_frame(event)
    points = {player: score for player, _rank, score in frame["ranks"]}
    clubs = {c["name"]: c for c in frame["clubs"]}
    assert set(clubs) == {"Los Tranques", "Las Fichas"}
    for club, members in ((a, (lena, marta)), (b, (nico, otto))):
        best = sorted((points.get(m.pk, 0) for m in members), reverse=True)[:2]
        assert clubs[club.name]["score"] == sum(best)
    assert [c["rank"] for c in frame["clubs"]] == [1, 2]
    assert frame["clubs"][0]["score"] >= frame["clubs"][1]["score"]
    page = client_of(otto).get(f"/tournaments/{event.pk}/")
    assert page.status_code == 200
    body = page.content.decode()
    assert 'id="arena-clubs"' in body and "Las Fichas" in body


def test_an_ordinary_arena_has_no_clubs_in_its_frame(organizer: Any) -> None:
    event = make_arena(organizer)
    assert "clubs" not in arenas.standings_frame(event)


# --- the pages ------------------------------------------------------------------------------------


def test_a_leader_makes_a_club_event_from_the_clubs_page(people: dict[str, Any]) -> None:
    lena, marta = people["Lena"], people["Marta"]
    club = club_of(lena, "Los Tranques", marta)
    leader = client_of(lena)
    page = leader.get(f"/clubs/{club.slug}/").content.decode()
    assert f"/tournaments/new/?club={club.slug}" in page
    assert "New club series" in page
    assert "New club event" not in client_of(marta).get(f"/clubs/{club.slug}/").content.decode()

    form = leader.get(f"/tournaments/new/?club={club.slug}")
    assert form.status_code == 200
    html = form.content.decode()
    assert "Members of Los Tranques only" in html
    assert "Everyone: an open event" not in html  # not an organizer
    assert "battle_clubs" not in html  # battles are organizers' events
    response = leader.post("/tournaments/new/", form_data(name="Tranques Night", club=club.slug))
    assert response.status_code == 302, response.content.decode()[:2000]
    event = Tournament.objects.get(name="Tranques Night")
    assert event.club == club and event.organizer == lena
    services.tournament_publish(tournament_id=event.pk, by=lena)

    # The club's page lists it; a player outside the club is told why they can't register.
    assert "Tranques Night" in client_of(marta).get(f"/clubs/{club.slug}/").content.decode()
    outsider = client_of(people["Nico"]).get(f"/tournaments/{event.pk}/").content.decode()
    assert "may register: join the club first" in outsider
    assert 'id="register"' not in outsider
    member = client_of(marta).get(f"/tournaments/{event.pk}/").content.decode()
    assert 'id="register"' in member
    assert "Members of <a" in member  # the event's facts say whose it is


def test_a_player_who_leads_no_club_cannot_open_the_form(people: dict[str, Any]) -> None:
    assert client_of(people["Pia"]).get("/tournaments/new/").status_code == 404
    assert client_of(people["Pia"]).get("/series/new/").status_code == 404


def test_an_organizer_names_a_battles_clubs_and_unknown_names_are_explained(
    people: dict[str, Any], organizer: Any
) -> None:
    club_of(people["Lena"], "Los Tranques")
    club_of(people["Nico"], "Las Fichas")
    client = client_of(organizer)
    arena = {"format": "arena", "arena_minutes": 30, "max_entrants": 100, "best_of": 1}
    response = client.post(
        "/tournaments/new/",
        form_data(battle_clubs="los tranques\nLos Nadie", battle_top=3, **arena),
    )
    assert response.status_code == 400
    assert "There is no club named Los Nadie." in response.content.decode()
    assert not Tournament.objects.exists()
    response = client.post(
        "/tournaments/new/",
        form_data(name="Battle", battle_clubs="los tranques\nLAS FICHAS", battle_top=3, **arena),
    )
    assert response.status_code == 302, response.content.decode()[:3000]
    event = Tournament.objects.get(name="Battle")
    assert sorted(c.name for c in event.battle_clubs.all()) == ["Las Fichas", "Los Tranques"]
    assert event.battle_top == 3
    edit = client.get(f"/tournaments/{event.pk}/edit/").content.decode()
    assert "Las Fichas\nLos Tranques" in edit


def test_a_member_of_two_battle_clubs_chooses_on_the_page(
    people: dict[str, Any], organizer: Any
) -> None:
    lena, marta, nico = people["Lena"], people["Marta"], people["Nico"]
    a = club_of(lena, "Los Tranques", marta)
    b = club_of(nico, "Las Fichas", marta)
    event = battle(organizer, [a, b])
    page = client_of(marta).get(f"/tournaments/{event.pk}/").content.decode()
    assert 'name="club"' in page and "You play for" in page
    response = client_of(marta).post(f"/tournaments/{event.pk}/register/", {"club": b.pk})
    assert response.status_code == 302
    assert Entry.objects.get(tournament=event, player=marta).club == b
    single = client_of(lena).get(f"/tournaments/{event.pk}/").content.decode()
    assert "You play for Los Tranques." in single


def test_the_club_parts_in_spanish(people: dict[str, Any], organizer: Any) -> None:
    from django.conf import settings

    lena, marta, nico = people["Lena"], people["Marta"], people["Nico"]
    club = club_of(lena, "Los Tranques", marta)
    event = services.tournament_create(organizer=lena, club=club, **event_settings())
    services.tournament_publish(tournament_id=event.pk, by=lena)
    other = club_of(nico, "Las Fichas")
    fight = battle(organizer, [club, other])
    reader = client_of(people["Pia"])
    reader.cookies[settings.LANGUAGE_COOKIE_NAME] = "es"
    page = reader.get(f"/tournaments/{event.pk}/").content.decode()
    assert "Solo los miembros de" in page and "únete primero al club" in page
    assert "Quién puede jugar" in page
    page = reader.get(f"/tournaments/{fight.pk}/").content.decode()
    assert "Es una batalla entre clubes" in page
    leader = client_of(lena)
    leader.cookies[settings.LANGUAGE_COOKIE_NAME] = "es"
    page = leader.get(f"/clubs/{club.slug}/").content.decode()
    assert "Nuevo evento del club" in page and "Nueva serie del club" in page
    page = leader.get(f"/tournaments/{event.pk}/manage/").content.decode()
    assert "Mensaje para todos los del evento" in page


def test_an_edit_without_the_battle_fields_keeps_the_battle(
    people: dict[str, Any], organizer: Any
) -> None:
    """A co-organizer (not in the organizers' group) edits a battle: the form has no battle
    fields for them, and the battle's clubs stay as they were."""
    a = club_of(people["Lena"], "Los Tranques")
    b = club_of(people["Nico"], "Las Fichas")
    data = event_settings(format="arena", arena_minutes=30, max_entrants=100)
    event = services.tournament_create(
        organizer=organizer, battle_clubs=[a, b], battle_top=2, **data
    )
    event.co_organizers.add(people["Pia"])
    services.tournament_update(
        tournament_id=event.pk, by=people["Pia"], **{**data, "name": "Renamed Battle"}
    )
    event.refresh_from_db()
    assert event.name == "Renamed Battle" and event.battle_top == 2
    assert set(event.battle_clubs.all()) == {a, b}
    edit = client_of(people["Pia"]).get(f"/tournaments/{event.pk}/edit/").content.decode()
    assert "battle_clubs" not in edit
