"""Army lists: the right verdict on every sample and on a table of invalid lists."""

from __future__ import annotations

from pathlib import Path

import pytest

from pmim_analytics.errors import DataFileError, InvalidArmyError
from pmim_analytics.rules import build_roster, load_army, validate_army
from pmim_analytics.rules.army import parse_army
from tests.conftest import ARMIES


@pytest.mark.parametrize("path", sorted(ARMIES.glob("*.yaml")), ids=lambda p: p.stem)
def test_every_sample_army_is_legal(path: Path) -> None:
    roster = validate_army(load_army(path))
    assert roster.points <= 72
    assert roster.warmech_count == 2


def test_blog_example_is_the_72_point_selection() -> None:
    roster = validate_army(load_army(ARMIES / "v2-lances-example.yaml"))
    types = [u.type for u in roster.units]
    assert (types.count("Lancelot"), types.count("Mammoth"), types.count("Infantry")) == (2, 6, 9)
    assert roster.points == 72


def test_roster_ids_number_each_type() -> None:
    roster = build_roster(load_army(ARMIES / "v2-playtest1-heavy.yaml"))
    ids = [u.id for u in roster.units]
    assert ids[:4] == ["TW1", "VI1", "TY1", "TY2"]
    assert "TY7" in ids and "MA2" in ids
    assert roster.units[0].mounts == ("LA", "RA")


def army(units: list[dict], rules: str = "v3") -> dict:
    return {"name": "test", "rules": rules, "units": units}


TW = {"type": "Timber Wolf", "weapons": ["GG", "ML"]}
VI = {"type": "Vinge", "weapons": ["MPC", "MAC"]}

INVALID = [
    pytest.param(army([TW, VI, {"type": "Tyrant", "weapons": ["HAC"], "count": 9}]),
                 "76 points is over the Take and Hold limit of 72", id="over-points"),
    pytest.param(army([TW, {"type": "Mammoth", "weapons": ["SC"]}]),
                 "requires exactly 2 Warmechs, the list has 1", id="one-warmech"),
    pytest.param(army([TW, VI, {"type": "Paladin", "weapons": ["HPB", "HAC"]}]),
                 "the list has 3", id="three-warmechs"),
    pytest.param(army([{"type": "Timber Wolf", "weapons": ["GG", "LL"]}, VI]),
                 "unit 1 (Timber Wolf): weapon tonnage 25 (GG, LL) must equal its SPT 30", id="mech-tonnage"),
    pytest.param(army([TW, VI, {"type": "Mammoth", "weapons": ["HAC"]}]),
                 "weapon H. Autocannon (HAC) weighs 15 tons; it must equal the SPT 10", id="tank-tonnage"),
    pytest.param(army([TW, VI, {"type": "Infantry", "weapons": ["ML"]}]),
                 "Infantry takes a 5-ton weapon, but M. Laser (ML) weighs 10 tons", id="infantry-10-ton"),
    pytest.param(army([TW, VI, {"type": "Nebula", "weapons": ["LPC"]}], rules="v1"),
                 "weapon 'LPC' does not exist in rules v1", id="weapon-absent"),
    pytest.param(army([TW, {"type": "Grumbler", "weapons": ["GG", "ML", "MAC"]}], rules="v2"),
                 "unit 'Grumbler' does not exist in rules v2", id="unit-absent"),
    pytest.param(army([{"type": "Timber Wolf", "weapons": ["GG", "ML", "LL"]}, VI]),
                 "a humanoid Warmech mounts exactly 2 weapons", id="humanoid-three-weapons"),
    pytest.param(army([TW, {"type": "Corvus", "weapons": ["LAC", "LL"]}]),
                 "an avian Warmech mounts exactly 1 weapon", id="avian-two-weapons"),
    pytest.param(army([TW, {"type": "Grenadier", "weapons": ["GG", "ML"]}]),
                 "a saurian Warmech mounts exactly 3 weapons", id="saurian-two-weapons"),
    pytest.param(army([TW, VI, {"type": "Beetle", "weapons": ["LAC", "LL"]}]),
                 "a basic unit takes exactly one weapon, got 2", id="tank-two-weapons"),
    pytest.param(army([TW, VI, {"type": "Infantry", "weapons": ["LAC"]}], rules="v1"),
                 "in v1 Infantry carries Small Arms only", id="v1-infantry-small-arms"),
    pytest.param(army([TW, VI, {"type": "Mastodon", "weapons": ["HAC"]}]),
                 "unit 'Mastodon' does not exist in rules v3 (renamed 'Tyrant' in v2)", id="old-name"),
]


@pytest.mark.parametrize(("raw", "message"), INVALID)
def test_invalid_lists_name_the_problem(raw: dict, message: str) -> None:
    with pytest.raises(InvalidArmyError) as exc:
        validate_army(parse_army(raw))
    assert any(message in v for v in exc.value.violations), exc.value.violations


def test_every_violation_is_reported_not_just_the_first() -> None:
    raw = army([{"type": "Timber Wolf", "weapons": ["GG"]}, {"type": "Infantry", "weapons": ["HL"], "count": 40}])
    with pytest.raises(InvalidArmyError) as exc:
        validate_army(parse_army(raw))
    text = " | ".join(exc.value.violations)
    assert "mounts exactly 2 weapons" in text
    assert "Infantry takes a 5-ton weapon" in text
    assert "over the Take and Hold limit" in text
    assert "requires exactly 2 Warmechs, the list has 1" in text


def test_v1_black_powder_mammoth_costs_three() -> None:
    raw = army([
        {"type": "Paladin", "weapons": ["HAC", "HL"]},
        {"type": "Lancelot", "weapons": ["GG", "MPC"]},
        {"type": "Mammoth", "weapons": ["BPC"], "count": 2},
        {"type": "Mammoth", "weapons": ["SC"]},
        {"type": "Infantry", "count": 3},
    ], rules="v1")
    roster = validate_army(parse_army(raw))
    assert [u.pts for u in roster.units if u.type == "Mammoth"] == [3, 3, 4]
    assert roster.points == 18 + 15 + 3 + 3 + 4 + 3 * 2
    assert [u.weapons for u in roster.units if u.type == "Infantry"] == [("SA",)] * 3


def test_rules_override_checks_against_another_version() -> None:
    a = load_army(ARMIES / "v2-playtest2-infantry.yaml")
    assert validate_army(a).points == 16 + 18 + 38
    assert build_roster(a, rules_id="v3").points == 18 + 18 + 38  # Mjolnir 16 -> 18 in v3
    with pytest.raises(InvalidArmyError, match="74 points is over"):
        validate_army(a, rules_id="v3")


def test_weapon_names_acronyms_and_aliases_all_resolve() -> None:
    raw = army([{"type": "timber wolf", "weapons": ["Gauss Gun", "m. laser"]},
                {"type": "VI", "weapons": ["Plasma Cannon", "MAC"]},
                {"type": "Mammoth", "weapons": ["APDS"]},
                {"type": "Tyrant", "weapons": ["H. Particle Cannon"]}])
    roster = validate_army(parse_army(raw))
    assert [u.weapons for u in roster.units] == [("GG", "ML"), ("MPC", "MAC"), ("SC",), ("HPB",)]


@pytest.mark.parametrize(("text", "message"), [
    ("name: x\nrules: v3\nunits: [", "is not valid YAML"),
    ("- just a list", "must be a mapping"),
    ("name: x\nrules: v3\nunits:\n  - {type: GEV, weapons: [ML], count: 0}\n", "units.0.count"),
    ("name: x\nrules: v3\nunits:\n  - {type: GEV, colour: red}\n", "units.0.colour"),
])
def test_unreadable_army_files(tmp_path: Path, text: str, message: str) -> None:
    p = tmp_path / "bad.yaml"
    p.write_text(text)
    with pytest.raises(DataFileError) as exc:
        load_army(p)
    assert message in exc.value.render()
    assert "bad.yaml" in exc.value.render()
