"""The daily age-gate job and staff age actions in admin."""

from __future__ import annotations

import datetime as dt
import threading
from typing import Any

import pytest
from django.db import connection
from django.test import Client, override_settings
from django.urls import reverse
from django.utils import timezone

from accounts.models import AgeReview, AgeStatus, AgeStatusChange, User
from accounts.services import age_gate_sweep
from accounts.tasks import age_gate_check

TODAY = dt.date(2026, 11, 30)


@pytest.fixture(autouse=True)
def _today(frozen_today: Any) -> None:
    frozen_today(TODAY)


@pytest.fixture
def house(make_user: Any) -> dict[str, User]:
    return {
        "adult": make_user("Adult", born=dt.date(1990, 1, 1)),
        "verified": make_user("Verified", born=dt.date(1980, 1, 1), status=AgeStatus.VERIFIED),
        # A staff member corrected this date of birth: the account is not an adult after all.
        "minor": make_user("Minor", born=dt.date(2009, 6, 1)),
        "reported": make_user("Reported", born=dt.date(1995, 1, 1)),
        "already": make_user("Already", born=dt.date(2010, 1, 1), status=AgeStatus.SUSPENDED),
        "birthday": make_user("Birthday", born=dt.date(2008, 11, 30)),
    }


@pytest.mark.django_db
def test_job_suspends_exactly_the_failing_accounts(house: dict[str, User]) -> None:
    User.objects.filter(pk=house["reported"].pk).update(reported_underage=True)
    suspended = age_gate_check()
    assert sorted(suspended) == sorted([house["minor"].pk, house["reported"].pk])
    statuses = dict(User.objects.values_list("display_name", "age_status"))
    assert statuses == {
        "Adult": "declared",
        "Verified": "verified",
        "Minor": "suspended",
        "Reported": "suspended",
        "Already": "suspended",
        "Birthday": "declared",
    }
    change = AgeStatusChange.objects.get(user=house["minor"])
    assert change.changed_by is None
    assert change.old_status == "declared"
    assert "Under 18" in change.reason
    # Suspended accounts are in the review queue, and nothing they own is deleted.
    queue = set(AgeReview.objects.filter(needs_age_review=True).values_list("pk", flat=True))
    assert queue == {house["minor"].pk, house["reported"].pk}
    assert User.objects.count() == 6


@pytest.mark.django_db
def test_job_is_idempotent(house: dict[str, User]) -> None:
    first = age_gate_sweep()
    assert first == [house["minor"].pk]
    assert age_gate_sweep() == []
    assert AgeStatusChange.objects.count() == 1


@pytest.mark.django_db
def test_verification_deadline_is_off_by_default(make_user: Any) -> None:
    old = make_user("Oldtimer")
    User.objects.filter(pk=old.pk).update(date_joined=timezone.now() - dt.timedelta(days=400))
    assert age_gate_sweep() == []


@pytest.mark.django_db
@override_settings(AGE_VERIFY_WITHIN_DAYS=30)
def test_verification_deadline_when_set(make_user: Any) -> None:
    late = make_user("Late")
    fresh = make_user("Fresh")
    verified = make_user("Checked", status=AgeStatus.VERIFIED)
    for user in (late, verified):
        User.objects.filter(pk=user.pk).update(date_joined=timezone.now() - dt.timedelta(days=31))
    User.objects.filter(pk=fresh.pk).update(date_joined=timezone.now() - dt.timedelta(days=29))
    assert age_gate_sweep() == [late.pk]
    assert "30 days" in AgeStatusChange.objects.get(user=late).reason


@pytest.mark.django_db(transaction=True)
def test_two_runs_at_once_suspend_once(house: dict[str, User]) -> None:
    results: list[list[int]] = []
    barrier = threading.Barrier(2)

    def run() -> None:
        try:
            barrier.wait()
            results.append(age_gate_sweep())
        finally:
            connection.close()

    threads = [threading.Thread(target=run) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(results[0] + results[1]) == [house["minor"].pk]
    assert AgeStatusChange.objects.filter(user=house["minor"]).count() == 1


@pytest.mark.django_db
def test_admin_action_records_who_and_why(client: Client, warden: User, alice: User) -> None:
    client.force_login(warden)
    url = reverse("admin:accounts_user_changelist")
    # The first step asks for a reason and changes nothing.
    response = client.post(url, {"action": "age_verified", "_selected_action": [alice.pk]})
    assert response.status_code == 200
    assert b"Reason" in response.content
    alice.refresh_from_db()
    assert alice.age_status == AgeStatus.DECLARED
    # An empty reason is refused.
    response = client.post(
        url, {"action": "age_verified", "_selected_action": [alice.pk], "apply": "1", "reason": ""}
    )
    assert response.status_code == 200
    assert AgeStatusChange.objects.count() == 0
    # With a reason, the change is made and recorded.
    response = client.post(
        url,
        {
            "action": "age_verified",
            "_selected_action": [alice.pk],
            "apply": "1",
            "reason": "Saw a passport on a video call",
        },
    )
    assert response.status_code == 302
    alice.refresh_from_db()
    assert alice.age_status == AgeStatus.VERIFIED
    change = AgeStatusChange.objects.get(user=alice)
    assert (change.changed_by, change.reason) == (warden, "Saw a passport on a video call")
    assert (change.old_status, change.new_status) == ("declared", "verified")


@pytest.mark.django_db
def test_admin_suspend_and_report(client: Client, warden: User, alice: User, bob: User) -> None:
    client.force_login(warden)
    url = reverse("admin:accounts_user_changelist")
    client.post(
        url,
        {"action": "age_suspended", "_selected_action": [alice.pk], "apply": "1", "reason": "r1"},
    )
    client.post(
        url,
        {"action": "age_report", "_selected_action": [bob.pk], "apply": "1", "reason": "tip"},
    )
    alice.refresh_from_db()
    bob.refresh_from_db()
    assert alice.age_status == AgeStatus.SUSPENDED
    assert bob.reported_underage and bob.needs_age_review
    # The report suspends at once, recorded with who and why: the job has nothing left to do.
    assert bob.age_status == AgeStatus.SUSPENDED
    change = AgeStatusChange.objects.get(user=bob)
    assert (change.changed_by, change.reason) == (warden, "Reported underage: tip")
    queue = client.get(reverse("admin:accounts_agereview_changelist"))
    assert queue.status_code == 200
    assert bob.email.encode() in queue.content
    assert age_gate_sweep() == []


@pytest.mark.django_db
def test_history_cannot_be_edited_in_admin(client: Client, warden: User, alice: User) -> None:
    from accounts.services import age_status_set

    age_status_set(user=alice, status=AgeStatus.VERIFIED, reason="ok", changed_by=warden)
    change = AgeStatusChange.objects.get()
    client.force_login(warden)
    url = reverse("admin:accounts_agestatuschange_change", args=[change.pk])
    client.post(url, {"reason": "rewritten"})
    change.refresh_from_db()
    assert change.reason == "ok"
    delete = reverse("admin:accounts_agestatuschange_delete", args=[change.pk])
    assert client.post(delete, {"post": "yes"}).status_code == 403
