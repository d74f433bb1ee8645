"""No orphans: a SIGKILL of ``pmim ingest`` takes every process it started with it, whenever it comes.

Every process the ingest starts (its fork server, the resource tracker, the rules-check
workers) inherits a tag in its environment, so the test finds them even when they were started
a moment before the kill and reparented after it. The ingest is killed at several moments: at
once, while its helpers are still starting, at a fixed short delay, and paused before its first
commit with the worker pool running (``PMIM_TEST_PAUSE_BEFORE_COMMIT``). Whatever it had
started must be gone within a generous wait (a guard against a hang, not a speed check); the
seconds it took are printed.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
import uuid
from pathlib import Path

import pytest

from pmim_analytics.replay.parquet import write_part
from pmim_analytics.rules import load_army, validate_army
from pmim_analytics.rules.catalogue import REPO_ROOT
from pmim_analytics.sim.batch import BatchSpec, play_batch_game
from tests.adversarial.test_cli_attacks import PMIM, _cap
from tests.conftest import ARMIES

HANG = 60  # seconds: a guard against a hang, never a speed check


def tagged(tag: str) -> set[int]:
    """The live processes (zombies left out: they run nothing) whose environment holds ``tag``."""
    out = set()
    needle = f"PMIM_TEST_TAG={tag}".encode()
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
            if stat[stat.rindex(")") + 2] == "Z":
                continue
            if needle in Path(f"/proc/{entry}/environ").read_bytes().split(b"\0"):
                out.add(int(entry))
        except OSError:
            continue
    return out


@pytest.fixture(scope="module")
def batch(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("orphans") / "batch"
    a = validate_army(load_army(ARMIES / "v3-balanced.yaml"), "v3")
    b = validate_army(load_army(ARMIES / "v3-tank-heavy.yaml"), "v3")
    spec = BatchSpec("v3", "take-and-hold", a, b, "random", "random", seed=2, games=4)
    write_part(folder, 0, [play_batch_game(spec, n) for n in range(4)])
    return folder


def _ingest(batch: Path, db: Path, tag: str) -> subprocess.Popen[str]:
    return subprocess.Popen([PMIM, "ingest", str(batch), "--db", str(db), "--workers", "3", "-q"], cwd=REPO_ROOT,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, preexec_fn=_cap,
                            env={**os.environ, "PMIM_TEST_TAG": tag, "PMIM_TEST_PAUSE_BEFORE_COMMIT": "1:120"})


def _kill_and_wait(proc: subprocess.Popen[str], tag: str, moment: str) -> None:
    started = tagged(tag) - {proc.pid}
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    killed = time.monotonic()
    started |= tagged(tag)
    left = tagged(tag)
    while left and time.monotonic() - killed < HANG:
        time.sleep(0.05)
        left = tagged(tag)
    print(f"killed {moment}: {len(started)} helper process(es) had started; "
          f"all gone {time.monotonic() - killed:.2f} s after the SIGKILL")
    for pid in left:  # never leave them behind, even when the test fails
        os.kill(pid, signal.SIGKILL)
    assert not left, f"killed {moment}: {len(left)} process(es) outlived the ingest"


@pytest.mark.parametrize("moment", ["at once", "as its first helper starts", "after 1 s"])
def test_an_ingest_killed_while_starting_leaves_nothing_running(batch: Path, tmp_path: Path, moment: str) -> None:
    tag = uuid.uuid4().hex
    proc = _ingest(batch, tmp_path / "pmim.duckdb", tag)
    deadline = time.monotonic() + HANG
    if moment == "as its first helper starts":
        while not tagged(tag) - {proc.pid} and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.005)
    elif moment == "after 1 s":
        time.sleep(1.0)
    _kill_and_wait(proc, tag, moment)


def test_an_ingest_killed_with_its_pool_at_work_leaves_no_worker_running(batch: Path, tmp_path: Path) -> None:
    tag = uuid.uuid4().hex
    proc = _ingest(batch, tmp_path / "pmim.duckdb", tag)
    assert proc.stderr is not None
    deadline = time.monotonic() + 120
    while "pausing before commit 1" not in proc.stderr.readline():
        assert proc.poll() is None and time.monotonic() < deadline, "the ingest never reached its commit"
    while len(tagged(tag) - {proc.pid}) < 3 and time.monotonic() < deadline:  # fork server, tracker, workers
        time.sleep(0.05)
    assert len(tagged(tag) - {proc.pid}) >= 3, "the worker pool never started"
    _kill_and_wait(proc, tag, "paused before its first commit, the pool started")
