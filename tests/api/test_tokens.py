"""Personal access tokens: shown once, kept hashed, scoped, revocable; every answer says where
its rate limit stands, and over it the API says how long to wait."""

from __future__ import annotations

import hashlib
from typing import Any

import pytest

from accounts.models import AgeStatus
from api import access
from api.models import AccessToken
from api.tokens import TokenError, token_create, token_revoke
from tests.api.helpers import call, token_for

pytestmark = pytest.mark.django_db


def test_a_token_is_kept_as_its_hash_and_works_until_revoked(alice: Any) -> None:
    token, secret = token_create(user=alice, name="Domino bot", scopes=["read", "play"])
    assert secret.startswith("dom_") and len(secret) > 40
    row = AccessToken.objects.get(pk=token.pk)
    assert row.digest == hashlib.sha256(secret.encode()).hexdigest()
    assert secret not in {row.digest, row.prefix, row.name} and secret.startswith(row.prefix)
    assert row.last_used_at is None

    answer = call("GET", "/api/account", secret)
    assert answer.status_code == 200
    body = answer.json()
    assert body["id"] == alice.pk and body["name"] == "Alice" and body["scopes"] == ["play", "read"]
    row.refresh_from_db()
    assert row.last_used_at is not None

    token_revoke(user=alice, token_id=token.pk)
    refused = call("GET", "/api/account", secret)
    assert refused.status_code == 401 and refused.json()["code"] == "bad_token"
    assert "invalid_token" in refused["WWW-Authenticate"]


def test_no_token_a_bad_one_and_a_missing_scope_are_told_apart(alice: Any) -> None:
    none = call("GET", "/api/account")
    assert none.status_code == 401 and none.json()["code"] == "no_token"
    bad = call("GET", "/api/account", "dom_not-a-real-token")
    assert bad.status_code == 401 and bad.json()["code"] == "bad_token"
    assert call("GET", "/api/account", "something else").json()["code"] == "bad_token"
    play_only = token_for(alice, "play")
    refused = call("GET", "/api/account", play_only)
    assert refused.status_code == 403
    assert refused.json() == {
        "code": "missing_scope",
        "message": "This token does not have the read scope.",
        "scope": "read",
    }


def test_a_suspended_account_s_token_is_refused_in_words(alice: Any) -> None:
    secret = token_for(alice)
    alice.age_status = AgeStatus.SUSPENDED
    alice.save()
    refused = call("GET", "/api/account", secret)
    assert refused.status_code == 403 and refused.json()["code"] == "account_refused"
    assert "suspended" in refused.json()["message"]


def test_tokens_are_named_scoped_and_capped(alice: Any, bob: Any) -> None:
    with pytest.raises(TokenError) as exc:
        token_create(user=alice, name="  ", scopes=["read"])
    assert exc.value.field == "name"
    with pytest.raises(TokenError) as exc:
        token_create(user=alice, name="x", scopes=["read", "everything"])
    assert exc.value.field == "scopes"
    with pytest.raises(TokenError):
        token_create(user=alice, name="x", scopes=[])
    for n in range(20):
        token_create(user=alice, name=f"t{n}", scopes=["read"])
    with pytest.raises(TokenError) as exc:
        token_create(user=alice, name="one more", scopes=["read"])
    assert exc.value.code == "too_many_tokens"
    # Someone else's token cannot be revoked by id.
    theirs = AccessToken.objects.filter(user=alice).first()
    assert theirs is not None
    with pytest.raises(TokenError):
        token_revoke(user=bob, token_id=theirs.pk)
    token_revoke(user=alice, token_id=theirs.pk)
    token_create(user=alice, name="room again", scopes=["read"])


def test_every_answer_says_its_rate_limit_and_over_it_how_long_to_wait(
    alice: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(access.LIMITS, "read", 3)
    secret = token_for(alice)
    seen = []
    for _ in range(3):
        answer = call("GET", "/api/account/ratings", secret)
        assert answer.status_code == 200
        assert answer["X-RateLimit-Limit"] == "3" and answer["X-RateLimit-Bucket"] == "read"
        assert 0 < int(answer["X-RateLimit-Reset"]) <= 60
        seen.append(int(answer["X-RateLimit-Remaining"]))
    assert seen == [2, 1, 0]
    over = call("GET", "/api/account/ratings", secret)
    assert over.status_code == 429 and over.json()["code"] == "rate_limited"
    wait = int(over["Retry-After"])
    assert 1 <= wait <= 120 and over.json()["retry_after"] == wait
    assert over["X-RateLimit-Remaining"] == "0"
    # A refusal before the count (no token) carries no rate-limit headers of anyone's.
    assert "X-RateLimit-Limit" not in call("GET", "/api/account")
    # Another account's bucket is its own.
    monkeypatch.setitem(access.LIMITS, "read", 3)
    other = call(
        "GET",
        "/api/account/ratings",
        token_for(
            alice.__class__.objects.create_user(
                "carol@example.com",
                "pw-Carol-123",
                display_name="Carol",
                date_of_birth=alice.date_of_birth,
            )
        ),
    )
    assert other.status_code == 200 and other["X-RateLimit-Remaining"] == "2"


def test_anonymous_reads_are_counted_per_address(
    alice: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(access.LIMITS, "anonymous", 2)
    for remaining in ("1", "0"):
        answer = call("GET", "/api/leaderboards/fives")
        assert answer.status_code == 200 and answer["X-RateLimit-Remaining"] == remaining
        assert answer["X-RateLimit-Bucket"] == "anonymous"
    assert call("GET", "/api/leaderboards/fives").status_code == 429
    # From another address, room again.
    assert call("GET", "/api/leaderboards/fives", REMOTE_ADDR="10.1.2.3").status_code == 200


def test_api_requests_are_counted_for_operators(alice: Any) -> None:
    from dominoes_site import metrics

    def counted(bucket: str, status: str) -> float:
        return metrics.value("dominoes_api_requests_total", {"bucket": bucket, "status": status})

    ok, refused = counted("read", "2xx"), counted("none", "4xx")
    secret = token_for(alice)
    call("GET", "/api/account", secret)
    call("GET", "/api/account", secret)
    call("GET", "/api/account")  # no token: refused before any bucket counts it
    assert counted("read", "2xx") == ok + 2
    assert counted("none", "4xx") == refused + 1


def test_a_token_read_a_moment_ago_costs_one_statement_and_still_hears_every_change(
    alice: Any, django_assert_num_queries: Any, django_capture_on_commit_callbacks: Any
) -> None:
    """For a move or a stream (`recent`): a token found before is checked with one small
    statement; a revocation, or any change to the account that matters (a new generation:
    here its age status), is seen on the next request all the same."""
    from accounts.services import age_status_set, refusal_reason
    from api.tokens import token_bearer

    secret = token_for(alice, "play")
    first = token_bearer(secret, recent=True)
    assert first is not None and first.user.pk == alice.pk
    with django_assert_num_queries(1):
        again = token_bearer(secret, recent=True)
    assert again is not None and again.user.pk == alice.pk
    with django_assert_num_queries(1):  # a read that shows the account reads it afresh
        assert token_bearer(secret) is not None

    with django_capture_on_commit_callbacks(execute=True):  # the change announced on commit
        age_status_set(user=alice, status=AgeStatus.SUSPENDED, reason="a check", changed_by=None)
    changed = token_bearer(secret, recent=True)
    assert changed is not None and changed.user.age_status == AgeStatus.SUSPENDED
    assert "suspended" in str(refusal_reason(changed.user))  # so a move is refused (403)

    token_revoke(user=alice, token_id=AccessToken.objects.get(user=alice).pk)
    assert token_bearer(secret, recent=True) is None


def test_the_tokens_found_lately_forget_the_least_recently_used_first(
    alice: Any, bob: Any, make_user: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The process keeps at most FOUND_MOST tokens found lately; past it, the one used longest
    ago is forgotten (and costs a full read again), not the whole table."""
    from api import tokens

    monkeypatch.setattr(tokens, "_FOUND", tokens.OrderedDict())
    monkeypatch.setattr(tokens, "FOUND_MOST", 2)
    carol = make_user("Carol")
    given = [token_for(user, "play") for user in (alice, bob, carol)]
    digests = [tokens.digest_of(s) for s in given]
    assert tokens.token_bearer(given[0], recent=True) is not None
    assert tokens.token_bearer(given[1], recent=True) is not None
    assert tokens.token_bearer(given[0], recent=True) is not None  # alice's: used again
    assert tokens.token_bearer(given[2], recent=True) is not None
    assert list(tokens._FOUND) == [digests[0], digests[2]]  # bob's, used longest ago, went
