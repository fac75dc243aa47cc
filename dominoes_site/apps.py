from django.apps import AppConfig


class DominoesSiteConfig(AppConfig):
    name = "dominoes_site"
    verbose_name = "Dominologist"

    def ready(self) -> None:
        from django.conf import settings
        from django.contrib import admin

        admin.site.site_header = settings.ADMIN_SITE_HEADER
        admin.site.site_title = "Dominologist"
        admin.site.index_title = "Running the house"
