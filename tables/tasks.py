"""Celery tasks for tables: thin wrappers around services (the Gym clock)."""

import time

from celery import shared_task

from tables import services

#: A timer that fires this close before its due time waits in place rather than re-queueing.
EARLY_WAIT_SECONDS = 1.0


@shared_task(name="tables.tasks.clock_expire", ignore_result=True)
def clock_expire(game_id: int, version: int) -> bool:
    """A turn's timer: the player to act at `version` takes a dumbbell, if still due.

    It judges the clock as it stood the timer's slack ago (services.clock_timer_moment): a
    move that reached the server in time but is still being carried out wins the turn. A timer
    that fires a little early (the worker's clock is coarse) waits for the due time instead of
    leaving the dumbbell to the next sweep."""
    if services.clock_expire(game_id=game_id, version=version, now=services.clock_timer_moment()):
        return True
    wait = services.clock_due_in(game_id=game_id, version=version)
    if wait is None or clock_expire.request.is_eager:  # run inline: the sweep is the backstop
        return False
    if wait > EARLY_WAIT_SECONDS:
        clock_expire.apply_async((game_id, version), countdown=wait)
        return False
    time.sleep(wait)
    return services.clock_expire(
        game_id=game_id, version=version, now=services.clock_timer_moment()
    )


@shared_task(name="tables.tasks.clock_sweep", ignore_result=True)
def clock_sweep() -> int:
    """The beat job every second: dumbbells for games whose timer was lost (judged, as the
    timer judges, at the moment the slack ago)."""
    return services.clock_sweep(now=services.clock_timer_moment())


@shared_task(name="tables.tasks.grace_expire", ignore_result=True)
def grace_expire(table_id: int, seat: int, game_id: int) -> str:
    """A held seat's grace ran out: the table's rule for leavers applies."""
    from tables.presence import grace_expire as expire

    return expire(table_id=table_id, seat=seat, game_id=game_id)


@shared_task(name="tables.tasks.grace_sweep", ignore_result=True)
def grace_sweep() -> int:
    """The beat job every few seconds: stale sockets and seats whose grace timer was lost."""
    from tables.presence import grace_sweep as sweep

    return sweep()


@shared_task(name="tables.tasks.idle_tables_close", ignore_result=True)
def idle_tables_close() -> int:
    """The beat job every minute: open tables nobody has been at for a while are closed."""
    from tables.idle import idle_tables_close as close

    return close()
