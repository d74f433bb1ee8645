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

from pmim_analytics.analytics import tables
from pmim_analytics.analytics.dataset import FrameData, GameData, Provenance
from pmim_analytics.analytics.dice import dice_rows, dice_table
from pmim_analytics.analytics.frames import SCHEMAS, Frames, content_hash

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
