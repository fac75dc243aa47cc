"""The Watch page: live games anyone may watch, the best-rated first; Play now, challenge and
tournament tables may be watched unless a player said no (then they are not listed and their
private tables refuse watchers as any private table does); watchers never see a hand."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from django.conf import settings
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from house import services as house
from pairing.models import Match
from social import services as social
from social.models import Challenge
from tables.models import Table
from tests.history.helpers import start_table
from tests.ratings.helpers import set_rating
from tests.tables.helpers import assert_sees_only_its_own, connect


def play_now_table(players: list[Any]) -> Table:
    table = start_table(players, "fives", private=True)
    Match.objects.create(table=table, cell="fives:1v1:0", confirm_by=timezone.now())
    return table


def challenge_table(players: list[Any]) -> Table:
    table = start_table(players, "fives", private=True)
    now = timezone.now()
    Challenge.objects.create(
        challenger=players[0],
        challenged=players[1],
        mode="fives",
        status="accepted",
        created_at=now,
        expires_at=now + timedelta(minutes=5),
        table=table,
    )
    return table


def listed(client: Client) -> list[int]:
    html = client.get(reverse("social:watch")).content.decode()
    return [int(part.split('"')[0]) for part in html.split('data-table="')[1:]]


@pytest.mark.django_db
def test_the_watch_page_lists_live_games_best_rated_first(client: Client, make_user: Any) -> None:
    a, b, c, d, e, f, g, h, viewer = (make_user(n) for n in "ABCDEFGHV")
    public = start_table([a, b], "fives")
    play_now = play_now_table([c, d])
    challenge = challenge_table([e, f])
    own_private = start_table([g, h], "fives", private=True)  # a host's own: never listed
    practice = house.practice_start(user=viewer, mode="citizen", level="rookie", players=2)
    waiting = Table.objects.create(mode="fives", settings=public.settings, host=a)  # not played
    set_rating(e, "fives", 1900, 60)
    set_rating(c, "fives", 1700, 60)
    client.force_login(viewer)
    shown = listed(client)
    assert shown[:2] == [challenge.pk, play_now.pk]  # the best-rated first
    assert public.pk in shown
    for table in (own_private, practice, waiting):
        assert table.pk not in shown
    # Lobby: no longer "No games in play" with nothing to watch: it points to the Watch page.
    lobby = client.get(reverse("tables:lobby")).content.decode()
    assert reverse("social:watch") in lobby


@pytest.mark.django_db
def test_a_player_who_says_no_is_not_listed_and_their_private_table_not_watched(
    client: Client, make_user: Any
) -> None:
    c, d, viewer = make_user("C"), make_user("D"), make_user("V")
    play_now = play_now_table([c, d])
    public = start_table([c, make_user("E")], "threes")
    client.force_login(viewer)
    assert client.get(play_now.get_absolute_url()).status_code == 200  # may be watched
    client.force_login(c)
    response = client.post(reverse("social:preference"), {"challenges_from": "everyone"})
    assert response.status_code == 302  # the box left unticked: no
    assert social.games_watchable(c) is False
    client.force_login(viewer)
    assert listed(client) == []
    assert client.get(play_now.get_absolute_url()).status_code == 404
    assert client.get(public.get_absolute_url()).status_code == 200  # a public table stays so
    client.force_login(c)
    html = client.get(reverse("social:preference")).content.decode()
    assert (
        'name="games_watchable"' in html and "checked" not in html.split("games_watchable")[1][:80]
    )


@pytest.mark.django_db
def test_the_preference_is_on_by_default(client: Client, alice: Any) -> None:
    client.force_login(alice)
    html = client.get(reverse("social:preference")).content.decode()
    box = html[
        html.index('name="games_watchable"') - 120 : html.index('name="games_watchable"') + 120
    ]
    assert "checked" in box and 'aria-describedby="watchable-help"' in box


@pytest.mark.django_db(transaction=True)
async def test_the_socket_lets_watchers_into_a_play_now_table_with_no_hand(
    make_user: Any,
) -> None:
    c, d, viewer = [await sync_to_async(make_user)(n) for n in "CDV"]
    table = await sync_to_async(play_now_table)([c, d])
    socket = await connect(viewer, table.pk)
    await socket.send_json_to({"type": "hello", "last_seq": None})
    while True:
        reply = await socket.receive_json_from(timeout=10)
        if reply["type"] == "snapshot":
            break
    assert_sees_only_its_own(reply, None)
    await socket.disconnect()
    await sync_to_async(social.games_watchable_set)(user=d, value=False)
    from channels.testing import WebsocketCommunicator

    from dominoes_site.asgi import application

    client = Client()
    await client.aforce_login(viewer)
    cookie = f"{settings.SESSION_COOKIE_NAME}={client.cookies[settings.SESSION_COOKIE_NAME].value}"
    refused = WebsocketCommunicator(
        application,
        f"/ws/tables/{table.pk}/",
        headers=[(b"cookie", cookie.encode()), (b"origin", b"http://localhost")],
    )
    connected, _ = await refused.connect()
    if connected:
        closed = await refused.receive_output(timeout=5)
        assert closed["code"] == 4004


@pytest.mark.django_db
def test_players_online_show_a_rating_and_playing_now(client: Client, make_user: Any) -> None:
    from social.presence import mark_online

    c, d, e, viewer = make_user("C"), make_user("D"), make_user("E"), make_user("V")
    table = play_now_table([c, d])
    set_rating(c, "fives", 1712, 60)
    for user in (c, d, e):
        mark_online(user.pk)
    client.force_login(viewer)
    html = client.get(reverse("social:online")).content.decode()
    row_c = html[html.index(f'href="/players/{c.pk}/"') :].split("</li>", 1)[0]
    assert "1712" in row_c and "Fives" in row_c
    assert f'href="{table.get_absolute_url()}"' in row_c and "Playing now: watch" in row_c
    row_e = html[html.index(f'href="/players/{e.pk}/"') :].split("</li>", 1)[0]
    assert "Playing now" not in row_e and "rating-chip" not in row_e
