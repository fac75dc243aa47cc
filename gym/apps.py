from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class GymConfig(AppConfig):
    name = "gym"
    verbose_name = _("Gym")

    def ready(self) -> None:
        from gym import receivers

        receivers.subscribe()  # tables.events.game_finished
