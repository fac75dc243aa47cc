"""A deal's picture: the kept one with the next hand's commitment, exactly what reading the
table afresh gives, unless an event this process did not send came in between."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from engine import GameState
from tables import broadcast, presence, selectors, services
from tables.models import Game, Table
from tests.tables.test_table_socket import started_table

pytestmark = pytest.mark.django_db(transaction=True)


def play_until_a_deal(
    table: Table, alice: Any, bob: Any, sent: list[list[tuple[str, dict[str, Any]]]]
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Play moves until one deals the next hand: the picture it sent, and its queries."""
    for _ in range(500):
        game = Game.objects.get(table=table)
        assert game.status == Game.Status.PLAYING
        state = GameState.from_json(game.state)
        action = state.legal_actions()[0].to_dict()
        action.pop("seat")
        sent.clear()
        with CaptureQueriesContext(connection) as queries:
            services.game_act(
                table_id=table.pk,
                user=[alice, bob][state.to_act],
                version=game.version,
                action=action,
            )
        after = GameState.from_json(Game.objects.get(pk=game.pk).state)
        if after.deal_number != state.deal_number:
            (batch,) = sent
            pictures = [m["table"] for _group, m in batch if m.get("table") is not None]
            assert pictures and all(p == pictures[0] for p in pictures)
            return pictures[0], list(queries)
    raise AssertionError("no deal in 500 moves")


def picture_reads(queries: list[dict[str, Any]]) -> list[str]:
    return [q["sql"] for q in queries if "tables_seat" in q["sql"] or "tables_presence" in q["sql"]]


@pytest.fixture
def sent(monkeypatch: pytest.MonkeyPatch) -> list[list[tuple[str, dict[str, Any]]]]:
    batches: list[list[tuple[str, dict[str, Any]]]] = []
    monkeypatch.setattr(broadcast, "group_send_many", lambda outgoing: batches.append(outgoing))
    return batches


def test_a_deal_sends_the_kept_picture_with_its_new_commitment(
    alice: Any, bob: Any, sent: list[list[tuple[str, dict[str, Any]]]]
) -> None:
    table = started_table(alice, bob)
    for _ in range(2):
        picture, queries = play_until_a_deal(table, alice, bob, sent)
        assert picture_reads(queries) == []  # nothing of the table read again
        fresh_table = Table.objects.get(pk=table.pk)
        fresh = selectors.table_picture(fresh_table, selectors.live_game(fresh_table))
        assert picture == fresh  # the next hand's commitment included
        assert (
            picture["commitment"]["hand"]
            == GameState.from_json(Game.objects.get(table=table).state).deal_number + 1
        )


def test_an_event_sent_elsewhere_makes_the_deal_read_the_table_again(
    alice: Any, bob: Any, sent: list[list[tuple[str, dict[str, Any]]]], monkeypatch: Any
) -> None:
    table = started_table(alice, bob)
    # A seat's presence changes, and another process sends that event (not this one).
    with monkeypatch.context() as elsewhere:
        elsewhere.setattr(broadcast, "table_changed", lambda *args, **kwargs: None)
        services._record(
            Table.objects.get(pk=table.pk), public=[{"type": "online", "seat": 1, "online": True}]
        )
    picture, queries = play_until_a_deal(table, alice, bob, sent)
    assert picture_reads(queries) != []
    fresh_table = Table.objects.get(pk=table.pk)
    assert picture == selectors.table_picture(fresh_table, selectors.live_game(fresh_table))


def test_the_answer_to_hello_draws_a_tables_picture_once_per_event_number(
    alice: Any, bob: Any
) -> None:
    """Sockets that arrive together at a table (its players and watchers, moved by a drain or a
    lost server) share the picture at its event number: the second reads none of it again,
    and the next event draws it anew, the same as reading the table afresh."""
    table = Table.objects.get(pk=started_table(alice, bob).pk)
    broadcast.forget_pictures()
    game = selectors.live_game(table)
    with CaptureQueriesContext(connection) as first:
        drawn = broadcast.picture_at(table, game)
    with CaptureQueriesContext(connection) as second:
        again = broadcast.picture_at(table, game)
    assert again is drawn and len(first) > 0 and len(second) == 0
    assert drawn == selectors.table_picture(table, game)

    # Bob's page opens: he is online, an event (seq + 1) that changes the picture.
    presence.presence_join(table_id=table.pk, user=bob, channel_name="bob-page")
    table.refresh_from_db()
    game = selectors.live_game(table)
    fresh = broadcast.picture_at(table, game)
    assert fresh is not drawn and fresh != drawn
    assert fresh == selectors.table_picture(table, game)
    assert fresh["seats"][1]["online"] and not drawn["seats"][1]["online"]
