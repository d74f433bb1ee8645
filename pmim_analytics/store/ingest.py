"""``pmim ingest``: load replays, Parquet batches and manual logs into the database.

Inputs are read in batches (a few hundred files, or Parquet parts up to a couple of
million events) so memory stays bounded. Each batch is staged in temporary tables,
validated with set-based SQL, deduplicated by content id against the database, and the
good games are inserted with their aggregates in ONE transaction. So a bad game leaves
nothing behind, a killed or interrupted run loses at most the batch in flight (nothing
of it is visible), and running the same ingest again completes it without duplicates.

The writer gives the file lock back between batches every couple of seconds so the
dashboard's readers get in during a long ingest.
"""

from __future__ import annotations

import os
import re
import sys
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq

from pmim_analytics.errors import Location, PmimError, ReplayError, StoreError, display_path
from pmim_analytics.replay.format import game_id_of
from pmim_analytics.rules.catalogue import data_dir
from pmim_analytics.store import jsonl
from pmim_analytics.store.connection import open_writer
from pmim_analytics.store.headers import HeaderParser
from pmim_analytics.store.load import load_good_games
from pmim_analytics.store.parquet import ParquetPart, stage_parts
from pmim_analytics.store.rejects import Rejection, shorten
from pmim_analytics.store.sources import Inputs, find_inputs
from pmim_analytics.store.staging import StageBuffer, create_staging, drop_staging, materialize_units
from pmim_analytics.store.validate import PARQUET_FIELD, Problem, find_problems

#: Test hook: "N:SECONDS" sleeps that long inside the Nth batch's transaction, just before
#: COMMIT, after saying so on stderr, so fault tests can kill the process at that point.
PAUSE_HOOK_ENV = "PMIM_TEST_PAUSE_BEFORE_COMMIT"
BATCH_FILES = 500
BATCH_BYTES = 64 * 1024 * 1024
BATCH_PARQUET_ROWS = 2_000_000
YIELD_EVERY = 3.0  # seconds of writing before the lock is given back to waiting readers
YIELD_PAUSE = 0.2  # longer than a reader's retry interval, so a waiting reader gets in


@dataclass
class IngestResult:
    """What an ingest did: games loaded, duplicates skipped, rejections, notes."""

    loaded: int = 0
    events: int = 0
    duplicates: int = 0
    rejected: list[Rejection] = field(default_factory=list)
    not_attempted: int = 0
    notes: list[str] = field(default_factory=list)
    seconds: float = 0.0
    inputs: int = 0
    interrupted: bool = False
    batches_committed: int = 0

    @property
    def ok(self) -> bool:
        """True when nothing was rejected."""
        return not self.rejected

    def summary(self) -> str:
        """One sentence: loaded, duplicates, rejected (and not attempted, if any)."""
        text = (f"loaded {self.loaded} game{'s' if self.loaded != 1 else ''} ({self.events:,} events), "
                f"skipped {self.duplicates} duplicate{'s' if self.duplicates != 1 else ''}, "
                f"rejected {len(self.rejected)}")
        if self.not_attempted:
            text += f", {self.not_attempted} input{'s' if self.not_attempted != 1 else ''} not read"
        return text + f" in {self.seconds:.1f} s"


ProgressFn = Callable[[int, int, IngestResult], None]


@dataclass
class _Batch:
    jsonl: list[Path] = field(default_factory=list)
    manual: list[Path] = field(default_factory=list)
    parquet: list[ParquetPart] = field(default_factory=list)

    @property
    def size(self) -> int:
        return len(self.jsonl) + len(self.manual) + len(self.parquet)


def _plan(inputs: Inputs, batch_files: int, batch_bytes: int) -> list[_Batch]:
    batches: list[_Batch] = []
    cur, cur_bytes = _Batch(), 0
    for p in inputs.jsonl:
        size = p.stat().st_size if p.exists() else 0
        if cur.jsonl and (len(cur.jsonl) >= batch_files or cur_bytes + size > batch_bytes):
            batches.append(cur)
            cur, cur_bytes = _Batch(), 0
        cur.jsonl.append(p)
        cur_bytes += size
    if cur.jsonl:
        batches.append(cur)
    for i in range(0, len(inputs.manual), batch_files):
        batches.append(_Batch(manual=inputs.manual[i:i + batch_files]))
    cur, rows = _Batch(), 0
    for part in inputs.parquet:
        try:
            n = pq.read_metadata(part.events).num_rows
        except (OSError, pa.ArrowException):
            n = 0
        if cur.parquet and rows + n > BATCH_PARQUET_ROWS:
            batches.append(cur)
            cur, rows = _Batch(), 0
        cur.parquet.append(part)
        rows += n
    if cur.parquet:
        batches.append(cur)
    return batches


def ingest_paths(paths: list[str | Path], db: str | Path | None = None, *, strict: bool = False,
                 progress: ProgressFn | None = None, on_wait: Callable[[str], None] | None = None,
                 batch_files: int = BATCH_FILES, batch_bytes: int = BATCH_BYTES,
                 yield_every: float = YIELD_EVERY) -> IngestResult:
    """Ingest files, folders and globs into the database; see the module docstring.

    With ``strict`` the run stops at the first rejected game (games before it in input
    order are loaded, none after). Raises :class:`ReplayError` for a path that does not
    exist (before anything is read) and :class:`StoreError` when the database cannot be
    written; ``KeyboardInterrupt`` rolls back the batch in flight and propagates.
    """
    started = time.perf_counter()
    inputs = find_inputs(paths)
    result = IngestResult(notes=list(inputs.notes), inputs=inputs.count)
    batches = _plan(inputs, batch_files, batch_bytes)
    run_id = uuid.uuid4().hex[:12]
    parser = HeaderParser()
    scenarios = sorted(p.stem for p in (data_dir() / "scenarios").glob("*.yaml"))
    done = 0
    if progress:
        progress(0, inputs.count, result)
    i = 0
    try:
        while i < len(batches):
            opened = time.perf_counter()
            with open_writer(db, on_wait=on_wait) as con:
                while i < len(batches):
                    batch = batches[i]
                    stop = _run_batch(con, batch, parser, scenarios, run_id, strict, result)
                    i += 1
                    done += batch.size
                    result.seconds = time.perf_counter() - started
                    if progress:
                        progress(done, inputs.count, result)
                    if stop:
                        i = len(batches)
                        break
                    if time.perf_counter() - opened > yield_every:
                        break
            if i < len(batches):
                time.sleep(YIELD_PAUSE)
    except KeyboardInterrupt:
        result.interrupted = True
    result.not_attempted = inputs.count - done
    result.seconds = time.perf_counter() - started
    return result


def _run_batch(con: duckdb.DuckDBPyConnection, batch: _Batch, parser: HeaderParser, scenarios: list[str],
               run_id: str, strict: bool, result: IngestResult) -> bool:
    """Stage, validate and load one batch; return True when strict mode must stop."""
    try:
        create_staging(con)
        buf = StageBuffer()
        rejects: dict[int, Rejection] = {}
        identity: dict[int, Rejection] = {}  # content differs from game_id: reported if nothing worse
        g = _stage_jsonl(con, batch.jsonl, buf, parser, rejects, identity, 0)
        g = _stage_manual(con, batch.manual, buf, parser, rejects, g)
        if batch.parquet:
            staged = stage_parts(con, batch.parquet, buf, parser, g, rejects)
            result.duplicates += staged.duplicates
            result.notes.extend(staged.notes)
        buf.flush(con)
        _forget(con, rejects)
        materialize_units(con)
        for p in find_problems(con, scenarios):
            rejects[p.g] = _rejection(con, p)
        for gg, rej in identity.items():
            rejects.setdefault(gg, rej)
        candidates = con.execute("SELECT g, game_id FROM st_games ORDER BY g").fetchall()
        good, dups = _dedupe(con, [(gg, gid) for gg, gid in candidates if gg not in rejects])
        stop = False
        if strict and rejects:
            first_bad = min(rejects)
            good = [(gg, gid) for gg, gid in good if gg < first_bad]
            dups = [gg for gg in dups if gg < first_bad]
            rejects = {first_bad: rejects[first_bad]}
            stop = True
        ordered = [rejects[k] for k in sorted(rejects)]
        _fill_raw(con, ordered)
        con.register("_good", pa.table({"g": pa.array([gg for gg, _ in good], pa.int32()),
                                        "game_id": pa.array([gid for _, gid in good], pa.string())}))
        con.execute("CREATE OR REPLACE TEMP TABLE st_good AS SELECT * FROM _good")
        con.unregister("_good")
        con.execute("BEGIN TRANSACTION")
        try:
            n_events = load_good_games(con) if good else 0
            _record_rejects(con, run_id, ordered)
            _pause_hook(result)
            con.execute("COMMIT")
        except BaseException:
            con.execute("ROLLBACK")
            raise
        result.batches_committed += 1
        result.loaded += len(good)
        result.events += n_events
        result.duplicates += len(dups)
        result.rejected.extend(ordered)
        return stop
    except duckdb.Error as e:
        raise StoreError(f"ingest failed: {str(e).strip().splitlines()[0]}") from e
    finally:
        try:
            drop_staging(con)
        except duckdb.Error:
            pass


def _pause_hook(result: IngestResult) -> None:
    hook = os.environ.get(PAUSE_HOOK_ENV)
    if not hook:
        return
    batch, seconds = hook.split(":")
    if result.batches_committed + 1 == int(batch):
        print(f"pausing before commit {batch}", file=sys.stderr, flush=True)
        time.sleep(float(seconds))


def _stage_jsonl(con: duckdb.DuckDBPyConnection, files: list[Path], buf: StageBuffer, parser: HeaderParser,
                 rejects: dict[int, Rejection], identity: dict[int, Rejection], g0: int) -> int:
    fast: list[tuple[int, str]] = []
    slow: list[int] = []
    paths: dict[int, Path] = {}
    g = g0
    for p in files:
        name = display_path(p)
        paths[g] = p
        try:
            size = p.stat().st_size
        except OSError as e:
            rejects[g] = Rejection(name, None, None, "io", f"cannot be read ({e.strerror})", None)
            g += 1
            continue
        if size > jsonl.MAX_REPLAY_BYTES:
            rejects[g] = Rejection(name, None, None, "size", f"{size / 2**20:.0f} MB is too large for one game "
                                   f"(the limit is {jsonl.MAX_REPLAY_BYTES >> 20} MB)", None)
        else:
            try:
                head = jsonl.read_header_line(p, name, parser)
            except ReplayError as e:
                rejects[g] = Rejection.from_error(e, "header")
                head = None
            if head is not None:
                header, sides, canon = head
                buf.add_game(g, header, sides, file=name, events_file=name, path=str(p), kind="jsonl",
                             head_canon=canon)
                fast.append((g, str(p)))
            elif g not in rejects:
                slow.append(g)
        g += 1
    buf.flush(con)
    slow.extend(jsonl.stage_fast(con, fast))
    if slow:
        _forget(con, dict.fromkeys(slow))
    for gg in sorted(slow):
        p = paths[gg]
        name = display_path(p)
        try:
            game = jsonl.read_game_lines(p, name, parser)
        except ReplayError as e:
            rejects[gg] = Rejection.from_error(e, _error_type(e))
            continue
        if game.id_problem is not None:
            identity[gg] = Rejection.from_error(game.id_problem, "identity")
        buf.add_game(gg, game.header, game.sides, file=name, events_file=name, path=str(p), kind="jsonl",
                     game_id=game.game_id)
        buf.add_events(gg, game.events, list(game.lines))
    return g


def _error_type(e: ReplayError) -> str:
    m = e.message
    if m.startswith("invalid JSON"):
        return "syntax"
    if m.startswith("not UTF-8"):
        return "encoding"
    if "does not match the replay's content" in m:
        return "identity"
    if "out of order" in m:
        return "sequence"
    if e.where and e.where.line == 1:
        return "header"
    return "type"


def _stage_manual(con: duckdb.DuckDBPyConnection, files: list[Path], buf: StageBuffer, parser: HeaderParser,
                  rejects: dict[int, Rejection], g0: int) -> int:
    g = g0
    if not files:
        return g
    try:
        from pmim_analytics.replay.manual import read_log  # written alongside; optional until merged
    except ImportError:
        read_log = None
    for p in files:
        name = display_path(p)
        if read_log is None:
            rejects[g] = Rejection(name, None, None, "unsupported",
                                   "manual logs cannot be read: this installation has no manual-log reader", None)
            g += 1
            continue
        try:
            rec = read_log(p)
            sides = {k: parser.side_info(v) for k, v in rec.header.sides.items()}
            if set(sides) != {"blue", "red"}:
                raise ReplayError("a game needs both sides, blue and red", Location(name, field="sides"))
            for ev in rec.events:
                for key, value in ev.to_dict().items():
                    if isinstance(value, int) and not -(2**63) < value < 2**63:
                        raise ReplayError(f"{key} {value} is out of range", Location(name, field=key))
        except PmimError as e:
            rejects[g] = Rejection.from_error(e, "syntax")
            g += 1
            continue
        gid = rec.header.game_id
        if not re.fullmatch(r"[0-9a-f]{16}", gid or ""):
            gid = game_id_of(rec.header, rec.events)
        buf.add_game(g, rec.header, sides, file=name, events_file=name, path=str(p), kind="manual",
                     head_line=None, game_id=gid)
        buf.add_events(g, rec.events, [ev.seq for ev in rec.events])
        g += 1
    return g


def _forget(con: duckdb.DuckDBPyConnection, gs: dict[int, object]) -> None:
    """Drop staged rows of games that are rejected or will be staged again."""
    if not gs:
        return
    con.register("_forget", pa.table({"g": pa.array(sorted(gs), pa.int32())}))
    for t in ("st_games", "st_sides"):
        con.execute(f"DELETE FROM {t} WHERE g IN (SELECT g FROM _forget)")
    kind = con.execute("SELECT table_type FROM information_schema.tables WHERE table_catalog = 'temp' "
                       "AND table_name = 'st_events'").fetchall()
    if kind and kind[0][0] != "VIEW":
        con.execute("DELETE FROM st_events WHERE g IN (SELECT g FROM _forget)")
    con.unregister("_forget")


def _rejection(con: duckdb.DuckDBPyConnection, p: Problem) -> Rejection:
    file, events_file, kind = con.execute(
        "SELECT file, events_file, kind FROM st_games WHERE g = ?", [p.g]).fetchall()[0]
    fld, line, message = p.field, p.line, p.message
    if kind == "parquet" and not p.in_header and fld in PARQUET_FIELD:
        fld = PARQUET_FIELD[fld]
    if kind == "manual" and not p.in_header:
        message, line = (f"event {line}: {message}" if line is not None else message), None
    return Rejection(file if p.in_header else events_file, line, fld, p.error_type, message, None)


def _dedupe(con: duckdb.DuckDBPyConnection, cands: list[tuple[int, str]]) -> tuple[list[tuple[int, str]], list[int]]:
    """Split candidates into new games and duplicates (already stored, or earlier in the batch)."""
    if not cands:
        return [], []
    con.register("_cands", pa.table({"g": pa.array([g for g, _ in cands], pa.int32()),
                                     "game_id": pa.array([gid for _, gid in cands], pa.string())}))
    stored = {gid for (gid,) in con.execute(
        "SELECT game_id FROM games SEMI JOIN _cands USING (game_id)").fetchall()}
    con.unregister("_cands")
    good, dups, seen = [], [], set(stored)
    for g, gid in cands:
        if gid in seen:
            dups.append(g)
        else:
            seen.add(gid)
            good.append((g, gid))
    return good, dups


def _fill_raw(con: duckdb.DuckDBPyConnection, rejects: list[Rejection]) -> None:
    """Give each rejection the raw text of its line (or Parquet row), shortened."""
    for i, r in enumerate(rejects):
        if r.raw is not None or r.line is None:
            continue
        raw = None
        path = Path(r.file)
        try:
            if r.file.endswith(".parquet"):
                row = con.execute("SELECT to_json(t) FROM (SELECT * EXCLUDE (file_row_number) FROM "
                                  "read_parquet(?, file_row_number = true) WHERE file_row_number = ?) t",
                                  [str(path), r.line - 1]).fetchall()
                raw = row[0][0] if row else None
            else:
                with path.open("rb") as fh:
                    for n, b in enumerate(fh, start=1):
                        if n == r.line:
                            raw = b[:1000].decode("utf-8", errors="replace")
                            break
        except (OSError, duckdb.Error):
            raw = None
        if raw is not None:
            rejects[i] = Rejection(r.file, r.line, r.field, r.error_type, r.message, shorten(raw))


def _record_rejects(con: duckdb.DuckDBPyConnection, run_id: str, rejects: list[Rejection]) -> None:
    if not rejects:
        return
    con.register("_rej", pa.Table.from_pylist([
        {"run_id": run_id, "file": r.file, "line": r.line, "field": r.field, "error_type": r.error_type,
         "message": r.message, "raw": r.raw} for r in rejects],
        schema=pa.schema([("run_id", pa.string()), ("file", pa.string()), ("line", pa.int32()),
                          ("field", pa.string()), ("error_type", pa.string()), ("message", pa.string()),
                          ("raw", pa.string())])))
    con.execute("INSERT INTO ingest_rejects (run_id, file, line, field, error_type, message, raw) "
                "SELECT * FROM _rej")
    con.unregister("_rej")
