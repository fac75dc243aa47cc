"""The nightly reconciliation: it finds nothing on healthy books, and lists every kind of
mismatch when the books were tampered with behind the service's back."""

from __future__ import annotations

from typing import Any

import pytest
from django.conf import settings
from django.db import connection

from ledger import services, tasks
from ledger.models import Account, Kind, Mismatch, Posting, Reason
from ledger.services import DOLLARS, StakeSpec
from tables.models import Game
from tests.ledger.helpers import finish, staked_game


def test_the_reconciliation_runs_every_night() -> None:
    job = settings.CELERY_BEAT_SCHEDULE["ledger-reconcile-nightly"]
    assert job["task"] == "ledger.tasks.reconcile_nightly"
    assert tasks.reconcile_nightly.name == job["task"]


@pytest.mark.django_db
def test_healthy_books_have_no_mismatch(four: list[Any]) -> None:
    staked = staked_game(four[:2], stake=StakeSpec(dollars=10))
    finish(staked.game, winner=0, skunked=[1])
    services.game_settle(game_id=staked.game.pk)
    assert tasks.reconcile_nightly() == 0
    run = services.reconcile_run()
    assert run.mismatch_count == 0 and run.finished_at is not None
    assert run.accounts_checked == Account.objects.count()
    assert run.postings_checked == Posting.objects.count()


def _raw(sql: str, params: list[Any]) -> None:
    """Tamper with the books the way only a bug or a hand in the database could."""
    with connection.cursor() as cursor:
        if connection.vendor == "sqlite":
            cursor.execute("DROP TRIGGER IF EXISTS ledger_entry_no_update")
        else:
            # Triggers off for this (rolled back) transaction only.
            cursor.execute("SET LOCAL session_replication_role = replica")
        cursor.execute(sql, params)


@pytest.mark.django_db
def test_every_kind_of_mismatch_is_listed_for_staff(alice: Any, bob: Any) -> None:
    account = services.player_account(alice.pk, DOLLARS)
    _raw("UPDATE ledger_account SET balance = balance + 7 WHERE id = %s", [account.pk])
    entry = account.entries.get()
    _raw("UPDATE ledger_entry SET amount = amount + 1 WHERE id = %s", [entry.pk])
    books = services.player_account(bob.pk, services.BOOKS)
    bob_entry = books.entries.get()
    _raw("UPDATE ledger_entry SET currency = 'dollars' WHERE id = %s", [bob_entry.pk])
    staked = staked_game([alice, bob], stake=StakeSpec(dollars=5))
    finish(staked.game, winner=1)  # finished, but nobody settled it
    run = services.reconcile_run()
    problems = sorted(Mismatch.objects.filter(run=run).values_list("problem", flat=True))
    assert "balance" in problems and "unbalanced" in problems and "wrong_unit" in problems
    assert "unsettled" in problems
    balance = Mismatch.objects.get(run=run, problem="balance", account=account)
    assert balance.found - balance.expected == 6  # 7 on the balance, 1 on its entry
    unsettled = Mismatch.objects.get(run=run, problem="unsettled")
    assert unsettled.game_id == staked.game.pk
    assert run.mismatch_count == Mismatch.objects.filter(run=run).count()
    # Put the books right again (PostgreSQL checks deferred constraints when the test ends).
    _raw("UPDATE ledger_account SET balance = balance - 7 WHERE id = %s", [account.pk])
    _raw("UPDATE ledger_entry SET amount = amount - 1 WHERE id = %s", [entry.pk])
    _raw("UPDATE ledger_entry SET currency = 'books' WHERE id = %s", [bob_entry.pk])


@pytest.mark.django_db
def test_an_aborted_game_still_holding_stakes_is_listed(alice: Any, bob: Any) -> None:
    staked = staked_game([alice, bob], stake=StakeSpec(dollars=5))
    Game.objects.filter(pk=staked.game.pk).update(status=Game.Status.ABORTED)
    run = services.reconcile_run()
    assert list(Mismatch.objects.filter(run=run).values_list("problem", "game")) == [
        ("unsettled", staked.game.pk)
    ]
    services.game_refund(game_id=staked.game.pk, why="test")
    assert services.reconcile_run().mismatch_count == 0
    assert Posting.objects.filter(reason=Reason.REFUND).count() == 1
    assert Account.objects.get(table=staked.table, kind=Kind.POT).balance == 0
