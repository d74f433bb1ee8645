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
import sys
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq

from pmim_analytics.errors import PmimError, StoreError, display_path
from pmim_analytics.replay.provenance import own_files_checker
from pmim_analytics.rules.catalogue import data_dir, list_rules_ids, load_rules
from pmim_analytics.store import jsonl
from pmim_analytics.store.connection import explain_db_error, open_writer, rollback_quietly
from pmim_analytics.store.headers import HeaderParser
from pmim_analytics.store.interrupt import SigintGuard
from pmim_analytics.store.load import load_good_games
from pmim_analytics.store.manual_logs import stage_logs
from pmim_analytics.store.parquet import ParquetPart, stage_parts
from pmim_analytics.store.rejects import Rejection, fill_raw, record_rejects
from pmim_analytics.store.rules_judge import Pending, RulesJudge
from pmim_analytics.store.sources import Inputs, find_inputs
from pmim_analytics.store.staging import StageBuffer, create_staging, drop_staging, forget_games, materialize_units
from pmim_analytics.store.validate import PARQUET_FIELD, Problem, find_problems

#: Test hook: "N:SECONDS" sleeps that long inside the Nth batch's transaction, just before
#: COMMIT, after saying so on stderr, so fault tests can kill the process at that point.
PAUSE_HOOK_ENV = "PMIM_TEST_PAUSE_BEFORE_COMMIT"
BATCH_FILES = 1000
BATCH_BYTES = 128 * 1024 * 1024
BATCH_PARQUET_ROWS = 2_000_000
YIELD_EVERY = 3.0  # seconds of writing before the lock is given back to waiting readers
WARM_POOL_FILES = 100  # from this many replays on, the rules-check workers start with the ingest
#: JSON Lines replays are staged this many at a time; each slice goes to the rules-check workers
#: as soon as it is staged, so they replay it while the next slice is read
JUDGE_SLICE_FILES = 400
#: ... and, with workers, the first slice is smaller, so they start early
JUDGE_FIRST_SLICE_FILES = 200
YIELD_PAUSE = 0.2  # longer than a reader's retry interval, so a waiting reader gets in


@dataclass
class IngestResult:
    """What an ingest did: games loaded, duplicates skipped, rejections, notes."""

    loaded: int = 0
    events: int = 0
    duplicates: int = 0
    rejected: list[Rejection] = field(default_factory=list)
    not_attempted: int = 0  # inputs not reached (interrupted, or stopped by --strict)
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


def rules_files_skipped() -> list[str]:
    """A note for each rules file that does not load (a bad variant): its games cannot be
    checked and are rejected, while every other rules id works as usual."""
    notes = []
    for rid in list_rules_ids():
        try:
            load_rules(rid)
        except PmimError as e:
            notes.append(f"rules {rid!r} skipped: {e.render()}")
    return notes


def ingest_paths(paths: list[str | Path], db: str | Path | None = None, *, strict: bool = False,
                 progress: ProgressFn | None = None, on_wait: Callable[[str], None] | None = None,
                 batch_files: int = BATCH_FILES, batch_bytes: int = BATCH_BYTES,
                 yield_every: float = YIELD_EVERY, workers: int | None = None,
                 trust_own: bool = False) -> IngestResult:
    """Ingest files, folders and globs into the database; see the module docstring.

    With ``strict`` the run stops at the first rejected game (games before it in input
    order are loaded, none after). Ctrl-C (``KeyboardInterrupt``) rolls back the batch in
    flight and returns what was done before, with ``interrupted`` set. Raises
    :class:`ReplayError` for a path that does not exist (before anything is read) and
    :class:`StoreError` when the database cannot be written.

    Every game is replayed through the rules before it is stored, on ``workers``
    processes (default: every core). With ``trust_own``, replays this installation wrote
    itself and signed (``pmim simulate``; see :mod:`pmim_analytics.replay.provenance`)
    skip that check; ``game_checks`` records which games were checked.
    """
    started = time.perf_counter()
    with SigintGuard() as guard:
        inputs = find_inputs(paths)
        result = IngestResult(notes=[*inputs.notes, *rules_files_skipped()], inputs=inputs.count)
        done = 0
        judge = RulesJudge(workers)
        try:
            batches = _plan(inputs, batch_files, batch_bytes)
            run_id = uuid.uuid4().hex[:12]
            parser = HeaderParser()
            scenarios = sorted(p.stem for p in (data_dir() / "scenarios").glob("*.yaml"))
            if len(inputs.jsonl) >= WARM_POOL_FILES or inputs.parquet:
                judge.start()
            trusted = own_files_checker() if trust_own else (lambda path: False)
            if progress:
                progress(0, inputs.count, result)
            i = 0
            while i < len(batches):
                opened = time.perf_counter()
                with open_writer(db, on_wait=on_wait) as con:
                    guard.con = con
                    while i < len(batches):
                        batch = batches[i]
                        stop = _attempt(con, batch, parser, scenarios, run_id, strict, result, judge, trusted)
                        if stop is None:  # an unreadable Parquet file among several parts: try them one by one
                            batches[i:i + 1] = [_Batch(parquet=[part]) for part in batch.parquet]
                            continue
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
                    guard.con = None
                if i < len(batches):
                    time.sleep(YIELD_PAUSE)
        except KeyboardInterrupt:
            result.interrupted = True
            judge.close(now=True)
        except Exception as e:  # DuckDB reports an interrupted statement in several ways
            if not (guard.interrupted or isinstance(e, duckdb.InterruptException)
                    or "interrupted" in str(e).lower()):
                raise
            result.interrupted = True
            judge.close(now=True)
        finally:
            guard.con = None
            judge.close()
    result.not_attempted = inputs.count - done
    result.seconds = time.perf_counter() - started
    return result


def _attempt(con: duckdb.DuckDBPyConnection, batch: _Batch, parser: HeaderParser, scenarios: list[str],
             run_id: str, strict: bool, result: IngestResult, judge: RulesJudge,
             trusted: Callable[[str], bool]) -> bool | None:
    """Run one batch; a Parquet part that DuckDB cannot read (corrupt pages) is refused
    whole. Returns whether to stop, or None when a batch of several parts must be split."""
    try:
        return _run_batch(con, batch, parser, scenarios, run_id, strict, result, judge, trusted)
    except StoreError as e:
        if not batch.parquet:
            raise
        if len(batch.parquet) > 1:
            return None
        why = str(e.__cause__ or e.message).strip().splitlines()[0]
        result.rejected.append(Rejection(display_path(batch.parquet[0].events), None, None, "io",
                                         f"cannot be read ({why}); the whole part is refused", None))
        return strict


def _run_batch(con: duckdb.DuckDBPyConnection, batch: _Batch, parser: HeaderParser, scenarios: list[str],
               run_id: str, strict: bool, result: IngestResult, judge: RulesJudge,
               trusted: Callable[[str], bool]) -> bool:
    """Stage, validate and load one batch; return True when strict mode must stop."""
    try:
        create_staging(con)
        buf = StageBuffer()
        rejects: dict[int, Rejection] = {}
        identity: dict[int, Rejection] = {}  # content differs from game_id: reported if nothing worse
        judging = _Judging()
        g = 0
        slices = _slices(len(batch.jsonl), judge.workers > 1)
        for k, end in slices:
            g_start = g
            g = jsonl.stage_files(con, batch.jsonl[k:end], buf, parser, rejects, identity, g)
            if len(slices) > 1:  # start replaying this slice while the next is staged
                buf.flush(con)
                sliced = con.execute("SELECT g, game_id FROM st_games WHERE g >= ? AND g < ? ORDER BY g",
                                     [g_start, g]).fetchall()
                early, _ = _dedupe(con, [(gg, gid) for gg, gid in sliced if gg not in rejects and gg not in identity])
                _judge_rules(con, judge, buf, [gg for gg, _ in early], trusted, judging, sliced=True)
        g = stage_logs(con, batch.manual, buf, parser, rejects, g)
        if batch.parquet:
            staged = stage_parts(con, batch.parquet, buf, parser, g, rejects)
            result.duplicates += staged.duplicates
            result.notes.extend(staged.notes)
        buf.flush(con)
        forget_games(con, rejects)
        # the workers replay the new games while the set-based checks run (a game those
        # reject is replayed for nothing: rare, and their finding is the one reported)
        all_staged = con.execute("SELECT g, game_id FROM st_games ORDER BY g").fetchall()
        new, _ = _dedupe(con, [(gg, gid) for gg, gid in all_staged if gg not in rejects and gg not in identity])
        _judge_rules(con, judge, buf, [gg for gg, _ in new if gg not in judging.asked], trusted, judging)
        materialize_units(con)
        for p in find_problems(con, scenarios):
            rejects[p.g] = _rejection(con, p)
        for gg, rej in identity.items():
            rejects.setdefault(gg, rej)
        candidates = con.execute("SELECT g, game_id FROM st_games ORDER BY g").fetchall()
        good, dups = _dedupe(con, [(gg, gid) for gg, gid in candidates if gg not in rejects])
        in_tx, n_events = False, None
        try:
            if judging.in_pool and good:
                # load every candidate while the workers replay them; undone below if one breaks a rule
                _set_good(con, good)
                con.execute("BEGIN TRANSACTION")
                in_tx = True
                n_events = load_good_games(con)
            checks = judging.finish(rejects, {gg for gg, _ in new})
            kept = [(gg, gid) for gg, gid in good if gg not in rejects]
            stop = False
            if strict and rejects:
                first_bad = min(rejects)
                kept = [(gg, gid) for gg, gid in kept if gg < first_bad]
                dups = [gg for gg in dups if gg < first_bad]
                rejects = {first_bad: rejects[first_bad]}
                stop = True
            if in_tx and len(kept) != len(good):  # the optimistic load holds games that must not be stored
                rollback_quietly(con)
                in_tx, n_events = False, None
            good = kept
            ordered = [rejects[k] for k in sorted(rejects)]
            fill_raw(con, ordered)
            if not in_tx:
                _set_good(con, good)
                con.execute("BEGIN TRANSACTION")
                in_tx = True
            if n_events is None:
                n_events = load_good_games(con) if good else 0
            _record_checks(con, good, checks)
            record_rejects(con, run_id, ordered)
            _pause_hook(result)
            con.execute("COMMIT")
            in_tx = False
        except BaseException:
            if in_tx:
                rollback_quietly(con)
            raise
        result.batches_committed += 1
        result.loaded += len(good)
        result.events += n_events
        result.duplicates += len(dups)
        result.rejected.extend(ordered)
        return stop
    except duckdb.InterruptException as e:
        raise KeyboardInterrupt from e
    except duckdb.Error as e:
        why = explain_db_error(e)
        raise StoreError(why if not why.startswith("the database could not be") else
                         f"ingest failed: {str(e).strip().splitlines()[0]}") from e
    finally:
        try:
            drop_staging(con)
        except duckdb.Error:
            pass


def _slices(n: int, pooled: bool) -> list[tuple[int, int]]:
    """The ranges of a batch's ``n`` JSON Lines replays staged together, each checked as soon
    as it is staged (which also bounds the memory the check takes); with rules-check
    workers (``pooled``) the first slice is smaller, so they start early."""
    if n <= JUDGE_SLICE_FILES:
        return [(0, n)]
    bounds = [0, min(JUDGE_FIRST_SLICE_FILES, JUDGE_SLICE_FILES) if pooled else JUDGE_SLICE_FILES]
    while bounds[-1] < n:
        bounds.append(min(n, bounds[-1] + JUDGE_SLICE_FILES))
    return list(zip(bounds, bounds[1:], strict=False))


def _pause_hook(result: IngestResult) -> None:
    hook = os.environ.get(PAUSE_HOOK_ENV)
    if not hook:
        return
    batch, seconds = hook.split(":")
    if result.batches_committed + 1 == int(batch):
        print(f"pausing before commit {batch}", file=sys.stderr, flush=True)
        until = time.monotonic() + float(seconds)
        while time.monotonic() < until:  # short sleeps: a Ctrl-C taken by another thread is seen at once
            time.sleep(0.05)


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


#: How each stored game was checked (``game_checks.checked_by``).
CHECKED_ENGINE = "engine replay"
CHECKED_MANUAL = "manual log reader"
SKIPPED_OWN = "skipped: written by this installation"


def _set_good(con: duckdb.DuckDBPyConnection, good: list[tuple[int, str]]) -> None:
    con.register("_good", pa.table({"g": pa.array([gg for gg, _ in good], pa.int32()),
                                    "game_id": pa.array([gid for _, gid in good], pa.string())}))
    con.execute("CREATE OR REPLACE TEMP TABLE st_good AS SELECT * FROM _good")
    con.unregister("_good")


@dataclass
class _Judging:
    """The rules check of a batch's candidates, under way (submitted slice by slice)."""

    pending: list[Pending] = field(default_factory=list)
    how: dict[int, tuple[bool, str]] = field(default_factory=dict)
    info: dict[int, tuple[str, str, str, str]] = field(default_factory=dict)
    asked: set[int] = field(default_factory=set)  # every g handed to _judge_rules

    @property
    def in_pool(self) -> bool:
        """True while workers are replaying some of the games."""
        return any(p.in_pool for p in self.pending)

    def finish(self, rejects: dict[int, Rejection], new: set[int]) -> dict[int, tuple[bool, str]]:
        """Wait for the verdicts on the games ``new`` (those not stored yet; a verdict on any
        other game is not used); a game that breaks a rule goes to ``rejects``. Returns how
        each game that passed was checked: ``g -> (rules_checked, checked_by)``."""
        for p in reversed(self.pending):  # check what no worker has started yet, here, last first
            if not p.take_back():
                break
        verdicts = {g: v for p in self.pending for g, v in p.result().items()}
        for g, verdict in verdicts.items():
            if g not in new or g in rejects:  # a duplicate, or the set-based checks found something already
                continue
            kind, _, file, events_file = self.info[g]
            if verdict.error is not None:
                rejects[g] = Rejection(events_file, None, None, "rules", verdict.error, None)
            elif verdict.violations:
                v = verdict.violations[0]
                more = len(verdict.violations) - 1
                at_header = v.seq is None
                fld = PARQUET_FIELD[v.field] if kind == "parquet" and v.field in PARQUET_FIELD and not at_header \
                    else v.field
                message = f"breaks the rules: {v.message}" + (
                    f" (and {more} more finding{'s' if more > 1 else ''}; `pmim replay verify` lists them)"
                    if more else "")
                rejects[g] = Rejection(file if at_header else events_file, v.line, fld, "rules", message, None)
            else:
                self.how[g] = (True, CHECKED_ENGINE)
        return self.how


def _judge_rules(con: duckdb.DuckDBPyConnection, judge: RulesJudge, buf: StageBuffer, gs: list[int],
                 trusted: Callable[[str], bool], judging: _Judging, *, sliced: bool = False) -> None:
    """Start replaying the games ``gs`` through the rules (manual logs were replayed by
    their reader; signed own replays skip it when trusted), adding them to ``judging``.
    A slice of a large batch goes to the workers whatever its size."""
    judging.asked.update(gs)
    info = judging.info
    if gs:
        con.register("_gs", pa.table({"g": pa.array(gs, pa.int32())}))
        rows = con.execute("SELECT g, kind, path, file, events_file FROM st_games "
                           "WHERE g IN (SELECT g FROM _gs)").fetchall()
        con.unregister("_gs")
        info.update({g: (kind, path, file, events_file) for g, kind, path, file, events_file in rows})
    how = judging.how
    to_check = []
    for g in gs:
        kind, path, _, _ = info[g]
        if kind == "manual":  # the manual-log reader replayed it by the rules as it read it
            how[g] = (True, CHECKED_MANUAL)
        elif trusted(path):
            how[g] = (False, SKIPPED_OWN)
        else:
            header, head_line = buf.headers[g]
            to_check.append((g, header, head_line))
    if to_check:
        judging.pending.append(judge.submit(con, to_check, pool=sliced))


def _record_checks(con: duckdb.DuckDBPyConnection, good: list[tuple[int, str]],
                   how: dict[int, tuple[bool, str]]) -> None:
    if not good:
        return
    con.register("_checks", pa.table({
        "game_id": pa.array([gid for _, gid in good], pa.string()),
        "rules_checked": pa.array([how.get(g, (False, "not checked"))[0] for g, _ in good], pa.bool_()),
        "checked_by": pa.array([how.get(g, (False, "not checked"))[1] for g, _ in good], pa.string())}))
    con.execute("INSERT OR REPLACE INTO game_checks (game_id, rules_checked, checked_by) "
                "SELECT game_id, rules_checked, checked_by FROM _checks")
    con.unregister("_checks")
