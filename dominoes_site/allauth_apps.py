"""allauth's account app under a label of its own (INSTALLED_APPS names this class)."""

from allauth.account.apps import AccountConfig
from django.utils.translation import gettext_lazy as _


class AllauthAccountConfig(AccountConfig):
    """allauth's account app (its e-mail addresses in admin): it and ours were both "Accounts",
    two sections of one name on the admin index."""

    verbose_name = _("E-mail addresses")
