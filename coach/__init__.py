"""The coach: a move-by-move review of a player's own game by the Shark, and hints at practice
tables.

It owns `Review` (one per game and player: queued, running, done or failed, its progress, and
the stored result) and `Hint` (each hint given at a practice table, so a review can mark the
moves that were hinted). The analysis itself is the engine's (`engine.coach.analyse`), fed one
seat's view at a time, rebuilt from the game's log (`coach.services.seat_decisions`): the review
of a seat never sees a bone that seat could not see.

It sits on top of tables, history and house, and they never know about it: the game page and
the table page show the coach through its template tags and its script.
"""
