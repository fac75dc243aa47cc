"""Quick pairing: the "Play now" grid and its pools.

Owns the players waiting in a pool (`PoolEntry`) and the tables it makes for them (`Match`). A
player chooses a cell of the grid (a mode, a shape and a stake); the pool pairs players by rating,
widening the range the longer they wait, and seats each group at a new table through
`tables.services` (the only writer of tables), where every player confirms with the table's own
"Ready". Ratings come from `ratings` (read only). Nothing below this app knows it exists: tables,
ledger and ratings are called, never called back.
"""
