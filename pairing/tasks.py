"""Celery tasks for quick pairing: thin wrappers around pairing.services."""

from celery import shared_task

from pairing import services


@shared_task(name="pairing.tasks.pairing_sweep", ignore_result=True)
def pairing_sweep() -> int:
    """Beat's pairing step (every second): tables waiting for their players, then every pool."""
    return services.pairing_sweep()
