"""Play a whole batch on a backend and count its results."""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections.abc import Callable
from contextlib import closing
from pathlib import Path

from pmim_analytics.engine.bots import check_bot_name
from pmim_analytics.errors import PmimError, display_path
from pmim_analytics.limits import MAX_GAMES
from pmim_analytics.replay.provenance import MANIFEST
from pmim_analytics.sim.backends import Backend, LocalBackend
from pmim_analytics.sim.batch import FORMATS, PART_SIZE, BatchSpec, BatchSummary, batch_jobs, chunks, part_files


def check_batch(batch: BatchSpec, fmt: str) -> None:
    """Refuse a batch that cannot be played. Raises :class:`PmimError` (format, games, bot names)."""
    if fmt not in FORMATS:
        raise PmimError(f"unknown format {fmt!r}; choose jsonl or parquet")
    if batch.games < 1:
        raise PmimError(f"--games must be at least 1, got {batch.games}")
    if batch.games > MAX_GAMES:
        raise PmimError(f"--games {batch.games:,} is over the ceiling of {MAX_GAMES:,} games (MAX_GAMES, "
                        "docs/limits.md); split it into batches with different seeds")
    check_bot_name(batch.bot_a)
    check_bot_name(batch.bot_b)


def written_files(batch: BatchSpec, out: str | Path, fmt: str, part_size: int = PART_SIZE) -> list[Path]:
    """Every file :func:`run_batch` writes for ``batch`` under ``out`` (each is written whole,
    over any file of that name): what a finished simulation may sign, and nothing else."""
    return [f for _part, start, stop in chunks(batch.games, part_size)
            for f in part_files(Path(out), fmt, _part, start, stop)]


def check_out_folder(out: str | Path, allow_existing: bool = False) -> None:
    """Refuse ``out`` as a simulation's folder when it is a file, lies below one, or (unless
    ``allow_existing``) already holds replays, Parquet parts or signatures: their files
    would sit beside the new ones as if this run had written them."""
    folder = Path(out)
    for p in (folder, *folder.parents):
        if p.exists() and not p.is_dir():
            raise PmimError(f"{display_path(p)} is a file, not a folder; give a new or empty folder for --out")
    if not folder.is_dir() or allow_existing:
        return
    held = [f.name for f in folder.iterdir() if f.suffix in (".jsonl", ".parquet") or f.name == MANIFEST]
    if held:
        raise PmimError(f"{display_path(folder)} already holds {len(held)} replay file(s) (e.g. {held[0]}); give a "
                        "new or empty folder for --out, or --allow-existing to add to it (only the files this run "
                        "writes are signed)")


def dated(batch: BatchSpec) -> BatchSpec:
    """The batch with ``played`` fixed to today if unset, so every game of it carries one date."""
    return batch if batch.played is not None else dataclasses.replace(batch, played=dt.date.today().isoformat())


def run_batch(batch: BatchSpec, workers: int = 1, out: str | Path | None = None, fmt: str = "parquet",
              progress_callback: Callable[[int, int], None] | None = None,
              part_size: int = PART_SIZE, backend: Backend | None = None,
              keep_outcomes: bool = True) -> BatchSummary:
    """Play a whole batch and write it under ``out`` (if given).

    It runs on ``backend`` (an entered backend from
    :func:`~pmim_analytics.sim.backends.open_backend`), by default a local pool of
    ``workers`` processes. ``progress_callback(done, total)`` is called as chunks finish.
    On Ctrl-C (or any exception from the callback) the jobs still running stop after their
    current game, nothing more is written, temporary files are removed, and the exception
    propagates: the folder holds only complete parts. Raises :class:`PmimError` for a bad
    format, worker count or bot name. Without ``keep_outcomes`` the summary holds the counts
    only: each part's games are on disk (or forgotten) once it is counted.
    """
    check_batch(batch, fmt)
    runner = backend if backend is not None else LocalBackend(workers)
    folder = Path(out) if out is not None else None
    if folder is not None:
        folder.mkdir(parents=True, exist_ok=True)
    summary = BatchSummary(keep_outcomes=keep_outcomes)
    done = 0
    with closing(runner.run(batch_jobs(dated(batch), folder, fmt, part_size))) as results:
        for _job, outcomes in results:
            summary.add(outcomes)
            done += len(outcomes)
            if progress_callback:
                progress_callback(done, batch.games)
    summary.outcomes.sort(key=lambda o: o.game_index)
    return summary
