"""The puzzle miner's tests share the coach's fixtures: eager tasks, and games the same on every
run (server seeds from a counter, washes from a seeded generator)."""

from tests.coach.conftest import eager, fixed_seeds

__all__ = ["eager", "fixed_seeds"]
