"""Tournaments: events, entries, rounds and matches, run by Celery sweeps."""
