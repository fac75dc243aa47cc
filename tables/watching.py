"""Which private tables anyone may watch. A private table is watched, as ever, with its invite
code; besides, another app may say a private table is open to watchers (the social app: a
Play now, challenge or tournament table whose players all let others watch their games). The
hooks are registered from that app's AppConfig.ready(), so tables imports none of them. A
watcher gets what any watcher gets: the public events, never a hand."""

from __future__ import annotations

from collections.abc import Callable

from tables.models import Table

#: Each says whether anyone may watch this private table.
PRIVATE_WATCHABLE: list[Callable[[Table], bool]] = []


def private_watchable(table: Table) -> bool:
    return any(hook(table) for hook in PRIVATE_WATCHABLE)
