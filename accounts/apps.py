from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class AccountsConfig(AppConfig):
    name = "accounts"
    verbose_name = _("Accounts")

    def ready(self) -> None:
        from django.contrib import admin

        from accounts import signals  # noqa: F401  (an account's changes reach its sockets)
        from accounts.login_limits import AdminLoginForm

        # The admin's log-in is limited like the site's (accounts/login_limits.py).
        admin.site.login_form = AdminLoginForm
