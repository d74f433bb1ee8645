"""Simulate, then ingest: ``pipeline.simulate_and_ingest`` (the one function the CLI, the
dashboard's Simulate and What-if pages and the demo use) and ``pmim simulate --ingest``."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import duckdb
import pytest

from pmim_analytics.errors import PmimError
from pmim_analytics.pipeline import COMPLETE_MARKER, SimRun, simulate_and_ingest
from pmim_analytics.rules import DEFAULT_SCENARIO, load_army, validate_army
from pmim_analytics.rules.catalogue import REPO_ROOT
from pmim_analytics.sim.batch import BatchSpec

PMIM = str(Path(sys.executable).with_name("pmim"))
ARMIES = REPO_ROOT / "data" / "armies"


def _games(db: Path) -> int:
    with duckdb.connect(str(db), read_only=True) as con:
        return int(con.execute("SELECT count(*) FROM games").fetchall()[0][0])


def _batch(games: int, seed: int) -> BatchSpec:
    a, b = (validate_army(load_army(ARMIES / f"v3-{n}.yaml"), rules_id="v3") for n in ("balanced", "tank-heavy"))
    return BatchSpec("v3", DEFAULT_SCENARIO, a, b, "random", "random", seed, games, name=f"pipe-s{seed}")


def test_two_batches_are_played_marked_and_ingested_once(tmp_path: Path) -> None:
    db = tmp_path / "pmim.duckdb"
    runs = [SimRun(_batch(3, 1), tmp_path / "one", part_size=2), SimRun(_batch(2, 2), tmp_path / "two")]
    seen: list[tuple[int, int, int]] = []
    first = simulate_and_ingest(runs, db, skip_complete=True,
                                progress=lambda k, done, total: seen.append((k, done, total)))
    assert [s.games for s in first.summaries if s is not None] == [3, 2]
    assert first.ingest is not None and first.ingest.loaded == 5 and first.ingest.ok
    assert first.folders == (tmp_path / "one", tmp_path / "two")
    assert all((f / COMPLETE_MARKER).read_text() for f in first.folders)
    assert seen[-1] == (1, 2, 2) and (0, 3, 3) in seen
    assert _games(db) == 5
    # again, skipping complete folders: nothing is played, the ingest finds only duplicates
    again = simulate_and_ingest(runs, db, skip_complete=True)
    assert again.summaries == (None, None)
    assert again.ingest is not None and again.ingest.loaded == 0 and again.ingest.duplicates == 5
    assert _games(db) == 5


def test_without_ingest_nothing_is_stored_and_a_run_to_ingest_needs_a_folder(tmp_path: Path) -> None:
    db = tmp_path / "pmim.duckdb"
    done = simulate_and_ingest([SimRun(_batch(2, 3), None)], db, ingest=False)
    assert done.ingest is None and done.folders == () and not db.exists()
    assert done.summaries[0] is not None and done.summaries[0].games == 2
    out = tmp_path / "only"
    simulate_and_ingest([SimRun(_batch(2, 3), out)], db, ingest=False)  # no marker without skip_complete
    assert out.is_dir() and not (out / COMPLETE_MARKER).exists()
    with pytest.raises(PmimError, match="needs a folder"):
        simulate_and_ingest([SimRun(_batch(2, 3), None)], db)


def test_pmim_simulate_ingest_loads_the_games_it_played(tmp_path: Path) -> None:
    db, out = tmp_path / "pmim.duckdb", tmp_path / "sims"
    args = [PMIM, "simulate", "--blue", str(ARMIES / "v3-balanced.yaml"), "--red", str(ARMIES / "v3-fast-gev.yaml"),
            "--games", "4", "--workers", "1", "--blue-bot", "random", "--red-bot", "random"]
    r = subprocess.run([*args, "--out", str(out), "--ingest", "--db", str(db)], capture_output=True, text=True,
                       timeout=600)  # a hang guard, not a speed check
    assert r.returncode == 0, r.stderr
    assert "loaded 4 games" in r.stdout and "rejected 0" in r.stdout
    assert _games(db) == 4 and (out / "pmim-signed.json").exists()
    bad = subprocess.run([*args, "--ingest"], capture_output=True, text=True, timeout=600)
    assert bad.returncode == 2 and "--ingest needs --out" in bad.stderr and "Traceback" not in bad.stderr
