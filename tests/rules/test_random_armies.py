"""Random army lists are legal and varied."""

from __future__ import annotations

import random

import pytest

from pmim_analytics.rules import validate_army
from pmim_analytics.rules.catalogue import load_rules
from pmim_analytics.rules.generate import basic_weapons, random_army, warmech_loadouts


@pytest.mark.parametrize("rules_id", ["v1", "v2", "v3", "v3-heavy-def6"])
def test_random_armies_are_legal(rules_id: str) -> None:
    rng = random.Random(7)
    seen_types: set[str] = set()
    for _ in range(60):
        roster = validate_army(random_army(rules_id, rng))
        assert roster.warmech_count == 2 and roster.points <= 72
        assert 72 - roster.points < 2  # filled until nothing more fits (the cheapest unit costs 2)
        seen_types |= {u.type for u in roster.units}
    assert len(seen_types) >= 10


def test_same_seed_same_army() -> None:
    assert random_army("v3", random.Random(3)) == random_army("v3", random.Random(3))


def test_loadouts_fill_the_spare_tonnage() -> None:
    assert ("GG", "ML") in warmech_loadouts("v3", "TW")
    assert all(len(lo) == 3 for lo in warmech_loadouts("v3", "GR"))
    v1 = load_rules("v1")
    assert basic_weapons(v1, next(c for c in v1.chassis if c.code == "IN")) == ("SA",)
    v3 = load_rules("v3")
    assert set(basic_weapons(v3, next(c for c in v3.chassis if c.code == "IN"))) == {"LPC", "LAC", "LL"}
