"""Archive every finished game that has no player records yet (after a deploy, say)."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand

from history.services import games_archive_pending


class Command(BaseCommand):
    help = "Archive finished games that have no player records yet (profiles count from them)."

    def handle(self, *args: Any, **options: Any) -> None:
        total = 0
        while True:
            done = games_archive_pending(limit=200)
            total += done
            if done == 0:
                break
        self.stdout.write(f"archived {total} games")
