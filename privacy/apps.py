from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class PrivacyConfig(AppConfig):
    """Your own data: the download of everything the house holds about a player, and closing
    an account (docs/privacy.md). It sits above every other app: it reads and acts through each
    app's own services."""

    name = "privacy"
    verbose_name = _("Your own data")
