from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class GymConfig(AppConfig):
    name = "gym"
    verbose_name = _("Gym")
