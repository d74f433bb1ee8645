"""Reading stored games back for viewers: the list of games, and one game's units and events.

Every read is a short-lived read-only connection with the store's lock retry
(:func:`~pmim_analytics.store.connection.open_reader`), so a viewer copes with an ingest
running at the same time.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import duckdb
import polars as pl

from pmim_analytics.errors import StoreError
from pmim_analytics.model.events import Event, event_from_row
from pmim_analytics.store.connection import READ_TIMEOUT, open_reader

_GAME_COLUMNS = """g.game_id, g.source, g.rules_id, g.scenario, g.played, g.ingested_at, b.composition AS blue,
  r.composition AS red, g.winner, g.reason, g.rounds, g.blue_vp, g.red_vp, g.n_events, g.batch, g.file"""


@dataclass(frozen=True)
class StoredGame:
    """One game as stored: its ``games`` row with both compositions, its units, its events."""

    info: dict[str, Any]
    units: pl.DataFrame  # unit_id, side, code, type, kind, weapons, pts
    events: tuple[Event, ...]

    @property
    def unit_labels(self) -> dict[str, str]:
        """``{"B:TW1": "Timber Wolf (GG ML)"}`` for hover texts and lists."""
        return {u: f"{t} ({w})" if w else t for u, t, w in self.units.select("unit_id", "type", "weapons").iter_rows()}


def _filters(rules_ids: list[str] | tuple[str, ...] | None, source: str | None,
             composition: str | None) -> tuple[str, dict[str, Any]]:
    conds: list[str] = ["TRUE"]
    params: dict[str, Any] = {}
    if rules_ids is not None:
        conds.append("list_contains($rules, g.rules_id)")
        params["rules"] = list(rules_ids)
    if source is not None:
        conds.append("g.source = $source")
        params["source"] = source
    if composition is not None:
        conds.append("(b.composition = $comp OR r.composition = $comp)")
        params["comp"] = composition
    return " AND ".join(conds), params


def _run(db: str | Path | None, sqls: list[tuple[str, dict[str, Any]]], timeout: float,
         on_wait: Callable[[str], None] | None) -> list[pl.DataFrame]:
    with open_reader(db, timeout=timeout, on_wait=on_wait) as con:
        try:
            return [con.sql(sql, params=params or None).pl() for sql, params in sqls]
        except duckdb.Error as e:
            raise StoreError(f"query failed: {str(e).strip().splitlines()[0]}") from e


def list_games(db: str | Path | None = None, rules_ids: list[str] | tuple[str, ...] | None = None,
               source: str | None = None, composition: str | None = None, limit: int = 500,
               with_events_only: bool = False, *, timeout: float = READ_TIMEOUT,
               on_wait: Callable[[str], None] | None = None) -> pl.DataFrame:
    """The newest ``limit`` games of the selection (newest ingest first), one row each.

    Columns: game_id, source, rules_id, scenario, played, ingested_at, blue, red (the
    compositions), winner, reason, rounds, blue_vp, red_vp, n_events, batch, file.
    Raises :class:`StoreError` (missing, locked or foreign database).
    """
    where, params = _filters(rules_ids, source, composition)
    if with_events_only:
        where += " AND g.n_events > 1"
    sql = f"""SELECT {_GAME_COLUMNS} FROM games g
      JOIN sides b ON b.game_id = g.game_id AND b.side = 'blue'
      JOIN sides r ON r.game_id = g.game_id AND r.side = 'red'
      WHERE {where} ORDER BY g.ingested_at DESC, g.game_id LIMIT {int(limit)}"""
    return _run(db, [(sql, params)], timeout, on_wait)[0]


def selection_choices(db: str | Path | None = None, *, timeout: float = READ_TIMEOUT,
                      on_wait: Callable[[str], None] | None = None) -> dict[str, list[str]]:
    """What the database holds to filter on: ``rules_ids``, ``sources`` and ``compositions``, sorted."""
    rules, sources, comps = _run(db, [
        ("SELECT DISTINCT rules_id AS v FROM games ORDER BY 1", {}),
        ("SELECT DISTINCT source AS v FROM games ORDER BY 1", {}),
        ("SELECT DISTINCT composition AS v FROM sides ORDER BY 1", {})], timeout, on_wait)
    return {"rules_ids": rules["v"].to_list(), "sources": sources["v"].to_list(),
            "compositions": comps["v"].to_list()}


def read_stored_game(game_id: str, db: str | Path | None = None, *, timeout: float = READ_TIMEOUT,
                     on_wait: Callable[[str], None] | None = None) -> StoredGame:
    """One game's row, units and events (in ``seq`` order) from the database.

    Raises :class:`StoreError` when there is no such game or the database cannot be read.
    """
    p = {"g": game_id}
    info, units, events = _run(db, [
        (f"""SELECT {_GAME_COLUMNS} FROM games g
             JOIN sides b ON b.game_id = g.game_id AND b.side = 'blue'
             JOIN sides r ON r.game_id = g.game_id AND r.side = 'red' WHERE g.game_id = $g""", p),
        ("SELECT unit_id, side, code, type, kind, weapons, pts FROM units WHERE game_id = $g "
         "ORDER BY side, unit_id", p),
        ("SELECT * FROM events WHERE game_id = $g ORDER BY seq", p)], timeout, on_wait)
    if info.height == 0:
        raise StoreError(f"no game {game_id!r} in the database")
    try:
        evs = tuple(event_from_row(r) for r in events.iter_rows(named=True))
    except (KeyError, TypeError, ValueError) as e:
        raise StoreError(f"game {game_id!r} has an event the viewer cannot read ({e})") from e
    return StoredGame(info.row(0, named=True), units, evs)
