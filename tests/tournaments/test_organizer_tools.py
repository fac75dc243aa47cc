"""An event's organizer tools: a message to everyone in it (a notice card each, shown on the
event's page, limited and checked), and the entrants-and-results and matches CSV files of a
played event, for its organizers only."""

from __future__ import annotations

import csv
import datetime as dt
import io
import random
from typing import Any

import pytest
from django.test import Client

from accounts.models import User
from tests.tournaments.conftest import make_event, play_round, register_and_check_in, start
from tournaments import organizer as tools
from tournaments import services
from tournaments.models import Tournament, TournamentMessage
from tournaments.services import TournamentError

pytestmark = pytest.mark.django_db


@pytest.fixture
def sent(monkeypatch: pytest.MonkeyPatch) -> list[tuple[int, str, dict[str, Any]]]:
    """The notices sent (user id, kind, data), as they leave after commit."""
    from social import notices

    out: list[tuple[int, str, dict[str, Any]]] = []

    def record(messages: list[tuple[str, dict[str, Any]]]) -> None:
        for group, message in messages:
            out.append((int(group.split(".")[1]), message["kind"], message["data"]))

    monkeypatch.setattr(notices, "group_send_many", record)
    return out


def client_of(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


def rows_of(response: Any) -> list[list[str]]:
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    assert "attachment" in response["Content-Disposition"]
    return list(csv.reader(io.StringIO(response.content.decode())))


def test_a_message_reaches_everyone_in_the_event_and_stays_on_its_page(
    organizer: Any,
    players: list[Any],
    sent: list[tuple[int, str, dict[str, Any]]],
    django_capture_on_commit_callbacks: Any,
) -> None:
    event = make_event(organizer)
    register_and_check_in(event, players[:3])
    services.entry_withdraw(tournament_id=event.pk, user=players[2])
    with django_capture_on_commit_callbacks(execute=True):
        response = client_of(organizer).post(
            f"/tournaments/{event.pk}/message/", {"text": "Round one starts late: 20:15."}
        )
    assert response.status_code == 302
    message = TournamentMessage.objects.get()
    assert message.recipients == 2
    told = sorted(user for user, kind, _data in sent if kind == "tournament_message")
    assert told == sorted(p.pk for p in players[:2])  # not the player who withdrew
    card_url = next(data["card_url"] for _u, kind, data in sent if kind == "tournament_message")
    card = client_of(players[0]).get(card_url)
    assert card.status_code == 200
    assert "Round one starts late: 20:15." in card.content.decode()
    assert f'data-notice="tournament-{event.pk}-message-{message.pk}"' in card.content.decode()
    assert client_of(players[3]).get(card_url).status_code == 404  # never in the event
    page = client_of(players[3]).get(f"/tournaments/{event.pk}/").content.decode()
    assert "From the organizers" in page and "Round one starts late: 20:15." in page
    manage = client_of(organizer).get(f"/tournaments/{event.pk}/manage/").content.decode()
    assert "to 2 players" in manage


def test_a_message_is_refused_in_words_and_nothing_is_sent(
    organizer: Any,
    players: list[Any],
    sent: list[tuple[int, str, dict[str, Any]]],
    django_capture_on_commit_callbacks: Any,
) -> None:
    event = make_event(organizer)
    with pytest.raises(TournamentError) as refused:
        tools.entrants_message(tournament_id=event.pk, by=organizer, text="Hello")
    assert refused.value.code == "no_entrants"
    register_and_check_in(event, players[:2])
    for text, code in (("   ", "no_text"), ("x" * 501, "too_long")):
        with pytest.raises(TournamentError) as refused:
            tools.entrants_message(tournament_id=event.pk, by=organizer, text=text)
        assert refused.value.code == code
    with pytest.raises(TournamentError) as refused:
        tools.entrants_message(tournament_id=event.pk, by=players[0], text="Hi all")
    assert refused.value.code == "not_organizer"
    now = event.registration_opens
    with django_capture_on_commit_callbacks(execute=True):
        for n in range(tools.MESSAGES_PER_HOUR):
            tools.entrants_message(tournament_id=event.pk, by=organizer, text=f"Note {n}", now=now)
    with pytest.raises(TournamentError) as refused:
        tools.entrants_message(tournament_id=event.pk, by=organizer, text="One more", now=now)
    assert refused.value.code == "too_many"
    assert TournamentMessage.objects.count() == tools.MESSAGES_PER_HOUR
    assert len(sent) == 2 * tools.MESSAGES_PER_HOUR
    # An hour later, the organizer may write again.
    later = now + dt.timedelta(hours=1, seconds=1)
    tools.entrants_message(tournament_id=event.pk, by=organizer, text="Again", now=later)
    # Through the page, a refusal is a message on the manage page, not an error.
    response = client_of(organizer).post(
        f"/tournaments/{event.pk}/message/", {"text": ""}, follow=True
    )
    assert response.status_code == 200
    assert "Write the message." in response.content.decode()
    player = client_of(players[0]).post(f"/tournaments/{event.pk}/message/", {"text": "Hi"})
    assert player.status_code == 404


def test_the_csv_files_of_a_played_event(organizer: Any, players: list[Any]) -> None:
    rng = random.Random(4)
    event = make_event(organizer, fee_kind="dollars", fee_dollars=10, mode="fives")
    # A display name that a spreadsheet would run as a formula is written as text.
    User.objects.filter(pk=players[3].pk).update(display_name="=HYPERLINK(1)")
    register_and_check_in(event, players[:4])
    event = start(event)
    play_round(event, rng, event.starts_at)
    play_round(event, rng, event.starts_at)
    event.refresh_from_db()
    assert event.status == Tournament.Status.FINISHED
    client = client_of(organizer)

    rows = rows_of(client.get(f"/tournaments/{event.pk}/export/entrants.csv"))
    header, body = rows[0], rows[1:]
    assert header[:3] == ["Place", "Entrant", "Player"]
    assert len(body) == 4
    column = {name: i for i, name in enumerate(header)}
    winner = event.matches.get(key="W2-1").winner
    assert body[0][column["Place"]] == "1"
    assert body[0][column["Entrant"]] == tools._cell(winner.name)
    assert body[0][column["Matches won"]] == "2"
    assert body[0][column["Prize"]] == "40 Dollars"  # winner takes the pool of four $10 fees
    assert sum(int(r[column["Matches played"]]) for r in body) == 6  # 3 matches, 2 sides
    assert "'=HYPERLINK(1)" in [r[column["Player"]] for r in body]
    assert all(r[column["Status"]] == "in" for r in body)

    rows = rows_of(client.get(f"/tournaments/{event.pk}/export/games.csv"))
    assert rows[0][:4] == ["Round", "Match", "Side A", "Side B"]
    assert [r[1] for r in rows[1:]] == ["W1-1", "W1-2", "W2-1"]
    assert rows[-1][7] == tools._cell(winner.name)

    # Only its organizers take them.
    for what in ("entrants", "games"):
        assert (
            client_of(players[0]).get(f"/tournaments/{event.pk}/export/{what}.csv").status_code
            == 404
        )
