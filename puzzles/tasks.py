"""Celery tasks of the puzzle miner: thin wrappers around puzzles.services."""

from celery import current_app, shared_task

from puzzles import services

#: Games handed over per sweep (each is one task: a second or two of a worker's time).
SWEEP_GAMES = 20


@shared_task(name="puzzles.tasks.mine_game", ignore_result=True)
def mine_game(game_id: int, done: int | None = None) -> bool:
    """Mine a game for about a second, then queue the rest as a new task (as the review does);
    run inline (eager tasks), it works through to the end."""
    while True:
        more = services.mine_game(game_id, done)
        if more is None:
            return True
        if not current_app.conf.task_always_eager:
            mine_game.apply_async((game_id, more))
            return True
        done = more


@shared_task(name="puzzles.tasks.mine_sweep", ignore_result=True)
def mine_sweep() -> int:
    """Hand the oldest finished games not yet mined to the workers, one task each."""
    games = services.games_to_mine(SWEEP_GAMES)
    for game_id in games:
        mine_game.delay(game_id)
    return len(games)
