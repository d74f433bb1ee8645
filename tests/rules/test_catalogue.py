"""Rules versions, variants, diffs and broken rules files."""

from __future__ import annotations

from pathlib import Path

import pytest

from pmim_analytics.errors import DataFileError, UnknownNameError
from pmim_analytics.rules import find_unit, find_weapon, list_rules_ids, load_rules
from pmim_analytics.rules.catalogue import clear_caches
from pmim_analytics.rules.diff import Change, diff_rules, format_diff_markdown


def changes(a: str, b: str) -> list[Change]:
    return diff_rules(load_rules(a), load_rules(b))


def has(cs: list[Change], item: str, what: str, old: str, new: str) -> bool:
    return any((c.item, c.what, c.old, c.new) == (item, what, old, new) for c in cs)


def test_catalogue_lists_versions_then_variants() -> None:
    ids = list_rules_ids()
    assert ids[:3] == ["v1", "v2", "v3"]
    assert {"v3-llaser-rpt4", "v3-heavy-def6", "v2-heavy-def6"} <= set(ids)


def test_diff_v2_v3_has_the_designers_changes() -> None:
    cs = changes("v2", "v3")
    assert has(cs, "Beetle", "HP", "3", "2")
    assert has(cs, "Mjolnir", "PTS", "16", "18")
    assert has(cs, "Corvus", "PTS", "8", "7")
    assert has(cs, "Basset", "PTS", "9", "8")
    added = {c.item for c in cs if c.what == "added"}
    assert added == {"Jaeger", "Avenger", "Leopard", "Drake", "Rattler", "Grumbler", "Grenadier", "Terrier"}
    assert has(cs, "hp", "renamed", "WND", "HP")
    assert has(cs, "H. Particle Beam", "renamed", "H. Particle Cannon", "H. Particle Beam")


def test_diff_v1_v2_follows_renames_and_removals() -> None:
    cs = changes("v1", "v2")
    assert has(cs, "Tyrant", "renamed", "Mastodon", "Tyrant")
    assert has(cs, "M. Plasma Cannon", "renamed", "Plasma Cannon", "M. Plasma Cannon")
    removed = {c.item for c in cs if c.what == "removed"}
    assert removed == {"Small Arms", "Black Powder cannon"}
    assert has(cs, "strength", "renamed", "STR", "DAM")
    assert has(cs, "L. Laser", "ACC", "4", "2")
    assert has(cs, "Paladin", "DEF", "6", "7")


def test_diff_is_empty_between_a_version_and_itself() -> None:
    assert changes("v3", "v3") == []
    assert "no changes" in format_diff_markdown(load_rules("v3"), load_rules("v3"), [])


def test_diff_markdown_is_a_table() -> None:
    text = format_diff_markdown(load_rules("v2"), load_rules("v3"), changes("v2", "v3"))
    assert "| warmech | Mjolnir | PTS | 16 | 18 |" in text


def test_variant_overrides_only_what_it_names() -> None:
    base, variant = load_rules("v3"), load_rules("v3-llaser-rpt4")
    assert variant.is_variant and variant.base == "v3"
    assert find_weapon(variant, "LL").rpt == 4
    assert find_weapon(base, "LL").rpt == 3
    cs = diff_rules(base, variant)
    assert [(c.item, c.what, c.old, c.new) for c in cs] == [("L. Laser", "RPT", "3", "4")]


def test_heavy_def6_variants() -> None:
    for rid in ("v2-heavy-def6", "v3-heavy-def6"):
        r = load_rules(rid)
        assert {m.name: m.def_ for m in r.warmechs if r.weight_class(m) == "heavy" and m.body == "humanoid"} == {
            "Paladin": 6, "Mjolnir": 6, "Lancelot": 6}
    assert find_unit(load_rules("v2"), "Paladin").def_ == 7


def test_unknown_rules_id_lists_the_choices() -> None:
    with pytest.raises(UnknownNameError, match="unknown rules version 'v9'; choose one of v1, v2, v3"):
        load_rules("v9")


@pytest.mark.parametrize(("edit", "message"), [
    (lambda t: t.replace("{code: GG, name: Gauss Gun, rng: 6", "{code: GG, name: Gauss Gun, rng: six"),
     "field 'weapons.13.rng'"),
    (lambda t: t.replace("hit_charts:\n  humanoid: [left_arm,", "hit_charts:\n  humanoid: [left_arm, left_arm,"),
     "6 entries"),
    (lambda t: t.replace("id: v3", "id: v4"), "does not match the file name"),
    (lambda t: t.replace("chassis:\n", "chassis: [\n"), "is not valid YAML"),
])
def test_broken_rules_file_names_file_field_and_reason(data_copy: Path, edit, message: str) -> None:
    path = data_copy / "rules" / "v3.yaml"
    path.write_text(edit(path.read_text()))
    clear_caches()
    with pytest.raises(DataFileError) as exc:
        load_rules("v3")
    assert "v3.yaml" in exc.value.render()
    assert message in exc.value.render()


def test_variant_naming_an_unknown_unit_is_rejected(data_copy: Path) -> None:
    (data_copy / "rules" / "variants" / "bad.yaml").write_text(
        "id: bad\nname: bad\nbase: v3\noverrides:\n  warmechs:\n    ZZ: {def: 6}\n")
    with pytest.raises(DataFileError, match="'ZZ' is not a warmech code of v3"):
        load_rules("bad")
