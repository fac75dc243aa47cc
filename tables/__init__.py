"""Live tables: tables, seats, games and their actions; the lobby and the table page."""
