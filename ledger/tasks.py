"""Celery tasks for the ledger: thin wrappers around services."""

from celery import shared_task

from ledger.services import reconcile_run


@shared_task(name="ledger.tasks.reconcile_nightly")
def reconcile_nightly() -> int:
    """The nightly reconciliation: returns how many mismatches it listed for staff."""
    return reconcile_run().mismatch_count
