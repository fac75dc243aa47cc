"""Which pool a table's games are rated in."""

from __future__ import annotations

import pytest

from engine import TableSettings
from ratings.pools import Pool, pool_for


@pytest.mark.parametrize(
    ("mode", "options", "pool"),
    [
        ("citizen", {"players": 2}, Pool.ALLFIVES_1V1),
        ("inmate_gym", {"players": 2}, Pool.ALLFIVES_1V1),
        ("citizen_gym", {"players": 3}, Pool.ALLFIVES_CUTTHROAT),
        ("inmate", {"players": 4}, Pool.ALLFIVES_CUTTHROAT),
        ("citizen", {"players": 4, "partners": True}, Pool.ALLFIVES_PARTNERS),
        ("fives", {}, Pool.FIVES),
        ("threes", {}, Pool.THREES),
    ],
)
def test_pool_for_settings(mode: str, options: dict[str, object], pool: Pool) -> None:
    settings = TableSettings.build(mode, **options)
    assert pool_for(settings) == pool
    assert pool_for(settings.to_dict()) == pool  # a Table.settings dict


def test_the_codes_other_apps_use() -> None:
    assert [p.value for p in Pool] == [
        "allfives-1v1",
        "allfives-cutthroat",
        "allfives-partners",
        "fives",
        "threes",
    ]
