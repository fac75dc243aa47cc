from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class RatingsConfig(AppConfig):
    name = "ratings"
    verbose_name = _("Ratings")

    def ready(self) -> None:
        from ratings import receivers, selectors
        from tables.selectors import PICTURE_PARTS

        receivers.subscribe()  # tables.events.game_finished
        if selectors.table_picture_part not in PICTURE_PARTS:
            PICTURE_PARTS.append(selectors.table_picture_part)  # ratings on the table page
