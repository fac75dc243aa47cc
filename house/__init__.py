"""House players: bot accounts that sit at tables and play through the same services as people."""
