"""The replay database: DuckDB connection and migrations, ingest, integrity check.

Readers (analytics, dashboard) use :func:`open_reader` / :func:`read_frame`; the ingest
writes through :func:`open_writer`. See :mod:`pmim_analytics.store.ingest`.
"""

from pmim_analytics.store.connection import open_reader, open_writer, read_frame, resolve_db_path
from pmim_analytics.store.ingest import IngestResult, ingest_paths
from pmim_analytics.store.rejects import Rejection

__all__ = ["IngestResult", "Rejection", "ingest_paths", "open_reader", "open_writer", "read_frame",
           "resolve_db_path"]
