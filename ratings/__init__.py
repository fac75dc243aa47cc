"""Ratings: Glicko-2 ratings of players, one per pool, and their history.

Owns: `Rating` (a player's current rating in a pool), `RatedGame` (one row per finished game
that was considered, rated or not, with why), `RatingChange` (each player's before and after
for a rated game) and `RatedPair` (the opposing pairs a rated game counted, for the farming
limit). Reacts to `tables.events.game_finished` (ratings/receivers.py) inside the game's final
transaction. Reads tables, accounts and engine; must never be imported by tables, gym, history
or ledger. Public reads: ratings.selectors; pools: ratings.pools.
"""
