"""The house office: what staff do to tables from admin, and the record of it.

Staff void a game (staked or not, tournament or not) or close a stuck table, always with a
reason; each act is a `StaffAction` row naming who, when and why, written in the same
transaction as its effect. The effects are the other apps' own services: `tables.services`
aborts and broadcasts, the ledger refunds (once: its idempotency key), and a tournament replays a
voided game at a new table (its sweep, nudged at once here). This app sits above every other
app and owns no rule of the game, the money or the tournaments.
"""
