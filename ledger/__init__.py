"""The ledger: Dominologist Dollars, money on the books, the Commissary (double entry)."""
