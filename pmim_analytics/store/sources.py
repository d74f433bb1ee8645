"""What ``pmim ingest PATH...`` reads: files, folders and glob patterns, sorted out by kind.

- ``*.jsonl``: JSON Lines replays (one game a file);
- a folder holding ``games.<part>.parquet`` + ``events.<part>.parquet`` pairs: a Parquet
  batch (a part without its games file is still being written and is skipped);
- ``*.pmimlog``: manual playtest logs.

Folders are searched recursively. Order is stable (sorted), so runs are repeatable.
"""

from __future__ import annotations

import glob
from dataclasses import dataclass, field
from pathlib import Path

from pmim_analytics.errors import Location, ReplayError, display_path
from pmim_analytics.store.parquet import PART_NAME, ParquetPart

JSONL_SUFFIXES = (".jsonl",)
MANUAL_SUFFIXES = (".pmimlog",)


@dataclass
class Inputs:
    """The inputs found, by kind, plus notes on what was passed over."""

    jsonl: list[Path] = field(default_factory=list)
    parquet: list[ParquetPart] = field(default_factory=list)
    manual: list[Path] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def count(self) -> int:
        """Number of files and parts to read."""
        return len(self.jsonl) + len(self.parquet) + len(self.manual)


def _is_glob(text: str) -> bool:
    return any(ch in text for ch in "*?[")


def _part_of(path: Path) -> ParquetPart | None:
    m = PART_NAME.match(path.name)
    if m is None:
        events_m = path.name.startswith("events.") and path.name.endswith(".parquet")
        if events_m:
            games = path.with_name("games." + path.name[len("events."):])
            if games.exists():
                return _part_of(games)
        return None
    events = path.with_name(f"events.{m.group(1)}.parquet")
    return ParquetPart(m.group(1), path, events)


def find_inputs(args: list[str | Path]) -> Inputs:
    """Expand paths, folders and globs into the inputs to ingest.

    Raises :class:`ReplayError` for a path that does not exist or a pattern that matches
    nothing (before anything is read), naming it.
    """
    found = Inputs()
    seen: set[Path] = set()
    files: list[tuple[Path, bool]] = []  # (file, named on the command line)
    for arg in args:
        text = str(arg)
        p = Path(text)
        if p.exists():
            candidates = [p]
        elif _is_glob(text):
            candidates = [Path(m) for m in sorted(glob.glob(text, recursive=True))]
            if not candidates:
                raise ReplayError("the pattern matches no file", Location(text))
        else:
            raise ReplayError("no such file or folder", Location(display_path(p)))
        for c in candidates:
            if c.is_dir():
                files.extend((x, False) for x in sorted(c.rglob("*")) if x.is_file())
            else:
                files.append((c, True))
    parts: dict[Path, ParquetPart] = {}
    for f, explicit in files:
        key = f.resolve()
        if key in seen:
            continue
        seen.add(key)
        name = f.name
        if name.endswith(JSONL_SUFFIXES):
            found.jsonl.append(f)
        elif name.endswith(MANUAL_SUFFIXES):
            found.manual.append(f)
        elif name.endswith(".parquet"):
            part = _part_of(f)
            if part is None:
                if name.startswith("events."):
                    found.notes.append(f"{display_path(f)}: its games file is not there yet "
                                       "(part still being written?); skipped")
                else:
                    found.notes.append(f"{display_path(f)}: not part of a Parquet batch "
                                       "(games.NNNNN.parquet + events.NNNNN.parquet); skipped")
                continue
            if not part.events.exists():
                found.notes.append(f"{display_path(part.games)}: its events file is missing; skipped")
                continue
            parts.setdefault(part.games.resolve(), part)
            seen.add(part.events.resolve())
        elif explicit:
            raise ReplayError("not a replay: expected a .jsonl replay, a .pmimlog manual log or a Parquet batch",
                              Location(display_path(f)))
    found.parquet = sorted(parts.values(), key=lambda p: str(p.games))
    return found
