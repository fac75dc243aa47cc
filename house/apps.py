from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class HouseConfig(AppConfig):
    name = "house"
    verbose_name = _("House players")

    def ready(self) -> None:
        from house import receivers  # noqa: F401  (connects the turn listener)
