from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class PairingConfig(AppConfig):
    name = "pairing"
    verbose_name = _("Quick pairing")

    def ready(self) -> None:
        # A pool's table: its seats belong to the matched players until the Ready time runs out
        # (tables.services asks every guard).
        from pairing.services import seat_guard
        from tables import services as tables

        if seat_guard not in tables.SEAT_GUARDS:
            tables.SEAT_GUARDS.append(seat_guard)
