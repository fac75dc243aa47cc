"""A reference bot for Dominologist, written against the public API alone (docs/api.md), with
httpx. It plays whole games: against a house player at a practice table, or against anyone who
challenges it (another bot, or a human who lets bots challenge them).

    python dominologist_bot.py --server https://dominologist.example --token dom_... practice
    python dominologist_bot.py --server ... --token ... challenge 42     # challenge player 42
    python dominologist_bot.py --server ... --token ... serve            # accept, and play

The token needs the scopes `read` and `play` (and `challenge` to send or accept challenges).
The bot's choice of move is simple on purpose (the bone that scores most now, then the heaviest
bone): the point is the protocol, which a stronger bot uses the same way.

How it plays one game: it opens the seat's game stream (`GET /api/tables/{id}/stream`), keeps
the last game view it was sent, and when the view says it is to act (`legal_actions` not
empty) it posts one of them with the view's `version` (`POST /api/tables/{id}/move`). A move
refused as `stale` is simply dropped: the stream brings the new state. When the stream ends
with `reconnect`, or the connection drops, it opens the stream again with `since` (the last
`seq` it saw) and carries on from there. It says it has read each hand's summary at once (so a
Gym table's next clock need not wait), and stops when the game is over.
"""

from __future__ import annotations

import argparse
import json
import logging
import random
import sys
import time
from collections.abc import Iterator
from typing import Any

import httpx

log = logging.getLogger("dominologist_bot")

#: Read timeout on a stream: the server sends an empty line every 15 s, so this many seconds
#: of silence means the connection is gone.
STREAM_SILENCE = 50.0


class ApiError(Exception):
    def __init__(self, status: int, problem: dict[str, Any]) -> None:
        super().__init__(f"{status} {problem.get('code')}: {problem.get('message')}")
        self.status = status
        self.code = str(problem.get("code", ""))
        self.problem = problem


class Client:
    """The public API, as docs/api.md describes it: a bearer token, JSON in and out, NDJSON
    streams, rate limits told in headers (a 429 is waited out, as Retry-After says)."""

    def __init__(self, server: str, token: str, *, transport: Any = None) -> None:
        self.http = httpx.Client(
            base_url=server.rstrip("/"),
            headers={"Authorization": f"Bearer {token}", "Accept": "application/json"},
            timeout=httpx.Timeout(30.0, read=STREAM_SILENCE),
            transport=transport,
        )

    def call(self, method: str, path: str, body: dict[str, Any] | None = None) -> Any:
        for _ in range(5):
            response = self.http.request(method, path, json=body)
            if response.status_code == 429:
                time.sleep(float(response.headers.get("Retry-After", "1")))
                continue
            if response.status_code >= 400:
                raise ApiError(response.status_code, _problem(response))
            return response.json()
        raise ApiError(429, {"code": "rate_limited", "message": "still limited"})

    def lines(self, path: str, params: dict[str, Any] | None = None) -> Iterator[dict[str, Any]]:
        """A stream's lines (keepalive lines skipped), until the server ends it."""
        with self.http.stream("GET", path, params=params) as response:
            if response.status_code >= 400:
                response.read()
                raise ApiError(response.status_code, _problem(response))
            for raw in response.iter_lines():
                if raw.strip():
                    yield json.loads(raw)

    def close(self) -> None:
        self.http.close()


def _problem(response: httpx.Response) -> dict[str, Any]:
    try:
        found = response.json()
    except ValueError:
        return {"code": "http_error", "message": response.text[:200]}
    return found if isinstance(found, dict) else {"code": "http_error", "message": str(found)}


# --- choosing a move ----------------------------------------------------------------------------


def pips(bone: str) -> int:
    a, b = bone.split("-")
    return int(a) + int(b)


def choose(view: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """One of the view's legal actions: a play over a draw or a pass; among plays, the
    heaviest bone (fewest pips left in hand if the hand ends blocked); ties at random."""
    actions = [dict(a) for a in view["legal_actions"]]
    plays = [a for a in actions if a.get("type") == "play"]
    if plays:
        best = max(pips(str(a["bone"])) for a in plays)
        actions = [a for a in plays if pips(str(a["bone"])) == best]
    action = rng.choice(actions)
    action.pop("seat", None)
    return action


# --- playing one game -----------------------------------------------------------------------------


def play_table(client: Client, table_id: int, *, seed: int = 0) -> dict[str, Any] | None:
    """Play the game at `table_id` to its end from this account's seat. Returns the game-over
    event (None if the table closed without one)."""
    rng = random.Random(seed)
    since: int | None = None
    moved_for = -1  # the game version last moved for (a move is sent once per version)
    seen_summary: set[int] = set()
    ready_sent = False
    while True:
        try:
            params = {"since": since} if since is not None else None
            for message in client.lines(f"/api/tables/{table_id}/stream", params):
                kind = message["type"]
                if kind == "reconnect":
                    break  # the server restarts: open the stream again at once
                if kind == "end":
                    log.info("table %s: the stream ended: %s", table_id, message.get("code"))
                    return None
                since = int(message.get("seq", since or 0))
                view = message.get("game")
                for event in _events(message):
                    if event.get("type") == "game_over":
                        return event
                    if event.get("type") == "hand_over" and view and view.get("deal"):
                        # the summary is "read" at once: the next hand's clock need not wait
                        hand = int(view["deal"])
                        if hand not in seen_summary:
                            seen_summary.add(hand)
                            _quietly(client, f"/api/tables/{table_id}/summary-seen", {"hand": hand})
                table = message.get("table")
                if table and table.get("status") == "open" and not ready_sent:
                    me = table.get("you", {}).get("seat")
                    if me is not None:
                        ready_sent = True
                        _quietly(client, f"/api/tables/{table_id}/ready", {"ready": True})
                if not view or not view.get("legal_actions"):
                    continue
                version = int(view["version"])
                if version <= moved_for:
                    continue
                moved_for = version
                action = choose(view, rng)
                try:
                    client.call(
                        "POST",
                        f"/api/tables/{table_id}/move",
                        {"version": version, "action": action, "request_id": f"v{version}"},
                    )
                except ApiError as exc:
                    if exc.code not in ("stale", "not_your_turn"):
                        raise
                    log.info("table %s: move for version %d refused: %s", table_id, version, exc)
            else:
                return None  # the server closed the stream without a word: the game is gone
        except (httpx.TransportError, httpx.RemoteProtocolError) as exc:
            log.warning("table %s: the stream dropped (%s): reconnecting", table_id, exc)
            time.sleep(1.0)


def _events(message: dict[str, Any]) -> Iterator[dict[str, Any]]:
    events = message.get("events") or []
    for item in events:
        if isinstance(item, dict) and "events" in item:  # a resume's batches
            yield from item["events"]
        elif isinstance(item, dict):
            yield item


def _quietly(client: Client, path: str, body: dict[str, Any]) -> None:
    try:
        client.call("POST", path, body)
    except ApiError as exc:
        log.info("%s refused: %s", path, exc)


# --- the commands ---------------------------------------------------------------------------------


def practice(client: Client, mode: str, level: str) -> dict[str, Any] | None:
    body: dict[str, Any] = {"mode": mode, "level": level}
    table = client.call("POST", "/api/tables/practice", body)
    log.info("practice table %s against the house (%s)", table["table"], level)
    return play_table(client, int(table["table"]))


def serve(client: Client, games: int) -> int:
    """Accept every challenge and play every game, until `games` games are over."""
    played = 0
    playing: set[int] = set()
    for message in client.lines("/api/stream/events"):
        if message["type"] == "state":
            for game in message.get("playing", []):
                if game["table"] not in playing:
                    playing.add(game["table"])
                    played += play_table(client, int(game["table"])) is not None
            for challenge in message.get("challenges", []):
                if not challenge["sent"] and challenge["pending"]:  # waiting for this bot
                    table = _accept(client, int(challenge["id"]))
                    if table is not None and table not in playing:
                        playing.add(table)
                        played += play_table(client, table) is not None
        elif message["type"] == "notice" and message.get("kind") == "challenge":
            table = _accept(client, int(message["challenge"]))
            if table is not None and table not in playing:
                playing.add(table)
                played += play_table(client, table) is not None
        elif message["type"] in ("reconnect", "end"):
            break
        if played >= games:
            break
    return played


def _accept(client: Client, challenge_id: int) -> int | None:
    try:
        answer = client.call("POST", f"/api/challenges/{challenge_id}/accept")
    except ApiError as exc:
        log.info("challenge %s not accepted: %s", challenge_id, exc)
        return None
    return int(answer["table"])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--server", required=True)
    parser.add_argument("--token", required=True)
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("practice", help="play one game against a house player")
    p.add_argument("--mode", default="fives")
    p.add_argument("--level", default="regular")
    s = sub.add_parser("serve", help="accept challenges and play")
    s.add_argument("--games", type=int, default=1)
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
    client = Client(args.server, args.token)
    try:
        if args.command == "practice":
            over = practice(client, args.mode, args.level)
            print(json.dumps(over))
            return 0 if over else 1
        print(serve(client, args.games))
        return 0
    finally:
        client.close()


if __name__ == "__main__":
    sys.exit(main())
