"""Celery tasks of the coach: thin wrappers around coach.services."""

from celery import current_app, shared_task

from coach import services


@shared_task(name="coach.tasks.review_run", ignore_result=True)
def review_run(review_id: int, done: int | None = None) -> bool:
    """Work on a review for about a second (`COACH_CHUNK_SECONDS`), then queue the rest as a
    new task, so Gym clocks and house moves never wait long behind a review. Run inline (eager
    tasks), it works through to the end. Nothing if another worker has it or it is done."""
    while True:
        more = services.review_compute(review_id=review_id, done=done)
        if more is None:
            return True
        if not current_app.conf.task_always_eager:
            review_run.apply_async((review_id, more))
            return True
        done = more
