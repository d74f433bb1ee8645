"""No orphans: a SIGKILL of ``pmim ingest`` takes its rules-check workers with it.

The ingest is paused before its first commit (``PMIM_TEST_PAUSE_BEFORE_COMMIT``) with its
worker pool started (a Parquet batch starts it at once), killed with SIGKILL, and every
process it had started must be gone within a generous wait (a guard, not a speed check).
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

from pmim_analytics.replay.parquet import write_part
from pmim_analytics.replay.rules_check import PARENT_WATCH_SECONDS
from pmim_analytics.rules import load_army, validate_army
from pmim_analytics.rules.catalogue import REPO_ROOT
from pmim_analytics.sim.batch import BatchSpec, play_batch_game
from tests.adversarial.test_cli_attacks import PMIM, _cap
from tests.conftest import ARMIES


def _children() -> dict[int, int]:
    """pid -> parent pid of every live process (zombies left out: they run nothing)."""
    out = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2:].split()
        if fields[0] != "Z":
            out[int(entry)] = int(fields[1])
    return out


def _descendants(root: int) -> set[int]:
    parents = _children()
    found, frontier = set(), {root}
    while frontier:
        frontier = {pid for pid, ppid in parents.items() if ppid in frontier} - found
        found |= frontier
    return found


def _alive(pids: set[int]) -> set[int]:
    live = _children()
    return {p for p in pids if p in live}


def test_a_sigkilled_ingest_leaves_no_worker_running(tmp_path: Path) -> None:
    a = validate_army(load_army(ARMIES / "v3-balanced.yaml"), "v3")
    b = validate_army(load_army(ARMIES / "v3-tank-heavy.yaml"), "v3")
    batch = BatchSpec("v3", "take-and-hold", a, b, "random", "random", seed=2, games=4)
    write_part(tmp_path / "batch", 0, [play_batch_game(batch, n) for n in range(4)])
    proc = subprocess.Popen([PMIM, "ingest", str(tmp_path / "batch"), "--db", str(tmp_path / "pmim.duckdb"),
                             "--workers", "3", "-q"], cwd=REPO_ROOT, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True, preexec_fn=_cap,
                            env={**os.environ, "PMIM_TEST_PAUSE_BEFORE_COMMIT": "1:120"})
    assert proc.stderr is not None
    deadline = time.monotonic() + 120
    while "pausing before commit 1" not in proc.stderr.readline():
        assert proc.poll() is None and time.monotonic() < deadline, "the ingest never reached its commit"
    workers: set[int] = set()
    while len(workers) < 3 and time.monotonic() < deadline:  # the fork server and two workers
        workers = _descendants(proc.pid)
        time.sleep(0.1)
    assert len(workers) >= 3, f"the worker pool never started: {workers}"
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    killed = time.monotonic()
    while _alive(workers) and time.monotonic() - killed < 30:
        time.sleep(0.1)
    left = _alive(workers)
    print(f"workers gone {time.monotonic() - killed:.2f} s after the SIGKILL (watch every {PARENT_WATCH_SECONDS} s)")
    for pid in left:  # never leave them behind, even when the test fails
        os.kill(pid, signal.SIGKILL)
    assert not left, f"{len(left)} worker(s) outlived the ingest"
