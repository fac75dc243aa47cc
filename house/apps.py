from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class HouseConfig(AppConfig):
    name = "house"
    verbose_name = _("House players")

    def ready(self) -> None:
        from house import (
            receivers,  # noqa: F401  (connects the turn listener)
            socket,
        )
        from house.forms import PracticeForm
        from tables.views import LOBBY_FORMS

        socket.register()  # house_sit, house_remove on the table socket
        if PracticeForm.for_lobby not in LOBBY_FORMS:
            LOBBY_FORMS.append(PracticeForm.for_lobby)  # the lobby's Practice form
