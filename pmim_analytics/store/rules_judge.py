"""The ingest's rules check: every staged game replayed through the rules, on every core.

After a batch is staged and its set-based checks have run, the events of the games about
to be stored are read back from the staging tables (the very rows that will be inserted)
and handed, in chunks, to worker processes that replay them through the rules
(:func:`pmim_analytics.replay.rules_check.check_staged`, the judge of ``pmim replay
verify``). A small batch is checked in this process: starting workers costs more.

Workers die with the ingest, a SIGKILL included: the fork server is started from the main
thread and both it and each worker have the kernel kill them when their parent dies
(:mod:`pmim_analytics.lifeline`); each worker also watches the ingest itself.

Workers ignore SIGINT: Ctrl-C reaches the ingest itself, which drops the pool at once. When
the ingest has nothing left to do but wait for verdicts, it checks the chunks no worker has
started on itself (last first), so its core is not idle at the end of a batch.

Workers are forked from a fork server (a fresh interpreter, started with the pool, never a
fork of the ingest with its DuckDB threads) that has imported the rules check and the program's
main module once: each worker starts at once instead of importing everything again (with
``spawn``, every worker of ``pmim ingest`` re-imported the whole command line interface).
"""

from __future__ import annotations

import io
import multiprocessing
import os
import threading
from concurrent.futures import Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from typing import Any

import duckdb
import numpy as np
import pyarrow as pa

from pmim_analytics.lifeline import start_fork_server
from pmim_analytics.replay.rules_check import StagedVerdict, arrow_ints, check_staged, start_worker, warm_up
from pmim_analytics.store.staging import EVENT_STAGE_COLUMNS

#: Below this many events a batch is checked in the ingest's own process.
INLINE_EVENTS = 30_000
#: Chunks per worker, so a slow chunk does not leave a core idle at the end.
CHUNKS_PER_WORKER = 8

_COLUMNS = ", ".join(f'"{c}"' for c, _ in EVENT_STAGE_COLUMNS)
#: What the fork server imports before it forks workers: what a worker runs, and the main module
#: (as Python's own default; unpickling a task may need it).
PRELOAD = ["__main__", "pmim_analytics.replay.rules_check", "pyarrow"]


def _context() -> multiprocessing.context.BaseContext:
    """The workers' start method: ``forkserver`` where the platform has it, else ``spawn``."""
    if "forkserver" in multiprocessing.get_all_start_methods():
        ctx = multiprocessing.get_context("forkserver")
        ctx.set_forkserver_preload(PRELOAD)
        return ctx
    return multiprocessing.get_context("spawn")


def _start_fork_server() -> None:
    """Start the fork server from this thread if it is the main one, so that the server and its
    workers die with the ingest even under SIGKILL (:mod:`pmim_analytics.lifeline`)."""
    if _context().get_start_method() == "forkserver":
        try:
            start_fork_server()
        except (RuntimeError, OSError):  # no fork server here: the pool tries again, then checks inline
            pass


def _ipc(table: pa.Table) -> bytes:
    sink = io.BytesIO()
    with pa.ipc.new_stream(sink, table.schema) as w:
        w.write_table(table)
    return sink.getvalue()


def _by_game_and_line(table: pa.Table) -> pa.Table:
    """The rows sorted by ``g`` then ``line``: as staged they usually are already (DuckDB keeps
    the insertion order), which is checked in one pass instead of sorting them again."""
    if table.column("g").null_count or table.column("line").null_count:
        return table.sort_by([("g", "ascending"), ("line", "ascending")])  # nulls last, as ORDER BY
    g, line = arrow_ints(table.column("g")), arrow_ints(table.column("line"))  # not to_numpy: no pandas
    key = (g << 32) + line
    if len(key) < 2 or bool(np.all(key[1:] >= key[:-1])):
        return table
    return table.sort_by([("g", "ascending"), ("line", "ascending")])


class RulesJudge:
    """Replays staged games through the rules, in a process pool started on first need.

    ``workers`` counts the processes that replay games, the ingest's own included: the pool
    has one fewer, and the ingest checks the chunks no worker has started when it has
    nothing else to do. So on two cores one worker replays while the ingest stages and loads
    (the longer path, which a second worker would slow down), and both replay at the end."""

    def __init__(self, workers: int | None = None) -> None:
        self.workers = max(1, workers if workers is not None else (os.cpu_count() or 1))
        self._pool: ProcessPoolExecutor | None = None
        self._starting: threading.Thread | None = None

    def start(self) -> None:
        """Start the workers now, in the background (the fork server imports the rules
        check while the first batch is staged; starting a worker waits for it)."""
        if self.workers > 1 and self._pool is None and self._starting is None:
            _start_fork_server()
            self._starting = threading.Thread(target=self._warm, name="pmim-rules-judge-start", daemon=True)
            self._starting.start()

    def _warm(self) -> None:
        try:
            pool = self._make_pool()
            for _ in range(self.workers - 1):
                pool.submit(warm_up)
        except (RuntimeError, OSError):  # no workers here: the first chunk tries again, then checks inline
            pass

    def _started(self) -> None:
        """Wait for :meth:`start`'s background work (a second or so at most)."""
        if self._starting is not None and self._starting is not threading.current_thread():
            self._starting.join()
            self._starting = None

    def _make_pool(self) -> ProcessPoolExecutor:
        if self._pool is None:
            _start_fork_server()
            self._pool = ProcessPoolExecutor(self.workers - 1, mp_context=_context(), initializer=start_worker,
                                             initargs=(os.environ.get("PMIM_DATA"), os.getpid()))
        return self._pool

    def _get_pool(self) -> ProcessPoolExecutor:
        self._started()
        return self._make_pool()

    def submit(self, con: duckdb.DuckDBPyConnection, games: list[tuple[int, Any, int | None]], *,
               pool: bool = False) -> Pending:
        """Start checking ``games`` (``(g, GameHeader, header line)``, staged); the
        verdicts come from :meth:`Pending.result`, so the caller can work meanwhile.
        With ``pool`` (a slice of a large batch) the workers take them however few they are."""
        if not games:
            return Pending(self, None, [], done={})
        games = sorted(games, key=lambda t: t[0])
        con.register("_judge", pa.table({"g": pa.array([g for g, _, _ in games], pa.int32())}))
        try:
            table = con.sql(f"SELECT g, line, {_COLUMNS} FROM st_events "
                            "WHERE g IN (SELECT g FROM _judge)").to_arrow_table()
        finally:
            con.unregister("_judge")
        return self._submit(_by_game_and_line(table), games, pool)

    def check(self, con: duckdb.DuckDBPyConnection,
              games: list[tuple[int, Any, int | None]]) -> dict[int, StagedVerdict]:
        """The verdict on each of ``games`` (``(g, GameHeader, header line)``, staged)."""
        return self.submit(con, games).result()

    def _submit(self, table: pa.Table, games: list[tuple[int, Any, int | None]], pool: bool = False) -> Pending:
        if (table.num_rows < INLINE_EVENTS and not pool) or self.workers == 1:
            return Pending(self, table, games, done={v.g: v for v in check_staged(_ipc(table), games)})
        try:
            return Pending(self, table, games, futures=self._submit_pool(table, games))
        except (BrokenProcessPool, RuntimeError, OSError):
            return Pending(self, table, games, done=self._inline(table, games))

    def _inline(self, table: pa.Table, games: list[tuple[int, Any, int | None]]) -> dict[int, StagedVerdict]:
        # no workers (e.g. a script without the ``if __name__ == "__main__"`` guard spawn needs):
        # the same check, in this process
        self.close(now=True)
        self.workers = 1
        return {v.g: v for v in check_staged(_ipc(table), games)}

    def _submit_pool(self, table: pa.Table, games: list[tuple[int, Any, int | None]]) -> list[_Chunk]:
        n = table.num_rows
        gcol = table.column("g").to_numpy()
        starts = np.searchsorted(gcol, np.array([g for g, _, _ in games]), side="left")
        target = max(1, n // (self.workers * CHUNKS_PER_WORKER))
        chunks: list[_Chunk] = []
        pool = self._get_pool()
        first, row0 = 0, 0
        for k in range(1, len(games) + 1):
            end = int(starts[k]) if k < len(games) else n
            if end - row0 >= target or k == len(games):
                ipc, part = _ipc(table.slice(row0, end - row0)), games[first:k]
                chunks.append(_Chunk(pool.submit(check_staged, ipc, part), ipc, part))
                first, row0 = k, end
        return chunks

    def close(self, *, now: bool = False) -> None:
        """Stop the workers (``now``: without waiting for chunks in flight)."""
        self._started()
        if self._pool is not None:
            if now:
                for p in list(getattr(self._pool, "_processes", {}).values()):
                    p.kill()
            self._pool.shutdown(wait=not now, cancel_futures=True)
            self._pool = None


@dataclass
class _Chunk:
    """Some games handed to the pool: the future of their verdicts, and what it was given
    (so the ingest can check them itself if no worker has taken them yet)."""

    future: Future[list[StagedVerdict]]
    ipc: bytes
    games: list[tuple[int, Any, int | None]]
    verdicts: list[StagedVerdict] | None = None  # when checked by the ingest itself

    def take_back(self) -> bool:
        """Check the chunk in this process if no worker has started on it; True if so."""
        if self.verdicts is None and self.future.cancel():
            self.verdicts = check_staged(self.ipc, self.games)
            return True
        return False

    def result(self) -> list[StagedVerdict]:
        return self.verdicts if self.verdicts is not None else self.future.result()


class Pending:
    """Verdicts being worked out by the pool (or already known)."""

    def __init__(self, judge: RulesJudge, table: pa.Table | None, games: list[tuple[int, Any, int | None]], *,
                 futures: list[_Chunk] | None = None, done: dict[int, StagedVerdict] | None = None) -> None:
        self.judge, self.table, self.games = judge, table, games
        self.chunks = futures or []
        self.done = done

    @property
    def in_pool(self) -> bool:
        """True while workers are replaying the games."""
        return self.done is None

    def take_back(self) -> bool:
        """Check in this process, last first, the chunks no worker has started on (the
        ingest has nothing else to do; the workers take chunks first to last). Returns
        False as soon as one has been started (so have all before it)."""
        for chunk in reversed(self.chunks):
            if chunk.verdicts is None and not chunk.take_back():
                return False
        return True

    def result(self) -> dict[int, StagedVerdict]:
        """The verdict on every game (checks what no worker has started on, then waits)."""
        if self.done is None:
            try:
                self.take_back()
                pending = {c.future for c in self.chunks if c.verdicts is None}
                while pending:  # short waits, so a Ctrl-C (raised between them) is not held up
                    _, pending = wait(pending, timeout=0.1)
                self.done = {v.g: v for c in self.chunks for v in c.result()}
            except BrokenProcessPool:
                assert self.table is not None
                self.done = self.judge._inline(self.table, self.games)
        return self.done
