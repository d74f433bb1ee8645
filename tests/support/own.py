"""Ingest of hand-made fixture games as replays "written by this installation".

The store's tests build small games by hand to pin the set-based checks, the aggregates
and crash safety; most of them are not legal games (one Warmech, no deployment turns), so
the rules check would refuse them. :func:`ingest_own` signs them with the test session's
installation key (``PMIM_KEY_FILE``, set in ``tests/conftest.py``) and ingests with
``trust_own``, exactly as ``pmim ingest --trust-own`` treats what ``pmim simulate`` wrote.
Tests of the rules check itself call :func:`pmim_analytics.store.ingest_paths`.
"""

from __future__ import annotations

import glob
from collections import defaultdict
from pathlib import Path
from typing import Any

from pmim_analytics.replay.provenance import sign_files
from pmim_analytics.store import ingest_paths
from pmim_analytics.store.ingest import IngestResult


def sign_inputs(paths: list[Any]) -> None:
    """Sign every replay and Parquet file at ``paths`` (files, folders, globs)."""
    by_folder: dict[Path, list[Path]] = defaultdict(list)
    for arg in paths:
        p = Path(str(arg))
        found = [p] if p.is_file() else sorted(p.rglob("*")) if p.is_dir() else [Path(m) for m in glob.glob(str(arg))]
        for f in found:
            if f.is_file() and f.suffix in (".jsonl", ".parquet"):
                by_folder[f.parent].append(f)
            if f.is_file() and f.name.startswith("games.") and f.suffix == ".parquet":
                ev = f.with_name("events." + f.name[len("games."):])
                if ev.is_file():
                    by_folder[f.parent].append(ev)
    for folder, files in by_folder.items():
        sign_files(folder, files)


def ingest_own(paths: list[Any], db: Any = None, **kw: Any) -> IngestResult:
    """Sign ``paths`` then ingest them with ``trust_own=True``."""
    sign_inputs(paths)
    return ingest_paths(paths, db, trust_own=True, **kw)
