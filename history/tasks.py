"""Celery tasks for game history: thin wrappers around services."""

from celery import shared_task

from history import services


@shared_task(name="history.tasks.archive_sweep", ignore_result=True)
def archive_sweep() -> int:
    """The beat job: archive any finished game that has no player records yet."""
    return services.games_archive_pending()
