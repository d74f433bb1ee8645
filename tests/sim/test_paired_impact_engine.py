"""Paired impact on real engine games in a real DuckDB file: a rules copy that changes nothing,
a planted change (the Tyrant at 3 points), and a v2 list translated to v3."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from itertools import combinations
from pathlib import Path

import polars as pl
import pytest
from typer.testing import CliRunner

from pmim_analytics.analytics import tables
from pmim_analytics.cli import app
from pmim_analytics.replay.parquet import write_part
from pmim_analytics.rules import data_dir, load_army, validate_army
from pmim_analytics.rules.catalogue import clear_caches
from pmim_analytics.rules.translate import translate_army
from pmim_analytics.sim.batch import BatchSpec, play_batch_game
from pmim_analytics.store.ingest import ingest_paths
from pmim_analytics.store.readers import DuckDBData

V3_LISTS = ("v3-balanced", "v3-tank-heavy", "v3-mech-heavy")
V2_LISTS = ("v2-playtest-balanced", "v2-playtest1-heavy")
GAMES = 24  # per pairing and rules id


def _play(folder: Path, rules_id: str, rosters: list, seed: int) -> None:
    records = []
    for i, (a, b) in enumerate(combinations(rosters, 2)):
        batch = BatchSpec(rules_id, "take-and-hold", a, b, "greedy", "greedy", seed + 1000 * i, GAMES,
                          name=f"t-{rules_id}")
        records += [play_batch_game(batch, g) for g in range(GAMES)]
    write_part(folder / rules_id, 0, records)


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    root = tmp_path_factory.mktemp("paired")
    data = root / "data"
    for sub in ("rules", "scenarios", "armies"):
        shutil.copytree(data_dir() / sub, data / sub)
    (data / "rules" / "variants" / "v3-copy.yaml").write_text(
        "id: v3-copy\nname: v3 again\nbase: v3\ndescription: the same rules under another id\noverrides: {}\n")
    (data / "rules" / "variants" / "v3-tyrant-3.yaml").write_text(
        "id: v3-tyrant-3\nname: v3 with the Tyrant at 3 points\nbase: v3\ndescription: a planted change\n"
        "overrides:\n  chassis:\n    TY: {pts: 3}\n")
    old = os.environ.get("PMIM_DATA")
    os.environ["PMIM_DATA"] = str(data)
    clear_caches()
    try:
        armies = {n: load_army(data / "armies" / f"{n}.yaml") for n in (*V3_LISTS, *V2_LISTS)}
        for rid, seed in (("v3", 1), ("v3-copy", 2), ("v3-tyrant-3", 3)):
            _play(root / "games", rid, [validate_army(armies[n], rules_id=rid) for n in V3_LISTS], seed)
        _play(root / "games", "v2", [validate_army(armies[n]) for n in V2_LISTS], 4)
        translated = [translate_army(armies[n], "v3").army for n in V2_LISTS]
        (root / "games" / "v3").rename(root / "games" / "v3-main")
        _play(root / "games", "v3", [validate_army(a) for a in translated], 5)
        path = root / "pmim.duckdb"
        result = ingest_paths([root / "games"], path)
        assert result.loaded == 3 * 3 * GAMES + 2 * GAMES
        yield path
    finally:
        if old is None:
            os.environ.pop("PMIM_DATA", None)
        else:
            os.environ["PMIM_DATA"] = old
        clear_caches()


def test_a_copy_of_the_rules_shows_no_significant_change(db: Path) -> None:
    imp = tables.impact_report(DuckDBData(db, ["v3", "v3-copy"]), "v3", "v3-copy")
    pairing = {r["rules_id"]: r for r in imp.pairing.iter_rows(named=True)}
    # the v3 games of the translated v2 lists have no counterpart under the copy
    assert pairing["v3"]["paired"] == 3 * GAMES and pairing["v3"]["list not played"] == GAMES
    assert pairing["v3-copy"]["paired"] == 3 * GAMES and pairing["v3-copy"]["left_out"] == 0
    units = imp.units
    assert units.height >= 8
    for metric in ("vp_share", "vp_per_pt", "damage_per_pt", "survival"):
        flagged = units.filter((pl.col(f"{metric}_diff_lo") > 0) | (pl.col(f"{metric}_diff_hi") < 0)).height
        assert flagged <= 0.05 * units.height + 0.5, (metric, flagged)  # at most 5% (rounded) at the 95% level
    assert imp.compositions.filter(pl.col("significant")).height == 0


def test_a_tyrant_at_3_points_is_detected_with_the_right_sign(db: Path) -> None:
    imp = tables.impact_report(DuckDBData(db, ["v3", "v3-tyrant-3"]), "v3", "v3-tyrant-3")
    ty = imp.units.filter(pl.col("code") == "TY").row(0, named=True)
    assert (ty["pts_a"], ty["pts_b"]) == (6, 3)
    assert ty["vp_per_pt_diff_lo"] > 0 and ty["damage_per_pt_diff_lo"] > 0 and ty["significant"]


def test_a_v2_list_translated_to_v3_is_paired(db: Path) -> None:
    imp = tables.impact_report(DuckDBData(db, ["v2", "v3"]), "v2", "v3")
    pairing = {r["rules_id"]: r for r in imp.pairing.iter_rows(named=True)}
    assert pairing["v2"]["paired"] == GAMES and pairing["v2"]["left_out"] == 0
    assert sorted(imp.compositions["list"]) == ["Balanced (designer, playtests 1 and 2)", "Heavy (Richard, playtest 1)"]
    r = CliRunner().invoke(app, ["report", "impact", "--rules", "v2,v3", "--db", str(db)], env={"COLUMNS": "250"})
    assert r.exit_code == 0, r.output
    assert "Games paired" in r.output and f"{GAMES}" in r.output
    # the dashboard's Compositions diff pairs by list: the same labels under both rules ids
    m = tables.matchup_report(DuckDBData(db, ["v2", "v3"]), key="list")
    both = m.group_by("list", "opp_list").agg(pl.col("rules_id").n_unique().alias("k")).filter(pl.col("k") == 2)
    assert both.height == 2
