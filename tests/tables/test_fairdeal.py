"""Fair deals: the committed seed and the washers' entropy give the deal (docs/fair-deals.md)."""

from __future__ import annotations

import hashlib
import secrets
from typing import Any

import pytest

from engine import GameState
from tables import services
from tables.fairdeal import commitment_of, shuffled_set
from tables.models import Game, Hand


def documented_deal(seed_hex: str, washes: dict[int, str], max_pip: int = 6) -> list[str]:
    """The few lines printed in docs/fair-deals.md, written independently of tables.fairdeal."""
    text = ",".join(f"{seat}={washes[seat]}" for seat in sorted(washes))
    key = hashlib.sha256(f"dominologist-deal-v1|{seed_hex}|{text}".encode()).digest()
    bones = [f"{hi}-{lo}" for hi in range(max_pip + 1) for lo in range(hi + 1)]
    for k, i in enumerate(range(len(bones) - 1, 0, -1)):
        block = hashlib.sha256(key + k.to_bytes(8, "big")).digest()
        j = int.from_bytes(block[:8], "big") % (i + 1)
        bones[i], bones[j] = bones[j], bones[i]
    return bones


@pytest.mark.parametrize("max_pip", [6, 9])
def test_the_documented_recipe_gives_the_same_deal(max_pip: int) -> None:
    for _ in range(20):
        seed = secrets.token_hex(32)
        washes = {seat: secrets.token_hex(32) for seat in (0, 2, 3)}
        ours = [str(b) for b in shuffled_set(seed, washes, max_pip)]
        assert ours == documented_deal(seed, washes, max_pip)
        assert sorted(ours) == sorted(documented_deal(seed, {}, max_pip))  # the whole set


def test_a_tampered_value_gives_another_deal() -> None:
    seed = secrets.token_hex(32)
    washes = {0: secrets.token_hex(32), 1: secrets.token_hex(32)}
    deal = shuffled_set(seed, washes, 6)
    flipped = washes[1][:-1] + ("0" if washes[1][-1] != "0" else "1")
    assert shuffled_set(seed, {**washes, 1: flipped}, 6) != deal
    other_seed = seed[:-1] + ("0" if seed[-1] != "0" else "1")
    assert shuffled_set(other_seed, washes, 6) != deal
    assert commitment_of(seed) == hashlib.sha256(bytes.fromhex(seed)).hexdigest()


@pytest.mark.django_db
def test_the_table_deals_from_its_commitment_and_the_washes(alice: Any, bob: Any) -> None:
    table = services.table_create(host=alice, mode="citizen", players=2)
    services.seat_take(table_id=table.pk, user=bob, number=1)
    game = Game.objects.get(table=table)
    hand = Hand.objects.get(game=game, number=1)
    assert hand.commitment == commitment_of(hand.server_seed)
    washes = {0: secrets.token_hex(32), 1: secrets.token_hex(32)}
    assert services.hand_wash(table_id=table.pk, user=alice, hand=1, entropy=washes[0])
    assert services.hand_wash(table_id=table.pk, user=bob, hand=1, entropy=washes[1])
    # A second wash for the same hand does not replace the first.
    assert not services.hand_wash(table_id=table.pk, user=bob, hand=1, entropy="ab" * 32)
    for user in (alice, bob):
        services.seat_ready(table_id=table.pk, user=user, ready=True)
    hand.refresh_from_db()
    assert hand.dealt_at is not None and hand.washers == [0, 1]
    assert hand.contributions == {"0": washes[0], "1": washes[1]}
    # The hands on the table are the documented shuffle of the last dealt hand (hand 1, or the
    # redeal that followed at once when nobody held a double).
    dealt = Hand.objects.filter(game=game, dealt_at__isnull=False).order_by("number").last()
    assert dealt is not None
    order = documented_deal(dealt.server_seed, {int(k): v for k, v in dealt.contributions.items()})
    state = GameState.from_json(Game.objects.get(table=table).state)
    assert state.deal_number == dealt.number
    assert [str(b) for b in state.hands[0]] == order[:7]
    assert [str(b) for b in state.hands[1]] == order[7:14]
    # The next hand is already committed, and its seed is still secret.
    following = Hand.objects.get(game=game, dealt_at=None)
    assert following.number == dealt.number + 1
    assert following.commitment == commitment_of(following.server_seed) != dealt.commitment
