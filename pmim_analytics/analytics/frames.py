"""The frame shapes analytics work on: one per database table, and the bundle of them.

Every analytic in this package is a pure function over Polars frames shaped like the
tables of ``sql/001_initial.sql`` (same column names; the dtypes below are what DuckDB's
``.pl()`` gives for those columns; ``games.ingested_at`` is left out, never analysed).
:class:`Frames` bundles the tables of a set of games, e.g. built by hand in a test or read
from Parquet.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass, replace

import polars as pl

from pmim_analytics.model.events import COLUMN_TYPES, EVENT_COLUMNS

S, I32, I64, F64, B = pl.Utf8, pl.Int32, pl.Int64, pl.Float64, pl.Boolean

#: Column name -> Polars dtype, per table (the order of ``sql/001_initial.sql``).
SCHEMAS: dict[str, dict[str, pl.DataType | type[pl.DataType]]] = {
    "games": {
        "game_id": S, "source": S, "rules_id": S, "scenario": S, "seed": I64, "game_index": I32, "batch": S,
        "played": S, "winner": S, "reason": S, "rounds": I32, "blue_vp": I32, "red_vp": I32, "first_side": S,
        "n_events": I32, "file": S, "not_recorded": S, "vp_estimated": B, "readings": S,
    },
    "sides": {
        "game_id": S, "side": S, "composition": S, "army_hash": S, "points": I32, "bot": S, "player": S,
        "n_units": I32, "vp": I32, "result": S,
    },
    "units": {
        "game_id": S, "unit_id": S, "side": S, "code": S, "type": S, "kind": S, "weapons": S, "pts": I32,
    },
    # the wide event row, from its one declaration (pmim_analytics.model.events.schema)
    "events": {name: getattr(pl, COLUMN_TYPES[sql].polars) for name, sql in EVENT_COLUMNS},
    "unit_game_stats": {
        "game_id": S, "unit_id": S, "side": S, "rules_id": S, "source": S, "code": S, "type": S, "kind": S,
        "weapons": S, "pts": I32, "attacks": I32, "hits": I32, "damage_dealt": I32, "overkill": I32,
        "damage_taken": I32, "kills": I32, "destroyed": B, "round_destroyed": I32, "rounds_played": I32,
        "vp_share": F64, "vp_rounds": I32,
    },
    "rules_units": {
        "rules_id": S, "code": S, "name": S, "kind": S, "body": S, "weight_class": S, "tons": I32, "hp": I32,
        "mov": I32, "def": I32, "arm": I32, "spt": I32, "pts": I32,
    },
    "rules_weapons": {
        "rules_id": S, "code": S, "name": S, "rng": I32, "acc": I32, "rpt": I32, "strength": I32, "ton": I32,
    },
}


def empty_frame(table: str) -> pl.DataFrame:
    """An empty frame with the columns and dtypes of ``table``."""
    return pl.DataFrame(schema=SCHEMAS[table])


def conform(df: pl.DataFrame, table: str) -> pl.DataFrame:
    """Return ``df`` with exactly the columns of ``table``, in order and cast to its dtypes.

    Columns the table has and ``df`` lacks are added as nulls; extra columns are dropped.
    Raises ``ValueError`` when a value cannot be cast (a programming error, not user input).
    """
    schema = SCHEMAS[table]
    cols = [
        (pl.col(c).cast(t, strict=True) if c in df.columns else pl.lit(None, dtype=t)).alias(c)
        for c, t in schema.items()
    ]
    return df.select(cols)


def content_hash(game_ids: Iterable[str]) -> str:
    """The database content hash: SHA-256 of the sorted game ids, one per line (hex).

    Game ids are themselves content hashes, so equal hashes mean the same set of games.
    The loader computes the same value in SQL (``sha256(string_agg(... ORDER BY game_id))``).
    """
    text = "\n".join(sorted(game_ids))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class Frames:
    """The tables of a set of games as Polars frames (see :data:`SCHEMAS`).

    ``rules_units`` and ``rules_weapons`` may be empty: analytics then take the stats of a
    rules id from the rules catalogue (:func:`pmim_analytics.rules.load_rules`).
    """

    games: pl.DataFrame
    sides: pl.DataFrame
    units: pl.DataFrame
    unit_game_stats: pl.DataFrame
    events: pl.DataFrame
    rules_units: pl.DataFrame
    rules_weapons: pl.DataFrame

    @classmethod
    def of(cls, **tables: pl.DataFrame) -> Frames:
        """Build a bundle from whichever tables are given; the others are empty."""
        unknown = set(tables) - set(SCHEMAS)
        if unknown:
            raise ValueError(f"unknown tables: {', '.join(sorted(unknown))}")
        return cls(**{t: conform(tables[t], t) if t in tables else empty_frame(t) for t in SCHEMAS})

    def filtered(self, rules_ids: Iterable[str] | None = None, source: str | None = None,
                 game_ids: Iterable[str] | None = None) -> Frames:
        """Keep the games of these rules ids (all when ``None``), this source (engine|manual) and,
        when ``game_ids`` is given, these games; always only those played as the data files read
        (``readings`` null), as the database's readers keep to them."""
        ids = None if game_ids is None else list(game_ids)
        games = self.games.filter(pl.col("readings").is_null())
        if ids is not None:
            games = games.filter(pl.col("game_id").is_in(ids))
        if rules_ids is not None:
            games = games.filter(pl.col("rules_id").is_in(list(rules_ids)))
        if source is not None:
            games = games.filter(pl.col("source") == source)
        keep = games.select("game_id")

        def by_game(df: pl.DataFrame) -> pl.DataFrame:
            return df.join(keep, on="game_id", how="semi")

        return replace(
            self, games=games, sides=by_game(self.sides), units=by_game(self.units),
            unit_game_stats=by_game(self.unit_game_stats), events=by_game(self.events),
        )
