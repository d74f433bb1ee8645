"""Optional rules in variant files: typed settings, one positioned error per mistake, listed by show/diff."""

from __future__ import annotations

from pathlib import Path

import pytest

from pmim_analytics.errors import DataFileError
from pmim_analytics.rules import load_rules
from pmim_analytics.rules.catalogue import clear_caches
from pmim_analytics.rules.diff import diff_rules
from tests.support.cli import pmim_in_process  # CLI output is the point here, not the process


def write_variant(data_copy: Path, body: str) -> Path:
    path = data_copy / "rules" / "variants" / "v3-try.yaml"
    path.write_text("id: v3-try\nname: try\nbase: v3\n" + body)
    clear_caches()
    return path


def test_sample_variants_switch_on_one_rule_each() -> None:
    assert load_rules("v3").optional.names() == []
    assert load_rules("v3-heat").optional.names() == ["heat"]
    assert load_rules("v3-rolled-initiative").optional.names() == ["rolled_initiative"]
    assert load_rules("v3-catch-up").optional.names() == ["catch_up"]
    assert load_rules("v3-rush").optional.names() == ["rush"]


def test_heat_ratings_and_costs_resolve_by_class_tonnage_and_override(data_copy: Path) -> None:
    write_variant(data_copy, "optional_rules:\n  heat:\n    ratings: {heavy: 6, medium: 5, light: 4, ultralight: 3}\n"
                             "    warmechs: {PA: 9}\n    weapons: {GG: 7}\n")
    r = load_rules("v3-try")
    heat = r.optional.heat
    assert heat is not None
    assert heat.rating_of(r, "PA") == 9  # its own
    assert heat.rating_of(r, "MJ") == 6  # heavy
    assert heat.rating_of(r, "TW") == 5  # medium
    assert heat.rating_of(r, "SH") == 3  # Shrew, 20 tons: ultralight
    assert [heat.heat_of(r, w) for w in ("LL", "ML", "HL", "GG")] == [1, 2, 3, 7]


@pytest.mark.parametrize(("body", "line", "field", "reason"), [
    ("optional_rules:\n  heet: {}\n", 5, "optional_rules.heet",
     "unknown optional rule 'heet'; known: heat, rolled_initiative, catch_up, rush"),
    ("optional_rules:\n  rolled_initiative: {dice: 6}\n", 5, "optional_rules.rolled_initiative.dice",
     "unknown setting of rolled_initiative 'dice'; known: die"),
    ("optional_rules:\n  rolled_initiative:\n    die: six\n", 6, "optional_rules.rolled_initiative.die",
     "valid integer"),
    ("optional_rules:\n  catch_up: {ratio: 1}\n", 5, "optional_rules.catch_up.ratio", "greater than or equal to 2"),
    ("optional_rules:\n  heat:\n    ratings: {heavy: -1, medium: 4, light: 3, ultralight: 2}\n", 6,
     "optional_rules.heat.ratings.heavy", "greater than or equal to 0"),
    ("optional_rules:\n  heat:\n    ratings: {heavy: 5, medium: 4, light: 3}\n", 6, "optional_rules.heat.ratings",
     "no heat rating for Ripper (RI, ultralight)"),
    ("optional_rules:\n  heat:\n    ratings: {heavy: 5, medium: 4, light: 3, ultralight: 2}\n"
     "    weapons: {ZZ: 3}\n", 7, "optional_rules.heat.weapons.ZZ", "'ZZ' is not a weapon code of v3-try"),
    ("optional_rules:\n  rush: true\n", 5, "optional_rules.rush", "must be a mapping"),
    ("optional_rules: [heat]\n", 4, "optional_rules", "must be a mapping of rule names"),
])
def test_a_bad_optional_rule_is_one_error_with_file_line_and_key(data_copy: Path, body: str, line: int, field: str,
                                                                 reason: str) -> None:
    write_variant(data_copy, body)
    with pytest.raises(DataFileError) as exc:
        load_rules("v3-try")
    message = exc.value.render()
    assert "v3-try.yaml" in message
    assert exc.value.where is not None
    assert exc.value.where.line == line
    assert exc.value.where.field == field
    assert reason in message


def test_the_cli_says_it_in_one_sentence_and_exits_2(data_copy: Path) -> None:
    write_variant(data_copy, "optional_rules:\n  heet: {}\n")
    proc = pmim_in_process("rules", "show", "v3-try", env={"PMIM_DATA": str(data_copy)})
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
    assert "line 5" in proc.stderr and "unknown optional rule 'heet'" in proc.stderr


def test_a_variant_of_a_variant_keeps_its_bases_optional_rules(data_copy: Path) -> None:
    write_variant(data_copy, "optional_rules:\n  rush: {}\n")
    (data_copy / "rules" / "variants" / "v3-try2.yaml").write_text(
        "id: v3-try2\nname: try2\nbase: v3-try\noptional_rules:\n  catch_up: {}\n")
    clear_caches()
    assert load_rules("v3-try2").optional.names() == ["catch_up", "rush"]


def test_diff_lists_optional_rules_switched_on_off_and_changed() -> None:
    on = diff_rules(load_rules("v3"), load_rules("v3-rolled-initiative"))
    assert [(c.table, c.item, c.what, c.old, c.new) for c in on] == [
        ("optional rule", "rolled initiative", "switched on", "-", "die=6")]
    swap = diff_rules(load_rules("v3-rush"), load_rules("v3-catch-up"))
    assert {(c.item, c.what) for c in swap} == {("catch up", "switched on"), ("rush", "switched off")}


def test_rules_show_lists_the_optional_rules_as_data() -> None:
    proc = pmim_in_process("rules", "show", "v3-catch-up", "--format", "json")
    assert proc.returncode == 0, proc.stderr
    import json
    data = json.loads(proc.stdout)
    assert data["optional_rules"] == [{"rule": "catch_up", "settings": "ratio=2, activations=2"}]


def test_a_table_log_under_heat_needs_its_overheat_rolls(tmp_path: Path) -> None:
    # the sample detailed log has the Grumbler fire its Gauss gun and M. Autocannon in one
    # activation: 4 + 2 heat against a heavy Warmech's rating of 5 under v3-heat, so a roll is due
    root = Path(__file__).resolve().parents[2]
    text = (root / "data" / "playtests" / "sample-detailed-v3.pmimlog").read_text().replace("rules: v3\n",
                                                                                              "rules: v3-heat\n")
    log = tmp_path / "heat.pmimlog"
    log.write_text(text)
    proc = pmim_in_process("log", "check", str(log), cwd=root)
    assert proc.returncode == 1, (proc.stdout, proc.stderr)
    out = proc.stdout + proc.stderr
    assert "took it 1 over its heat rating" in out and "'B:GR1 MAC overheat D6'" in out and "Traceback" not in out
