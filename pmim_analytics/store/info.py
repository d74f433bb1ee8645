"""``pmim db info``: what the database holds, in a few numbers."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import duckdb

from pmim_analytics.errors import Location, StoreError, display_path
from pmim_analytics.store.connection import explain_db_error, open_reader, resolve_db_path
from pmim_analytics.store.migrate import latest_version, schema_version


@dataclass(frozen=True)
class DbInfo:
    """Schema version, file size and game counts per source and rules version."""

    path: Path
    schema_version: int
    latest_version: int
    size_bytes: int
    games: int
    events: int
    by_source_rules: tuple[tuple[str, str, int, int], ...]  # source, rules id, games, events
    rejects: int
    last_ingest: str | None
    rules_checked: int = 0  # games replayed through the rules before they were stored (game_checks)


def db_info(db: str | Path | None = None) -> DbInfo:
    """Read the database's vital numbers (read-only). Raises :class:`StoreError`."""
    path = resolve_db_path(db)
    with open_reader(path) as con:
        try:
            rows = con.execute("""
                SELECT source, rules_id, count(*), sum(n_events) FROM games
                GROUP BY ALL ORDER BY source, rules_id""").fetchall()
            games, events, rejects, last = con.execute("""
                SELECT (SELECT count(*) FROM games), (SELECT count(*) FROM events),
                       (SELECT count(*) FROM ingest_rejects), (SELECT max(ingested_at) FROM games)""").fetchall()[0]
            version = schema_version(con)
            checked = con.execute("SELECT count(*) FILTER (WHERE rules_checked) FROM game_checks "
                                  "SEMI JOIN games USING (game_id)").fetchall()[0][0]
        except duckdb.Error as e:
            raise StoreError(explain_db_error(e, True), Location(display_path(path))) from e
    size = sum(p.stat().st_size for p in (path, Path(str(path) + ".wal")) if p.exists())
    return DbInfo(path, version, latest_version(), size, int(games), int(events),
                  tuple((s, r, int(n), int(e or 0)) for s, r, n, e in rows), int(rejects),
                  str(last)[:19] if last else None, int(checked or 0))
