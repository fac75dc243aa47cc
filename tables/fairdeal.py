"""Fair deals: a committed server seed, each washing player's entropy, one deterministic shuffle.

Before a hand is dealt the server publishes `commitment = SHA-256(seed)` (seed: 32 random bytes,
written as 64 hex characters). Each washing player's browser sends 32 random bytes of its own.
The deal is the shuffle below of the whole set; after the hand the seed is revealed, and anyone
can recompute the deal from the published values (docs/fair-deals.md shows how, in a few lines).

    key    = SHA-256("dominologist-deal-v1|" + seed_hex + "|" + "0=<hex>,2=<hex>")
             (the washers' contributions in seat order)
    word_k = first 8 bytes (big-endian) of SHA-256(key + k as 8 big-endian bytes), k = 0, 1, 2, …
    bones  = the set in canonical order (0-0, 1-0, 1-1, 2-0, 2-1, 2-2, …)
    for i = n-1 down to 1: j = word_k mod (i + 1) (k counting up), swap bones[i] and bones[j]

The modulo's bias is below 2^-58 for a 55-bone set. No Django here: this is pure Python.
"""

from __future__ import annotations

import hashlib
import re
import secrets
from collections.abc import Mapping

from engine import Bone, full_set

HEX64 = re.compile(r"^[0-9a-f]{64}$")
DOMAIN = "dominologist-deal-v1"


def new_seed() -> str:
    return secrets.token_hex(32)


def commitment_of(seed: str) -> str:
    return hashlib.sha256(bytes.fromhex(seed)).hexdigest()


def is_entropy(value: object) -> bool:
    return isinstance(value, str) and bool(HEX64.match(value))


def deal_key(seed: str, contributions: Mapping[int | str, str]) -> bytes:
    washes = ",".join(f"{seat}={contributions[seat]}" for seat in sorted(contributions, key=int))
    return hashlib.sha256(f"{DOMAIN}|{seed}|{washes}".encode()).digest()


def shuffled_set(seed: str, contributions: Mapping[int | str, str], max_pip: int) -> list[Bone]:
    """The deal order: the whole set shuffled by the seed and every washer's contribution.

    >>> seed = "00" * 32
    >>> shuffled_set(seed, {}, 6) == shuffled_set(seed, {}, 6)
    True
    >>> shuffled_set(seed, {0: "11" * 32}, 6) == shuffled_set(seed, {}, 6)
    False
    """
    key = deal_key(seed, contributions)
    bones = full_set(max_pip)
    for counter, i in enumerate(range(len(bones) - 1, 0, -1)):
        block = hashlib.sha256(key + counter.to_bytes(8, "big")).digest()
        j = int.from_bytes(block[:8], "big") % (i + 1)
        bones[i], bones[j] = bones[j], bones[i]
    return bones
