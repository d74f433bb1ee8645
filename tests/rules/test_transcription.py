"""Every table row of the sources is in data/rules, with the same numbers."""

from __future__ import annotations

from pathlib import Path

import pytest

from pmim_analytics.rules import find_unit, find_weapon, load_rules
from pmim_analytics.rules.models import Warmech

TABLES = Path(__file__).resolve().parents[1] / "fixtures" / "source_tables"
CLASS_HEADINGS = ("Heavy", "Medium", "Light", "Ultralight")


def read_table(name: str) -> tuple[list[str], list[list[str]]]:
    lines = (TABLES / f"{name}.tsv").read_text().splitlines()
    header = lines[0].split("\t")
    rows = [line.split("\t") for line in lines[1:] if line.split("\t")[0] not in CLASS_HEADINGS]
    return header, rows


def number(cell: str) -> int:
    """A printed cell as our data stores it: footnote marks dropped, '-' and '*' are 0."""
    cell = cell.rstrip("*")
    return 0 if cell in ("", "-") else int(cell)


@pytest.mark.parametrize("version", ["v1", "v2", "v3"])
def test_chassis_rows(version: str) -> None:
    rules = load_rules(version)
    header, rows = read_table(f"{version}_chassis")
    assert header[1] == rules.labels.hp
    assert len(rows) == len(rules.chassis)
    for name, hp, mov, de, arm, spt, pts in rows:
        unit = find_unit(rules, name)
        assert unit.name == name
        assert (unit.hp, unit.mov, unit.def_, unit.arm, unit.spt, unit.pts) == tuple(
            number(c) for c in (hp, mov, de, arm, spt, pts)
        ), name


@pytest.mark.parametrize("version", ["v1", "v2", "v3"])
def test_weapon_rows(version: str) -> None:
    rules = load_rules(version)
    header, rows = read_table(f"{version}_weapons")
    assert header[4] == rules.labels.strength
    assert len(rows) == len(rules.weapons)
    for name, rng, acc, rpt, strength, ton in rows:
        w = find_weapon(rules, name)
        assert name in (w.name, *w.aliases)
        assert (w.rng, w.acc, w.rpt, w.strength, w.ton) == tuple(
            number(c) for c in (rng, acc, rpt, strength, ton)
        ), name


BODY_TABLES = {
    "v1": ["humanoid", "avian"],
    "v2": ["humanoid", "avian"],
    "v3": ["humanoid", "avian", "saurian"],
}


@pytest.mark.parametrize("version", ["v1", "v2", "v3"])
def test_warmech_rows(version: str) -> None:
    rules = load_rules(version)
    seen = 0
    for body in BODY_TABLES[version]:
        header, rows = read_table(f"{version}_{body}")
        for row in rows:
            name, *cells = row
            mech = find_unit(rules, name)
            assert isinstance(mech, Warmech) and mech.body == body, name
            tons, spt, mov, de, arm, hp1, hp2, hp3, pts = (number(c) for c in cells)
            assert (mech.tons, mech.spt, mech.mov, mech.def_, mech.arm, mech.pts) == (tons, spt, mov, de, arm, pts)
            # columns 7-9 name the HP groups: ARM/LEG/TOR for humanoids, TOR/LEG/CEN for avians...
            groups = [h[1:].lower() for h in header[6:9]]
            key = {"arm": "arm", "leg": "leg", "tor": "torso", "cen": "center"}
            for group, value in zip(groups, (hp1, hp2, hp3), strict=True):
                assert getattr(mech.hp, key[group]) == value, (name, group)
            seen += 1
    assert seen == len(rules.warmechs)


CHARTS = {"v1": ["humanoid", "avian"], "v3": ["humanoid", "avian", "saurian"]}


@pytest.mark.parametrize("version", ["v1", "v3"])
def test_hit_charts(version: str) -> None:
    rules = load_rules(version)
    for body in CHARTS[version]:
        _, rows = read_table(f"{version}_{body}_chart")
        printed = [loc.lower().replace(" ", "_") for _, loc in rows]
        assert list(rules.hit_charts[body]) == printed, body


def test_v2_keeps_v1_hit_charts() -> None:
    assert load_rules("v2").hit_charts == load_rules("v1").hit_charts


def test_weight_classes_follow_the_printed_bands() -> None:
    v3 = load_rules("v3")
    assert {m.name: v3.weight_class(m) for m in v3.warmechs if m.body == "humanoid"} == {
        "Paladin": "heavy", "Mjolnir": "heavy", "Lancelot": "heavy", "Jaeger": "medium", "Avenger": "medium",
        "Timber Wolf": "medium", "Leopard": "medium", "Vinge": "medium", "Basset": "light", "Ripper": "ultralight",
    }
