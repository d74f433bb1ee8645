"""Loading a sweep's parts into the database: only the parts the database does not hold yet.

The database is the record of what was loaded: a part counts as loaded when the database
holds every game of it (same batch name, seed and game indices). So a sweep interrupted
between playing and loading, resumed, or loaded into a second database loads exactly what
is missing, and the store's content ids guarantee no game is stored twice anyway.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from pmim_analytics.replay.parquet import list_parts, part_path
from pmim_analytics.sim.batch import chunks
from pmim_analytics.store.connection import read_frame, resolve_db_path
from pmim_analytics.store.ingest import IngestResult, ingest_paths
from pmim_analytics.sweep.run import pairing_folder
from pmim_analytics.sweep.spec import Sweep


def loaded_parts(sweep: Sweep, db: str | Path | None) -> set[tuple[str, int]]:
    """(pairing id, part) of every part whose games are all in the database (none if it does not exist).

    Raises :class:`StoreError` if the database cannot be read.
    """
    if not resolve_db_path(db).exists():
        return set()
    size = sweep.spec.part_size
    prefix = sweep.spec.name + "/"
    frame = read_frame(
        "SELECT batch, seed, (game_index // $size)::INTEGER AS part, count(*)::INTEGER AS n FROM games "
        "WHERE starts_with(batch, $prefix) AND source = 'engine' GROUP BY ALL",
        {"size": size, "prefix": prefix}, db)
    counts = {(b, s, p): n for b, s, p, n in frame.iter_rows()}
    found = set()
    for pairing in sweep.pairings:
        for part, start, stop in chunks(pairing.games, size):
            if counts.get((prefix + pairing.id, pairing.seed, part)) == stop - start:
                found.add((pairing.id, part))
    return found


def parts_to_load(sweep: Sweep, out: Path, db: str | Path | None) -> list[Path]:
    """The games files of the complete parts in ``out`` that the database does not hold yet."""
    loaded = loaded_parts(sweep, db)
    files: list[Path] = []
    for pairing in sweep.pairings:
        folder = pairing_folder(out, pairing)
        if folder.is_dir():
            files.extend(part_path(folder, "games", part) for part in list_parts(folder)
                         if (pairing.id, part) not in loaded)
    return files


def ingest_sweep(sweep: Sweep, out: str | Path, db: str | Path | None = None,
                 progress: Callable[[int, int, IngestResult], None] | None = None) -> IngestResult:
    """Load the sweep's parts not yet in the database (see :func:`ingest_paths` for the rest).

    Raises :class:`StoreError` when the database cannot be read or written.
    """
    files = parts_to_load(sweep, Path(out), db)
    if not files:
        return IngestResult()
    return ingest_paths([str(f) for f in files], db, progress=progress)
