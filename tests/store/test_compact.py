"""``pmim db compact``: the file shrinks after deletes, every row and constraint stays."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest
from typer.testing import CliRunner

from pmim_analytics.cli import app
from pmim_analytics.errors import StoreError
from pmim_analytics.sim.runner import run_batch
from pmim_analytics.store import open_writer, read_frame
from pmim_analytics.store.check import check_db
from pmim_analytics.store.compact import compact_db, file_bytes
from pmim_analytics.store.rollups import rebuild_rollups
from tests.sim.test_batch_and_parquet import batch
from tests.support.own import ingest_own

runner = CliRunner()


@pytest.fixture(scope="module")
def parts(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("compact") / "b"
    run_batch(batch(games=60), workers=2, out=folder, part_size=10)
    return folder


def test_compact_gives_back_the_space_of_deleted_games_and_keeps_the_rest(tmp_path: Path, parts: Path) -> None:
    db = tmp_path / "x.duckdb"
    assert ingest_own([str(parts)], db).loaded == 60
    with open_writer(db) as con:  # forget most games, as a clean-up would
        for table in ("events", "units", "unit_game_stats", "sides"):
            con.execute(f"DELETE FROM {table} WHERE game_id IN (SELECT game_id FROM games ORDER BY game_id "
                        "LIMIT 50)")
        con.execute("DELETE FROM games WHERE game_id IN (SELECT game_id FROM games ORDER BY game_id LIMIT 50)")
        rebuild_rollups(con)
    kept = read_frame("SELECT game_id FROM games ORDER BY game_id", db=db)["game_id"].to_list()
    events = read_frame("SELECT count(*) AS n FROM events", db=db)["n"].item()
    before = file_bytes(db)
    result = compact_db(db)
    assert result.before_bytes == before and result.after_bytes == file_bytes(db) < before
    assert read_frame("SELECT game_id FROM games ORDER BY game_id", db=db)["game_id"].to_list() == kept
    assert read_frame("SELECT count(*) AS n FROM events", db=db)["n"].item() == events
    assert check_db(db).ok
    assert not list(tmp_path.glob("*.tmp*"))
    with duckdb.connect(str(db), read_only=True) as con:  # the primary key came along: duplicates still refused
        keys = con.execute("SELECT count(*) FROM duckdb_constraints() WHERE table_name = 'games' "
                           "AND constraint_type = 'PRIMARY KEY'").fetchone()[0]
    assert keys == 1
    assert ingest_own([str(parts)], db).duplicates == 10  # the games kept are still recognised


def test_cli_compact(tmp_path: Path, parts: Path) -> None:
    db = tmp_path / "y.duckdb"
    ingest_own([str(parts)], db)
    r = runner.invoke(app, ["db", "compact", "--db", str(db)])
    assert r.exit_code == 0 and "rewritten:" in r.output and " MB -> " in r.output
    r = runner.invoke(app, ["db", "compact", "--db", str(db), "--checkpoint-only"])
    assert r.exit_code == 0 and "checkpointed:" in r.output
    r = runner.invoke(app, ["db", "compact", "--db", str(tmp_path / "none.duckdb")])
    assert r.exit_code == 2 and "no database here yet" in r.output
    with pytest.raises(StoreError):
        compact_db(tmp_path / "none.duckdb")
