"""Celery tasks for tournaments: the beat sweep, a thin wrapper around the service."""

from celery import shared_task

from tournaments import series, services


@shared_task(name="tournaments.tasks.sweep", ignore_result=True)
def sweep() -> int:
    """The beat job every few seconds: every step of every live event that is due."""
    return services.tournament_sweep()


@shared_task(name="tournaments.tasks.series_sweep", ignore_result=True)
def series_sweep() -> int:
    """The beat job every minute: each running series' events that are due, made once."""
    return series.series_sweep()
