from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class LedgerConfig(AppConfig):
    name = "ledger"
    verbose_name = _("Ledger")

    def ready(self) -> None:
        from ledger import signals  # noqa: F401  (connects the sign-up grant)
