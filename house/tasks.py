"""Celery tasks for house players: thin wrappers around house.services."""

from celery import shared_task

from house import services


@shared_task(name="house.tasks.house_act", ignore_result=True)
def house_act(game_id: int, version: int) -> bool:
    """The house player to act at this game version makes its move (nothing if the game moved
    on, is over, or a person is to act)."""
    return services.house_turn(game_id=game_id, version=version)


@shared_task(name="house.tasks.house_sweep", ignore_result=True)
def house_sweep() -> int:
    """Plays any house player's turn that has waited too long (a lost task); returns how many."""
    return services.house_sweep()


@shared_task(name="house.tasks.house_rematch", ignore_result=True)
def house_rematch(game_id: int) -> int:
    """The house players of a finished game want a rematch (nothing if the game is not over or
    another has started at its table); returns how many offered."""
    return services.house_rematch_accept(game_id=game_id)


@shared_task(name="house.tasks.practice_unopened_sweep", ignore_result=True)
def practice_unopened_sweep() -> int:
    """Calls off practice games whose player never came (house.services); returns how many."""
    return services.practice_unopened_sweep()
