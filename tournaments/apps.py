from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class TournamentsConfig(AppConfig):
    name = "tournaments"
    verbose_name = _("Tournaments")

    def ready(self) -> None:
        # A match's table: its seats are the tournament's (tables.services asks every guard).
        from tables import services as tables
        from tournaments.services import seat_guard

        if seat_guard not in tables.SEAT_GUARDS:
            tables.SEAT_GUARDS.append(seat_guard)
