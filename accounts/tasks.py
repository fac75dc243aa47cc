"""Celery tasks for accounts: thin wrappers around services."""

from celery import shared_task

from accounts.services import age_gate_sweep


@shared_task(name="accounts.tasks.age_gate_check")
def age_gate_check() -> list[int]:
    """The daily age-gate job: suspends accounts that fail the re-check; returns their ids."""
    return age_gate_sweep()


@shared_task(name="accounts.tasks.closed_emails_forget")
def closed_emails_forget() -> int:
    """Daily: forget closed accounts' e-mail hashes whose waiting time is over."""
    from accounts.services import closed_emails_forget as forget

    return forget()
