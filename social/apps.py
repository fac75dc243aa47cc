from django.apps import AppConfig


class SocialConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "social"
    verbose_name = "Friends and challenges"

    def ready(self) -> None:
        from social import watching
        from tables import watching as table_watching

        table_watching.PRIVATE_WATCHABLE.append(watching.private_watchable)
