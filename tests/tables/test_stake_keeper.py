"""tables.stakes: tables asks whoever keeps the stakes (the ledger registers itself) and imports
none of it; with no keeper it refuses at once, and a keeper's refusal reaches the player in the
keeper's own words, as a table refusal or on the create form's field."""

from __future__ import annotations

import inspect
from typing import Any

import pytest
from django.core.exceptions import ImproperlyConfigured
from django.test import Client

from ledger import services as ledger
from ledger.forms import StakeForm as LedgerStakeForm
from ledger.keeper import LedgerStakeKeeper
from ledger.models import Good
from tables import services, stakes
from tables.forms import TableForm, mode_rules_data
from tables.models import Table
from tests.ledger.helpers import finish, staked_game

LOBBY = "/lobby/"


def _members(protocol: type) -> set[str]:
    """What a Protocol asks for: its methods, properties and annotated attributes."""
    names = {n for n, _ in inspect.getmembers(protocol) if not n.startswith("_")}
    return names | set(getattr(protocol, "__annotations__", {}))


def test_the_ledger_keeps_the_stakes() -> None:
    keeper = stakes.keeper()
    assert type(keeper) is LedgerStakeKeeper
    for name in _members(stakes.StakeKeeper):
        assert hasattr(keeper, name), name
    for name in _members(stakes.StakeForm):
        assert hasattr(LedgerStakeForm, name), name


def test_every_ledger_refusal_is_a_stake_refusal() -> None:
    for refusal in (ledger.LedgerError, ledger.NotCovered, ledger.InsufficientFunds):
        assert issubclass(refusal, stakes.StakeRefused)
    refused = ledger.LedgerError("canteen_only", "Words.", field="stake")
    assert (refused.code, refused.message, refused.field) == ("canteen_only", "Words.", "stake")


def test_the_same_keeper_again_changes_nothing_another_is_refused(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(stakes, "_keeper", None)
    stakes.register(LedgerStakeKeeper())
    stakes.register(LedgerStakeKeeper())  # a second ready()
    assert type(stakes.keeper()) is LedgerStakeKeeper

    class Other(LedgerStakeKeeper):
        pass

    with pytest.raises(ValueError, match="stakes are kept by"):
        stakes.register(Other())
    assert type(stakes.keeper()) is LedgerStakeKeeper


@pytest.mark.django_db
def test_with_no_keeper_tables_refuses_at_once_and_changes_nothing(
    alice: Any, bob: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    table = services.table_create(host=alice, mode="fives")
    monkeypatch.setattr(stakes, "_keeper", None)
    words = "No one keeps the tables' stakes"
    with pytest.raises(ImproperlyConfigured, match=words):
        stakes.keeper()
    with pytest.raises(ImproperlyConfigured, match=words):
        services.table_create(host=alice, mode="fives")  # never a table played for nothing
    assert Table.objects.count() == 1
    with pytest.raises(ImproperlyConfigured, match=words):
        services.seat_take(table_id=table.pk, user=bob, number=1)
    assert table.seats.get(number=1).user is None
    with pytest.raises(ImproperlyConfigured, match=words):
        TableForm()
    with pytest.raises(ImproperlyConfigured, match=words):
        mode_rules_data()
    client = Client()
    client.force_login(alice)
    with pytest.raises(ImproperlyConfigured, match=words):
        client.get(LOBBY)


class RefusingKeeper(LedgerStakeKeeper):
    """The ledger's keeper, except that it refuses every stake and every player, with `field`."""

    def __init__(self, field: str | None) -> None:
        self.field = field

    def stake_set(self, *, table: Any, spec: Any) -> None:
        raise stakes.StakeRefused("keeper_says_no", "The keeper's own words.", field=self.field)

    def stake_check_cover(self, *, table: Any, user: Any) -> None:
        raise stakes.StakeRefused("keeper_says_no", "The keeper's own words.", field=self.field)


@pytest.mark.django_db
def test_a_keeper_refusal_is_the_tables_refusal_in_the_same_words(
    alice: Any, bob: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    table = services.table_create(host=alice, mode="fives")
    monkeypatch.setattr(stakes, "_keeper", RefusingKeeper("stake"))
    with pytest.raises(services.TableError) as refused:
        services.seat_take(table_id=table.pk, user=bob, number=1)
    assert (refused.value.code, refused.value.message) == (
        "keeper_says_no",
        "The keeper's own words.",
    )
    assert table.seats.get(number=1).user is None
    with pytest.raises(stakes.StakeRefused, match="own words"):
        services.table_create(host=bob, mode="fives")
    assert Table.objects.count() == 1  # the refused table rolled back


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("mode", "field", "shown_on"),
    [
        ("citizen", "stake", "stake"),
        ("inmate", "canteen", "canteen_FIRST"),  # the canteen bet: its first good's field
        ("citizen", None, "__all__"),
        ("citizen", "mode", "mode"),  # a field of the form's own
        ("citizen", "no_such_field", "__all__"),
    ],
)
def test_a_keeper_refusal_is_shown_on_the_field_it_names(
    client: Client,
    alice: Any,
    monkeypatch: pytest.MonkeyPatch,
    mode: str,
    field: str | None,
    shown_on: str,
) -> None:
    first = Good.objects.order_by("pk").first()
    assert first is not None
    shown_on = shown_on.replace("FIRST", str(first.pk))
    monkeypatch.setattr(stakes, "_keeper", RefusingKeeper(field))
    client.force_login(alice)
    response = client.post(LOBBY, {"mode": mode, "shape": "one_on_one"})
    assert response.status_code == 400
    errors = response.context["form"].errors
    assert errors == {shown_on: ["The keeper's own words."]}
    assert "The keeper&#x27;s own words." in response.content.decode()
    assert not Table.objects.exists()


@pytest.mark.django_db
def test_a_void_asks_the_keeper_whether_the_game_was_settled(
    alice: Any, bob: Any, warden: Any
) -> None:
    staked = staked_game([alice, bob])
    finish(staked.game, winner=0)
    with pytest.raises(services.TableError) as refused:
        services.game_void(game_id=staked.game.pk, by=warden, reason="x")
    assert refused.value.code == "game_over"
    assert not stakes.keeper().stakes_settled(staked.game)
    ledger.game_settle(game_id=staked.game.pk)
    assert stakes.keeper().stakes_settled(staked.game)
    with pytest.raises(services.TableError) as refused:
        services.game_void(game_id=staked.game.pk, by=warden, reason="x")
    assert refused.value.code == "settled"
    assert "its stakes were settled" in refused.value.message
