"""Celery tasks of the coach: thin wrappers around coach.services."""

from celery import shared_task

from coach import services


@shared_task(name="coach.tasks.review_run", ignore_result=True)
def review_run(review_id: int) -> bool:
    """Work out a queued review (nothing if another worker has it, or it is done)."""
    return services.review_compute(review_id=review_id)
