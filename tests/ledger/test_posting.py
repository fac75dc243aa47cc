"""The one writer: balanced postings, idempotency keys, refusals, and guards in the models and
in the database."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import IntegrityError, connection, transaction

from ledger import services
from ledger.models import Account, Entry, Kind, LedgerWriteRefused, Party, Posting, Reason
from ledger.services import BOOKS, DOLLARS, LedgerError, Line, posting_make
from tests.ledger.helpers import assert_books_balance, dollars


def grant_lines(user: Any, amount: int) -> list[Line]:
    return [
        Line(services.player_account(user.pk, DOLLARS), amount),
        Line(services.system_account(Kind.GRANTS, DOLLARS), -amount),
    ]


@pytest.mark.django_db
def test_a_posting_moves_value_and_keeps_the_books_balanced(alice: Any) -> None:
    before = dollars(alice)
    result = posting_make(
        key="test:1", reason=Reason.SIGNUP, lines=grant_lines(alice, 25), user=alice
    )
    assert result.created
    assert dollars(alice) == before + 25
    assert sorted(e.amount for e in result.posting.entries.all()) == [-25, 25]
    assert list(Party.objects.filter(posting=result.posting).values_list("user", flat=True)) == [
        alice.pk
    ]
    assert_books_balance()


@pytest.mark.django_db
def test_the_same_key_pays_once(alice: Any) -> None:
    before = dollars(alice)
    first = posting_make(
        key="test:1", reason=Reason.SIGNUP, lines=grant_lines(alice, 25), user=alice
    )
    again = posting_make(
        key="test:1", reason=Reason.SIGNUP, lines=grant_lines(alice, 25), user=alice
    )
    assert first.created and not again.created
    assert again.posting.pk == first.posting.pk
    assert dollars(alice) == before + 25
    with pytest.raises(LedgerError) as refused:
        posting_make(key="test:1", reason=Reason.ALLOWANCE, lines=grant_lines(alice, 1), user=alice)
    assert refused.value.code == "key_reused"


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("amounts", "code"),
    [
        ((25, -24), "unbalanced"),
        ((0, 0), "empty"),
        ((2.5, -2.5), "bad_amount"),
        ((True, -1), "bad_amount"),
    ],
)
def test_refused_postings_post_nothing(alice: Any, amounts: tuple[Any, Any], code: str) -> None:
    count = Posting.objects.count()
    before = dollars(alice)
    lines = [
        Line(services.player_account(alice.pk, DOLLARS), amounts[0]),
        Line(services.system_account(Kind.GRANTS, DOLLARS), amounts[1]),
    ]
    with pytest.raises(LedgerError) as refused:
        posting_make(key="test:bad", reason=Reason.SIGNUP, lines=lines, user=alice)
    assert refused.value.code == code
    assert Posting.objects.count() == count and dollars(alice) == before


@pytest.mark.django_db
def test_units_must_balance_each_on_its_own(alice: Any) -> None:
    lines = [
        Line(services.player_account(alice.pk, DOLLARS), 10),
        Line(services.system_account(Kind.GRANTS, BOOKS), -10),
    ]
    with pytest.raises(LedgerError, match="does not balance"):
        posting_make(key="test:mixed", reason=Reason.SIGNUP, lines=lines, user=alice)


@pytest.mark.django_db
def test_a_player_balance_never_goes_below_zero(alice: Any) -> None:
    have = dollars(alice)
    with pytest.raises(services.InsufficientFunds, match="Not enough"):
        posting_make(
            key="test:overdraw",
            reason=Reason.ADJUSTMENT,
            lines=[
                Line(services.player_account(alice.pk, DOLLARS), -(have + 1)),
                Line(services.system_account(Kind.HOUSE, DOLLARS), have + 1),
            ],
            user=alice,
        )
    assert dollars(alice) == have
    assert not Posting.objects.filter(key="test:overdraw").exists()


@pytest.mark.django_db
def test_no_posting_moves_value_from_one_player_to_another(alice: Any, bob: Any) -> None:
    before = (dollars(alice), dollars(bob))
    for reason in Reason.values:
        with pytest.raises(LedgerError) as refused:
            posting_make(
                key=f"test:transfer:{reason}",
                reason=reason,
                lines=[
                    Line(services.player_account(alice.pk, DOLLARS), -5),
                    Line(services.player_account(bob.pk, DOLLARS), 5),
                ],
                user=alice,
            )
        assert refused.value.code == "no_transfers"
    assert (dollars(alice), dollars(bob)) == before


@pytest.mark.django_db
def test_each_reason_touches_only_its_own_system_accounts(alice: Any) -> None:
    lines = [
        Line(services.player_account(alice.pk, DOLLARS), 5),
        Line(services.system_account(Kind.HOUSE, DOLLARS), -5),
    ]
    with pytest.raises(LedgerError) as refused:
        posting_make(key="test:grant-from-house", reason=Reason.SIGNUP, lines=lines, user=alice)
    assert refused.value.code == "wrong_account"


@pytest.mark.django_db
def test_nothing_but_the_service_writes(alice: Any) -> None:
    posting = Posting.objects.filter(user=alice).first()
    assert posting is not None
    entry = posting.entries.first()
    assert entry is not None
    account = Account.objects.get(pk=entry.account_id)
    with pytest.raises(LedgerWriteRefused):
        entry.save()
    with pytest.raises(LedgerWriteRefused):
        entry.delete()
    with pytest.raises(LedgerWriteRefused):
        posting.delete()
    with pytest.raises(LedgerWriteRefused):
        Entry.objects.filter(pk=entry.pk).update(amount=999)
    with pytest.raises(LedgerWriteRefused):
        Entry.objects.filter(pk=entry.pk).delete()
    with pytest.raises(LedgerWriteRefused):
        Posting(key="forged", reason=Reason.SIGNUP, user=alice).save()
    with pytest.raises(LedgerWriteRefused):
        Entry.objects.bulk_create(
            [Entry(posting=posting, account=account, currency="dollars", amount=1)]
        )
    with pytest.raises(LedgerWriteRefused):
        Account.objects.filter(pk=account.pk).update(balance=10**6)
    with pytest.raises(LedgerWriteRefused):
        account.save()
    with pytest.raises(LedgerWriteRefused):
        account.delete()
    assert_books_balance()


@pytest.mark.django_db
def test_the_database_refuses_a_negative_player_balance(alice: Any) -> None:
    account = services.player_account(alice.pk, DOLLARS)
    with pytest.raises(IntegrityError), transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("UPDATE ledger_account SET balance = -1 WHERE id = %s", [account.pk])
    # The house's own accounts may run below zero: they issue the play money.
    house = services.system_account(Kind.GRANTS, DOLLARS)
    assert house.balance < 0


@pytest.mark.django_db
def test_the_database_refuses_to_edit_an_entry(alice: Any) -> None:
    entry = Entry.objects.filter(account__user=alice).first()
    assert entry is not None
    with (
        pytest.raises(Exception, match="never edited"),
        transaction.atomic(),
        connection.cursor() as cursor,
    ):
        cursor.execute("UPDATE ledger_entry SET amount = 1 WHERE id = %s", [entry.pk])
    entry.refresh_from_db()
    assert entry.amount != 1


@pytest.mark.django_db(transaction=True)
@pytest.mark.skipif(connection.vendor != "postgresql", reason="a PostgreSQL constraint trigger")
def test_postgresql_refuses_an_unbalanced_posting_at_commit(alice: Any) -> None:
    """Written around the service, straight in SQL: the deferred trigger refuses it at commit."""
    account = services.player_account(alice.pk, DOLLARS)
    count = Posting.objects.count()
    with (
        pytest.raises(IntegrityError, match="does not balance"),
        transaction.atomic(),
        connection.cursor() as cursor,
    ):
        cursor.execute(
            "INSERT INTO ledger_posting (key, reason, user_id, detail, created_at) "
            "VALUES ('forged', 'signup', %s, '{}', now()) RETURNING id",
            [alice.pk],
        )
        posting_id = cursor.fetchone()[0]
        cursor.execute(
            "INSERT INTO ledger_entry (posting_id, account_id, currency, amount) "
            "VALUES (%s, %s, 'dollars', 500)",
            [posting_id, account.pk],
        )
    with (
        pytest.raises(IntegrityError, match="no entries"),
        transaction.atomic(),
        connection.cursor() as cursor,
    ):
        cursor.execute(
            "INSERT INTO ledger_posting (key, reason, user_id, detail, created_at) "
            "VALUES ('empty', 'signup', %s, '{}', now())",
            [alice.pk],
        )
    assert Posting.objects.count() == count
