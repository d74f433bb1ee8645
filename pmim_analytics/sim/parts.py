"""A batch's layout on disk, in a module that loads nothing (a sweep file's reader takes its
default from here before it loads the engine)."""

from __future__ import annotations

#: Games per chunk (and per Parquet part). Part of a batch's layout, not of its games.
PART_SIZE = 100
