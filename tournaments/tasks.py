"""Celery tasks for tournaments: the beat sweep, a thin wrapper around the service."""

from celery import shared_task

from tournaments import services


@shared_task(name="tournaments.tasks.sweep", ignore_result=True)
def sweep() -> int:
    """The beat job every few seconds: every step of every live event that is due."""
    return services.tournament_sweep()
