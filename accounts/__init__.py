"""Accounts: the custom user, sign-up with the 18+ gate, profiles and the age-gate job."""
