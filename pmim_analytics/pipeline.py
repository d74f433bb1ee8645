"""Simulate, then ingest: the one way bot-vs-bot batches go from the engine into the database.

:func:`simulate_and_ingest` plays each :class:`SimRun` (a batch and the folder it is written to)
and ingests the folders, with any other inputs, in one ingest. ``pmim simulate --ingest``, the
dashboard's Simulate and What-if pages and ``pmim demo`` all call it, so a batch is written,
marked and ingested the same way wherever it was asked for.

Above the simulator (:mod:`pmim_analytics.sim`) and the store (:mod:`pmim_analytics.store`);
below the demo and the CLI.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from pmim_analytics.errors import PmimError
from pmim_analytics.replay import provenance
from pmim_analytics.sim.base import Backend
from pmim_analytics.sim.batch import PART_SIZE, BatchSpec, BatchSummary
from pmim_analytics.sim.runner import run_batch, written_files
from pmim_analytics.store.ingest import IngestResult, ingest_paths

#: The file that marks a batch folder as complete (``skip_complete`` leaves such a folder as it is).
COMPLETE_MARKER = ".complete"

#: ``progress(run_index, done, total)``: ``done`` of the run's ``total`` games are played.
SimProgress = Callable[[int, int, int], None]


@dataclass(frozen=True)
class SimRun:
    """One batch to play and the folder its replays go to (``None``: write nothing, ingest nothing)."""

    batch: BatchSpec
    out: Path | None
    part_size: int = PART_SIZE


@dataclass(frozen=True)
class SimAndIngest:
    """What :func:`simulate_and_ingest` did: each run's summary (``None`` for a run skipped as
    already complete), the folders ingested, and the ingest's result (``None`` without ingest)."""

    summaries: tuple[BatchSummary | None, ...]
    folders: tuple[Path, ...]
    ingest: IngestResult | None


def simulate_and_ingest(runs: Sequence[SimRun], db: str | Path | None, *, ingest: bool = True,
                        workers: int = 1, backend: Backend | None = None, fmt: str = "parquet",
                        progress: SimProgress | None = None, starting: Callable[[int, SimRun], None] | None = None,
                        ingest_first: Sequence[str | Path] = (), ingest_last: Sequence[str | Path] = (),
                        skip_complete: bool = False, sign: bool = False, keep_outcomes: bool = True,
                        before_ingest: Callable[[], None] | None = None,
                        enough: Callable[[int], bool] | None = None, trust_own: bool = False,
                        ingest_workers: int | Callable[[int], int] | None = None) -> SimAndIngest:
    """Play ``runs`` in order, then ingest ``ingest_first``, the runs' folders and ``ingest_last``
    (in that order) into ``db`` in one ingest.

    Each run is played on ``backend`` (default: a local pool of ``workers`` processes) and
    written as ``fmt``. With ``skip_complete`` a finished folder gets a :data:`COMPLETE_MARKER`
    and a folder that has one is not played again (a build that goes on from what an earlier
    call left); without it the folder holds only the replays and their signature. With
    ``sign`` the files each run wrote, and only those, are signed as this installation's own
    (see :mod:`pmim_analytics.replay.provenance`); ``keep_outcomes=False`` keeps only the
    counts of a large batch, not each game's outcome. ``before_ingest`` is called between the
    two steps (a progress display says "ingesting"), and ``starting(index, run)`` before each
    run, skipped or not. Without ``ingest`` nothing is stored.

    ``enough(k)`` is asked before each run after the first: True stops the playing there, and
    only runs ``0 .. k-1`` are ingested (the result names them; the caller passes the rest to its
    next call). ``trust_own`` stores signed files of this installation without the rules check
    (as ``pmim ingest --trust-own``); ``ingest_workers`` are the rules check's processes, or a
    function of the number of games the runs hold.

    Ctrl-C while playing leaves only complete parts and no marker; the ingest rolls back the
    batch in flight (see :func:`~pmim_analytics.store.ingest.ingest_paths`). Raises
    :class:`PmimError` for a run with no folder when there is an ingest, and what
    :func:`~pmim_analytics.sim.runner.run_batch` and ``ingest_paths`` raise.
    """
    if ingest and any(run.out is None for run in runs):
        raise PmimError("a simulation to ingest needs a folder for its replays (--out)")
    summaries: list[BatchSummary | None] = []
    folders: list[Path] = []
    for k, run in enumerate(runs):
        if k and enough is not None and enough(k):
            break
        if starting is not None:
            starting(k, run)
        if run.out is not None:
            folders.append(run.out)
            if skip_complete and (run.out / COMPLETE_MARKER).exists():
                summaries.append(None)
                continue
        callback = None if progress is None else (lambda done, total, k=k: progress(k, done, total))
        summaries.append(run_batch(run.batch, workers=workers, out=run.out, fmt=fmt, progress_callback=callback,
                                   part_size=run.part_size, backend=backend, keep_outcomes=keep_outcomes))
        if run.out is not None:
            if sign:
                provenance.sign_files(run.out, written_files(run.batch, run.out, fmt, run.part_size), only=True)
            if skip_complete:  # the marker a later call skips the folder by
                (run.out / COMPLETE_MARKER).write_text(f"{run.batch.games} games\n")
    result = None
    if ingest:
        if before_ingest is not None:
            before_ingest()
        if callable(ingest_workers):
            ingest_workers = ingest_workers(sum(run.batch.games for run in runs[:len(folders)]))
        result = ingest_paths([*ingest_first, *folders, *ingest_last], db, workers=ingest_workers,
                              trust_own=trust_own)
    return SimAndIngest(tuple(summaries), tuple(folders), result)
