"""Rollups: kept batch by batch at ingest, equal to a recomputation, checked, backfilled."""

from __future__ import annotations

import re
from pathlib import Path

import duckdb
import polars as pl
import pytest
from polars.testing import assert_frame_equal

from pmim_analytics.rules.catalogue import REPO_ROOT
from pmim_analytics.sim.runner import run_batch
from pmim_analytics.store import open_writer, read_frame
from pmim_analytics.store.check import check_db
from pmim_analytics.store.connection import forget_migrated
from pmim_analytics.store.readers import DuckDBData
from pmim_analytics.store.rollups import ROLLUPS, ROLLUPS_SINCE, rebuild_rollups
from tests.sim.test_batch_and_parquet import batch
from tests.support.own import ingest_own

FRAMES = ["unit_sums", "survival_counts", "attack_strata", "side_attack_strata", "matchup_cells", "game_cells",
          "army_rosters", "round_scores", "unit_game_sums"]


@pytest.fixture(scope="module")
def parts(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("rollups") / "b"
    run_batch(batch(games=24, bots=("greedy", "random")), workers=2, out=folder, part_size=4)
    return folder


def frames(db: Path) -> dict[str, pl.DataFrame]:
    data = DuckDBData(db)
    found = {m: getattr(data, m)() for m in FRAMES}
    return {m: f.sort(f.columns, nulls_last=True) for m, f in found.items()}


def test_rollups_kept_batch_by_batch_equal_a_recomputation(tmp_path: Path, parts: Path) -> None:
    db = tmp_path / "x.duckdb"
    for part in range(6):  # six ingest runs: six sets of partial aggregates
        ingest_own([str(parts / f"games.{part:05d}.parquet")], db)
    assert check_db(db).ok
    rows = read_frame("SELECT count(*) AS n FROM rollup_matchup_cells", db=db)["n"].item()
    incremental = frames(db)
    with open_writer(db) as con:
        rebuild_rollups(con)
    assert read_frame("SELECT count(*) AS n FROM rollup_matchup_cells", db=db)["n"].item() < rows
    rebuilt = frames(db)
    for name, frame in incremental.items():
        assert_frame_equal(frame, rebuilt[name], rel_tol=1e-9)  # sums of doubles: order may differ
        assert frame.height > 0, name
    assert incremental["unit_sums"]["games"].max() == 24  # distinct games add up across batches


def test_check_finds_a_rollup_that_no_longer_matches_the_tables(tmp_path: Path, parts: Path) -> None:
    db = tmp_path / "x.duckdb"
    ingest_own([str(parts)], db)
    with open_writer(db) as con:
        gid = con.execute("SELECT min(game_id) FROM games").fetchone()[0]
        for table in ("events", "units", "unit_game_stats", "sides", "games"):
            con.execute(f"DELETE FROM {table} WHERE game_id = ?", [gid])
    found = {f.check for f in check_db(db).findings}
    assert "rollup rollup_matchup_cells differs from the tables" in found
    assert "rollup rollup_side_attack_strata differs from the tables" in found


def test_a_database_from_before_the_rollups_gets_them_on_migration(tmp_path: Path, parts: Path) -> None:
    db = tmp_path / "x.duckdb"
    ingest_own([str(parts)], db)
    expected = frames(db)
    with duckdb.connect(str(db)) as con:  # as the database was before migration 3
        for r in ROLLUPS:
            con.execute(f"DROP TABLE {r.table}")
        con.execute("DELETE FROM schema_version WHERE version >= ?", [ROLLUPS_SINCE])
    forget_migrated()
    with open_writer(db):
        pass
    assert frames(db).keys() == expected.keys()
    for name, frame in frames(db).items():
        assert_frame_equal(frame, expected[name], rel_tol=1e-9)
    assert check_db(db).ok


def test_a_database_from_before_migration_7_gets_the_per_game_unit_sums(tmp_path: Path, parts: Path) -> None:
    db = tmp_path / "x.duckdb"
    ingest_own([str(parts)], db)
    expected = frames(db)
    with duckdb.connect(str(db)) as con:  # as the database was before migration 7
        con.execute("DROP TABLE rollup_unit_game_sums")
        con.execute("DELETE FROM schema_version WHERE version >= 7")
    forget_migrated()
    with open_writer(db):
        pass
    for name, frame in frames(db).items():
        assert_frame_equal(frame, expected[name], rel_tol=1e-9)
    assert check_db(db).ok


def test_the_migration_declares_the_columns_the_code_fills() -> None:
    ddl = "".join(p.read_text(encoding="utf-8") for p in sorted((REPO_ROOT / "sql").glob("*.sql")))
    for r in ROLLUPS:
        body = re.search(rf"CREATE TABLE IF NOT EXISTS {r.table} \((.*?)\);", ddl, re.S)
        assert body, r.table
        text = re.sub(r"--[^\n]*", "", body.group(1))
        cols = tuple(c.split()[0] for c in text.replace("\n", " ").split(",") if c.strip())
        for later in sorted((REPO_ROOT / "sql").glob("0*.sql"))[3:]:  # columns added by later migrations
            cols += tuple(re.findall(rf"ALTER TABLE {r.table} ADD COLUMN (?:IF NOT EXISTS )?(\w+)",
                                     later.read_text(encoding="utf-8")))
        assert cols == r.columns, r.table
