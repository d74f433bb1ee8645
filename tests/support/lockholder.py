"""Another process holding a DuckDB file, for the lock tests, released by the test itself rather
than after a fixed time, so the tests do not depend on how fast a busy machine runs.

``hold(kind, db)`` starts a process that opens ``db`` (``writer``: the store's writer; ``reader``:
its reader; ``raw``: a bare ``duckdb.connect``, as another program would) and keeps it open until
``release()`` (or a safety limit of ten minutes). ``release_on_wait(monkeypatch, holder)`` makes
the store's own "the file is locked, waiting" moment release it: the waiting connection then
gets in, which proves that it waited, whatever the clock says."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from pmim_analytics.rules.catalogue import REPO_ROOT

HOLD = """
import sys
kind, db = sys.argv[1], sys.argv[2]
if kind == "raw":
    import duckdb
    con = duckdb.connect(db)
    print("holding", file=sys.stderr, flush=True)
    sys.stdin.readline()
    con.close()
else:
    from pmim_analytics.store import open_reader, open_writer
    with (open_writer if kind == "writer" else open_reader)(db):
        print("holding", file=sys.stderr, flush=True)
        sys.stdin.readline()
"""
SAFETY_S = 600  # a hang guard only


class Holder:
    def __init__(self, kind: str, db: Path) -> None:
        self.proc = subprocess.Popen([sys.executable, "-c", HOLD, kind, str(db)], cwd=REPO_ROOT,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        assert self.proc.stderr is not None
        line = self.proc.stderr.readline()
        if "holding" not in line:
            self.proc.kill()
            raise AssertionError(f"the holder did not get the file: {line}{self.proc.stderr.read()}")

    def release(self) -> None:
        """Let go of the file (idempotent)."""
        if self.proc.stdin is not None and not self.proc.stdin.closed:
            try:
                self.proc.stdin.write("\n")
                self.proc.stdin.close()
            except BrokenPipeError:
                pass

    def finish(self) -> None:
        self.release()
        try:
            self.proc.wait(timeout=SAFETY_S)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            raise


def hold(kind: str, db: Path) -> Holder:
    return Holder(kind, db)


def release_on_wait(monkeypatch: pytest.MonkeyPatch, holder: Holder) -> list[str]:
    """Patch the store's connection retry so that its first "locked, waiting" report releases
    ``holder``; returns the list the reports are appended to."""
    from pmim_analytics.store import connection

    seen: list[str] = []
    original = connection._connect_with_retry

    def retry(path: Path, read_only: bool, timeout: float, on_wait: Callable[[str], None] | None):  # noqa: ANN202
        def waited(message: str) -> None:
            seen.append(message)
            holder.release()
            if on_wait is not None:
                on_wait(message)

        return original(path, read_only, timeout, waited)

    monkeypatch.setattr(connection, "_connect_with_retry", retry)
    return seen
