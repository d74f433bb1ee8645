"""Balance analytics over PMIM games: pure functions from Polars frames to Polars frames.

Games come in as a :class:`~.dataset.GameData`: :class:`~.dataset.FrameData` over frames shaped
like the database tables (:class:`~.frames.Frames`), or the store's
:class:`~pmim_analytics.store.readers.DuckDBData` over a database file (nothing in this
package imports DuckDB). The report tables are the ``*_report`` functions of
:mod:`.tables`; the exact dice maths is :mod:`.dice`.

Example::

    from pmim_analytics.analytics import tables
    from pmim_analytics.store.readers import DuckDBData
    data = DuckDBData("data/pmim.duckdb", ["v3"], source="engine")
    tables.unit_report(data)          # a Polars frame
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pmim_analytics.lazy import load_attribute

if TYPE_CHECKING:
    from pmim_analytics.analytics import tables
    from pmim_analytics.analytics.dataset import FrameData, GameData, Provenance
    from pmim_analytics.analytics.dice import dice_rows, dice_table
    from pmim_analytics.analytics.frames import SCHEMAS, Frames, content_hash

#: Where each name of the package lives. They load on first use (Polars with them), so that a
#: command importing one light module of the package (:mod:`.defaults`, :mod:`.flags`) to
#: build its options does not load Polars before it has checked them.
_HOMES = {
    "tables": "pmim_analytics.analytics.tables",
    "FrameData": "pmim_analytics.analytics.dataset", "GameData": "pmim_analytics.analytics.dataset",
    "Provenance": "pmim_analytics.analytics.dataset", "dice_rows": "pmim_analytics.analytics.dice",
    "dice_table": "pmim_analytics.analytics.dice", "SCHEMAS": "pmim_analytics.analytics.frames",
    "Frames": "pmim_analytics.analytics.frames", "content_hash": "pmim_analytics.analytics.frames",
}


def __getattr__(name: str) -> Any:
    return load_attribute(__name__, _HOMES, name)


__all__ = [
    "SCHEMAS",
    "FrameData",
    "Frames",
    "GameData",
    "Provenance",
    "content_hash",
    "dice_rows",
    "dice_table",
    "tables",
]
