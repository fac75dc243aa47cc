"""`make run DEMO=1`: demo players and a staff account on a new database, a practice table for
Alice against house players, and how to log in."""

from __future__ import annotations

import datetime as dt
from typing import Any

from django.contrib.auth.models import Group
from django.core.management.base import BaseCommand

from accounts.models import AgeStatus, User
from house.services import practice_start
from tables.models import Table

DEMO_PASSWORD = "play-dominoes-1"
STAFF_PASSWORD = "run-the-house-1"
PLAYERS = [
    ("alice@example.com", "Alice", dt.date(1990, 4, 25)),
    ("bob@example.com", "Bob", dt.date(1985, 11, 2)),
    ("carol@example.com", "Carol", dt.date(1978, 2, 28)),
    ("dave@example.com", "Dave", dt.date(2000, 2, 29)),
]
STAFF = ("staff@example.com", "Warden", dt.date(1970, 1, 1))


class Command(BaseCommand):
    help = "Create demo players and a staff account on a new database, and say how to log in."

    def handle(self, *args: Any, **options: Any) -> None:
        if User.objects.exists():
            self.stdout.write(
                "The database already has accounts; demo accounts are left as they are."
            )
        else:
            for email, name, born in PLAYERS:
                User.objects.create_user(
                    email, DEMO_PASSWORD, display_name=name, date_of_birth=born
                )
            email, name, born = STAFF
            staff = User.objects.create_superuser(
                email,
                STAFF_PASSWORD,
                display_name=name,
                date_of_birth=born,
                age_status=AgeStatus.VERIFIED,
            )
            staff.groups.add(Group.objects.get(name="Tournament organizers"))
        lines = ["", "Demo log-ins:"]
        lines += [f"  player  {email}  /  {DEMO_PASSWORD}" for email, _, _ in PLAYERS]
        lines.append(f"  staff   {STAFF[0]}  /  {STAFF_PASSWORD}   (admin at /admin/)")
        table = self._practice_table()
        if table is not None:
            lines.append(
                f"  practice: log in as Alice and open {table.get_absolute_url()} "
                "(Citizen, one on one against a Regular house player)"
            )
        self.stdout.write("\n".join(lines) + "\n")

    def _practice_table(self) -> Table | None:
        """Alice's practice table against a house player, started and ready to play (made once;
        a finished one is made again)."""
        alice = User.objects.filter(email=PLAYERS[0][0]).first()
        if alice is None:
            return None
        live = (
            Table.objects.filter(host=alice, private=True, status=Table.Status.PLAYING)
            .filter(seats__user__house_level__gt="")
            .distinct()
            .first()
        )
        if live is not None:
            return live
        return practice_start(user=alice, mode="citizen", level="regular", players=2)
