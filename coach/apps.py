from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class CoachConfig(AppConfig):
    name = "coach"
    verbose_name = _("Coach")
