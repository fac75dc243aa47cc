from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class LedgerConfig(AppConfig):
    name = "ledger"
    verbose_name = _("Ledger")

    def ready(self) -> None:
        from ledger import (
            keeper,
            receivers,
            signals,  # noqa: F401  (connects the sign-up grant)
        )

        receivers.subscribe()  # tables.events: settle a finished game, refund one called off
        keeper.register()  # tables.stakes: the ledger keeps the tables' stakes
