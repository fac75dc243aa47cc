from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class ApiConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "api"
    verbose_name = _("API access")

    def ready(self) -> None:
        # Rated tables seat a bot and a person together only with the person's consent.
        from api.bots import seat_guard
        from tables import services as tables

        if seat_guard not in tables.SEAT_GUARDS:
            tables.SEAT_GUARDS.append(seat_guard)
