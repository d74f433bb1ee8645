"""Faults and concurrency, for real: subprocesses on a real DuckDB file.

- An ingest SIGKILLed while it creates the database leaves none (a new database is built
  beside its path and linked into place whole); the next run creates it.
- An ingest SIGKILLed inside a batch's transaction leaves a database that opens and
  checks out, holding only whole batches; running it again completes it, no duplicates.
- Ctrl-C (SIGINT) rolls the batch in flight back and exits 130.
- A reader waits while an ingest holds the file and gives up with a clear message;
  the ingest waits for readers likewise; a dashboard polling during a long ingest never
  fails and only ever sees whole batches.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import duckdb
import pytest

from pmim_analytics.errors import StoreError
from pmim_analytics.rules.catalogue import REPO_ROOT
from pmim_analytics.store import open_writer, read_frame
from pmim_analytics.store.check import check_db
from pmim_analytics.store.ingest import PAUSE_HOOK_ENV
from tests.store.conftest import write_games
from tests.support.lockholder import SAFETY_S, hold, release_on_wait
from tests.support.own import ingest_own
from tests.support.synthetic import iter_games

PMIM = str(Path(sys.executable).with_name("pmim"))


def _python(code: str, env: dict[str, str] | None = None) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-c", code], cwd=REPO_ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env={**os.environ, **(env or {})})


def _wait_for(proc: subprocess.Popen, marker: str, timeout: float = 300) -> None:
    """Read the child's stderr until ``marker`` shows up."""
    deadline = time.monotonic() + timeout
    assert proc.stderr is not None
    while time.monotonic() < deadline:
        line = proc.stderr.readline()
        if marker in line:
            return
        if not line and proc.poll() is not None:
            raise AssertionError(f"child ended before {marker!r}: {proc.stderr.read()}")
    raise AssertionError(f"no {marker!r} within {timeout} s")


@pytest.fixture(scope="module")
def replays(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("replays")
    write_games(folder, iter_games(60, seed=500))
    return folder


def _games(db: Path) -> int:
    return read_frame("SELECT count(*) FROM games", db=db).item()


def test_sigkill_inside_a_transaction_leaves_whole_batches_and_a_rerun_completes(replays: Path, db: Path) -> None:
    code = (f"from tests.support.own import ingest_own; "
            f"ingest_own([{str(replays)!r}], {str(db)!r}, batch_files=20)")
    proc = _python(code, {PAUSE_HOOK_ENV: "2:60"})
    _wait_for(proc, "pausing before commit 2")  # batch 1 committed, batch 2 inserted but not committed
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=300)
    assert proc.returncode == -signal.SIGKILL
    report = check_db(db)
    assert report.ok, report.findings
    assert report.games == 20
    again = ingest_own([replays], db)
    assert (again.loaded, again.duplicates, again.rejected) == (40, 20, [])
    report = check_db(db)
    assert report.ok and report.games == 60
    assert read_frame("SELECT count(*) = count(DISTINCT game_id) FROM games", db=db).item()


def test_sigkill_while_creating_the_database_leaves_none_and_a_rerun_creates_it(replays: Path, db: Path) -> None:
    # the child stops inside the creation (its schema built, the rules tables next) until killed
    code = ("import sys, time\n"
            "import pmim_analytics.store.migrate as m\n"
            "def stop(con, **kw):\n"
            "    print('creating the database', file=sys.stderr, flush=True)\n"
            "    time.sleep(60)\n"
            "m.load_rules_tables = stop\n"
            "from tests.support.own import ingest_own\n"
            f"ingest_own([{str(replays)!r}], {str(db)!r})\n")
    proc = _python(code)
    _wait_for(proc, "creating the database")
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=300)
    assert not db.exists(), "a killed creation left a database without its tables"
    left = sorted(p.name for p in db.parent.iterdir())
    assert left and all(name.startswith(f".{db.name}.{proc.pid}.creating") for name in left), left
    with pytest.raises(StoreError, match="no database here yet"):
        check_db(db)
    result = ingest_own([replays], db)
    assert (result.loaded, result.rejected) == (60, [])
    assert sorted(p.name for p in db.parent.iterdir() if ".creating" in p.name) == []
    report = check_db(db)
    assert report.ok and report.games == 60


def test_sigkill_at_any_moment_never_leaves_a_broken_database(replays: Path, db: Path) -> None:
    # Small batches; each run is killed while a batch's transaction is written but not yet
    # committed (the ingest's test hook pauses there and says so), so each kill lands mid-run
    # however slowly a busy machine runs it.
    code = (f"from tests.support.own import ingest_own; "
            f"ingest_own([{str(replays)!r}], {str(db)!r}, batch_files=5, yield_every=0)")
    counts = []
    for commit in (2, 3, 4):
        proc = _python(code, env={PAUSE_HOOK_ENV: f"{commit}:600"})
        _wait_for(proc, f"pausing before commit {commit}")
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=300)
        if db.exists():
            report = check_db(db)
            assert report.ok, report.findings
            assert report.games % 5 == 0, "a killed run left part of a batch"
            counts.append(report.games)
    assert counts and counts[-1] < 60, "the runs should have been killed before the end"
    ingest_own([replays], db)
    report = check_db(db)
    assert report.ok and report.games == 60


def test_ctrl_c_rolls_back_the_batch_in_flight(replays: Path, db: Path) -> None:
    proc = subprocess.Popen([PMIM, "ingest", "--trust-own", str(replays), "--db", str(db), "-q"], cwd=REPO_ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, PAUSE_HOOK_ENV: "1:60"})
    _wait_for(proc, "pausing before commit 1")
    proc.send_signal(signal.SIGINT)
    out, errs = proc.communicate(timeout=300)
    assert proc.returncode == 130
    assert "rolled back" in errs and "loaded 0 games" in out
    assert check_db(db).ok and _games(db) == 0
    assert ingest_own([replays], db).loaded == 60


def test_a_reader_waits_for_the_writer_then_reads(db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with open_writer(db):
        pass
    holder = hold("writer", db)
    try:
        waits = release_on_wait(monkeypatch, holder)  # the reader's wait releases the writer
        assert read_frame("SELECT count(*) FROM games", db=db, timeout=SAFETY_S).item() == 0
        assert waits and "locked" in waits[0], "the read should have waited for the writer"
    finally:
        holder.finish()


def test_a_reader_gives_up_with_a_clear_message(db: Path) -> None:
    with open_writer(db):
        pass
    holder = hold("writer", db)  # held until the reader has given up
    try:
        with pytest.raises(StoreError) as info:
            read_frame("SELECT 1", db=db, timeout=0.5)
        assert "locked" in info.value.message and "ingest may be running" in info.value.message
        assert isinstance(info.value.__cause__, duckdb.Error)
    finally:
        holder.finish()


def test_the_writer_waits_for_readers(tmp_path: Path, db: Path) -> None:
    write_games(tmp_path / "in", iter_games(3, seed=7))
    with open_writer(db):
        pass
    holder = hold("reader", db)
    waits: list[str] = []
    try:
        result = ingest_own([tmp_path / "in"], db, on_wait=lambda m: (waits.append(m), holder.release()))
    finally:
        holder.finish()
    assert result.loaded == 3
    assert waits and "locked" in waits[0]


def test_a_dashboard_polling_during_a_long_ingest_sees_only_whole_batches(replays: Path, db: Path) -> None:
    with open_writer(db):
        pass
    code = (f"from tests.support.own import ingest_own; "
            f"ingest_own([{str(replays)!r}], {str(db)!r}, batch_files=10, yield_every=0)")
    proc = _python(code)
    seen: list[int] = []
    while proc.poll() is None:
        seen.append(read_frame("SELECT count(*) FROM games", db=db, timeout=300).item())
        time.sleep(0.02)
    assert proc.returncode == 0, proc.stderr.read() if proc.stderr else ""
    seen.append(_games(db))
    assert seen == sorted(seen) and seen[-1] == 60
    assert all(n % 10 == 0 for n in seen), "a reader saw part of a batch"
    assert len(set(seen) - {0, 60}) >= 1, "the reader never got in during the ingest"
