"""The readings in doubt a game was played under are stored with it, and reports keep to the
games played as written (sql/009_game_readings.sql)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from polars.testing import assert_frame_equal

from pmim_analytics.rules.readings import Readings
from pmim_analytics.sim.runner import run_batch
from pmim_analytics.store import open_writer, read_frame
from pmim_analytics.store.check import check_db
from pmim_analytics.store.readers import DuckDBData
from pmim_analytics.store.rollups import rebuild_rollups
from pmim_analytics.store.staging import readings_text
from tests.sim.test_batch_and_parquet import batch
from tests.support.own import ingest_own


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """4 games as written and 2 under ``hit=beat, vp_to_win=10`` (greedy against random)."""
    root = tmp_path_factory.mktemp("readings")
    plain = batch(games=4, bots=("greedy", "random"))
    read = dataclasses.replace(batch(games=2, seed=9, bots=("greedy", "random")),
                               readings=Readings(hit="beat", vp_to_win=10), name="read-batch")
    run_batch(plain, workers=1, out=root / "plain")
    run_batch(read, workers=1, out=root / "read")
    path = root / "x.duckdb"
    ingest_own([str(root / "plain"), str(root / "read")], path)
    return path


def test_the_games_table_keeps_each_games_readings(db: Path) -> None:
    games = read_frame("SELECT batch, readings FROM games ORDER BY batch, game_index", db=db)
    assert games["readings"].to_list() == ["hit=beat, vp_to_win=10"] * 2 + [None] * 4
    assert games["batch"].to_list() == ["read-batch"] * 2 + ["test-batch"] * 4


def test_reports_keep_to_the_games_played_as_written_and_say_how_many_were_left_out(db: Path) -> None:
    data = DuckDBData(db)
    prov = data.provenance()
    assert (prov.games, prov.other_readings) == (4, 2)
    assert "2 games played under other readings in doubt left out" in prov.caption()
    assert data.game_winners().height == 4
    assert data.matchup_cells()["n"].sum() == 2 * 4  # two rows per game, one from each side's view
    assert data.unit_sums()["games"].max() == 4
    assert check_db(db).ok  # the rollups equal a recomputation over the games played as written
    before = data.unit_sums().sort("code")
    with open_writer(db) as con:
        rebuild_rollups(con)
    # sums of doubles: the order they are added in may differ (as in tests/store/test_rollups.py)
    assert_frame_equal(DuckDBData(db).unit_sums().sort("code"), before, rel_tol=1e-9)


def test_readings_text_is_sorted_by_name_and_none_when_as_written() -> None:
    assert readings_text({"vp_to_win": 10, "hit": "beat"}) == "hit=beat, vp_to_win=10"
    assert readings_text({}) is None
    assert readings_text(None) is None
