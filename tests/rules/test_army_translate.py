"""`pmim army translate`: renames, re-pricing, what does not exist or fit, and the record of the origin."""

from __future__ import annotations

from pathlib import Path

import yaml
from typer.testing import CliRunner

from pmim_analytics.cli import app
from pmim_analytics.rules import build_roster, data_dir, load_army
from pmim_analytics.rules.army import ArmyEntry, ArmyList
from pmim_analytics.rules.translate import default_output, format_army_yaml, translate_army

runner = CliRunner()


def test_a_v2_list_translates_to_v3_exactly_and_keeps_its_list_key() -> None:
    army = load_army(data_dir() / "armies" / "v2-playtest-balanced.yaml")
    t = translate_army(army, "v3")
    assert t.is_exact and t.army.rules == "v3"
    assert "unit 7 (GEV): weapon L. Particle Cannon is now L. Particle Beam" in t.changes
    v2, v3 = build_roster(army), build_roster(t.army)
    assert v2.list_key() == v3.list_key() and v2.content_hash() != v3.content_hash()
    assert t.army.translated_from is not None
    assert (t.army.translated_from.rules, t.army.translated_from.army_hash) == ("v2", v2.content_hash())


def test_renames_points_and_what_no_longer_exists() -> None:
    army = ArmyList(name="Old", rules="v3", units=(
        ArmyEntry(type="Tyrant", weapons=("HAC",)),            # Mastodon in v1
        ArmyEntry(type="Beetle", weapons=("LAC",), count=2),   # 3 points in v3, 4 in v1
        ArmyEntry(type="Leopard", weapons=("LPB", "MG")),      # no Leopard in v1
        ArmyEntry(type="Infantry", weapons=("LPC",)),          # no L. Plasma Cannon in v1
    ))
    t = translate_army(army, "v1", scenario_id=None)
    assert "unit 1 (Tyrant): Tyrant is now Mastodon" in t.changes
    assert "unit 2 (Beetle): 3 -> 4 points each (x2)" in t.changes
    assert "unit 3 (Leopard): v1 has no Leopard (code LE); left out" in t.findings
    assert "unit 4 (Infantry): v1 has no L. Plasma Cannon (LPC); unit left out" in t.findings
    assert [e.type for e in t.army.units] == ["Mastodon", "Beetle"]


def test_a_list_that_no_longer_fits_the_limits() -> None:
    army = load_army(data_dir() / "armies" / "v3-fast-gev.yaml")
    t = translate_army(army, "v1")
    assert any("requires exactly 2 Warmechs" in f for f in t.findings)


def test_the_yaml_reads_back_as_the_same_list(tmp_path: Path) -> None:
    army = load_army(data_dir() / "armies" / "v2-playtest-balanced.yaml")
    t = translate_army(army, "v3", file="data/armies/v2-playtest-balanced.yaml")
    p = tmp_path / "x.yaml"
    p.write_text(format_army_yaml(t.army), encoding="utf-8")
    again = load_army(p)
    assert again == t.army
    assert yaml.safe_load(p.read_text())["translated_from"]["file"] == "data/armies/v2-playtest-balanced.yaml"
    assert default_output(Path("a/v2-x.yaml"), "v2", "v3") == Path("a/v3-x.yaml")
    assert default_output(Path("a/mine.yaml"), "v2", "v3") == Path("a/mine-v3.yaml")


def test_cli_writes_the_file_and_exits_by_findings(tmp_path: Path) -> None:
    src = data_dir() / "armies" / "v2-playtest-balanced.yaml"
    dest = tmp_path / "v3-balanced.yaml"
    r = runner.invoke(app, ["army", "translate", str(src), "--to", "v3", "--out", str(dest)])
    assert r.exit_code == 0, r.output
    assert load_army(dest).rules == "v3"
    again = runner.invoke(app, ["army", "translate", str(src), "--to", "v3", "--out", str(dest)])
    assert again.exit_code == 2 and "--force" in again.output
    worse = runner.invoke(app, ["army", "translate", str(data_dir() / "armies" / "v3-fast-gev.yaml"), "--to", "v1",
                                "--out", str(tmp_path / "old.yaml")])
    assert worse.exit_code == 1 and (tmp_path / "old.yaml").exists()
    bad = runner.invoke(app, ["army", "translate", str(src), "--to", "v9", "--out", str(tmp_path / "n.yaml")])
    assert bad.exit_code == 2 and not (tmp_path / "n.yaml").exists()
