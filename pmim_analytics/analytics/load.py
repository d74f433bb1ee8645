"""The one place analytics touch the database: short read-only queries returning Polars frames.

:class:`DuckDBData` is the database :class:`~.dataset.GameData`: each method runs one query
that computes a reduced frame (the same frame the Polars reducers compute from table rows;
a test checks they agree) on a short-lived read-only connection, its own or the one of an
enclosing :meth:`DuckDBData.session`. Connections come from the store's
:func:`~pmim_analytics.store.open_reader` (waits while an ingest holds the file, checks the
schema version). Nothing else in :mod:`pmim_analytics.analytics` imports DuckDB.

The default database is ``$PMIM_DB`` or ``data/pmim.duckdb`` (in the data folder).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import duckdb
import polars as pl

from pmim_analytics.analytics.dataset import Provenance
from pmim_analytics.analytics.rules_frames import complete_rules_frames
from pmim_analytics.errors import StoreError, display_path
from pmim_analytics.store.connection import open_reader, resolve_db_path

MISSING = "no database at {path}; create one with `make run` (the demo database) or `pmim ingest`"


def default_db_path() -> Path:
    """``$PMIM_DB`` if set, else ``data/pmim.duckdb`` under the data folder."""
    return resolve_db_path(None)


@contextmanager
def read_only(path: Path) -> Iterator[duckdb.DuckDBPyConnection]:
    """A short-lived read-only connection (the store's, which waits out an ingest's lock)."""
    if not path.exists():
        raise StoreError(MISSING.format(path=display_path(path)))
    with open_reader(path) as con:
        con.execute("SET python_enable_replacements = false")  # never read a Python variable as a table
        con.execute("SET preserve_insertion_order = false")  # every query that needs an order says so
        yield con


def query(path: Path, sql: str, params: dict[str, Any] | None = None) -> pl.DataFrame:
    """Run one query against the database at ``path`` and return its result as a Polars frame."""
    return queries(path, [sql], params)[0]


def queries(path: Path, sqls: list[str], params: dict[str, Any] | None = None,
            con: duckdb.DuckDBPyConnection | None = None) -> list[pl.DataFrame]:
    """Run several queries on one read-only connection (``con``, else a new short-lived one).

    ``params`` are bound by name; each query gets the ones it mentions.
    """
    if con is None:
        with read_only(path) as fresh:
            return queries(path, sqls, params, fresh)
    out = []
    for sql in sqls:
        used = {k: v for k, v in (params or {}).items() if f"${k}" in sql}
        try:
            out.append(con.sql(sql, params=used or None).pl())
        except duckdb.CatalogException as e:
            raise StoreError(f"{display_path(path)} is not a pmim database or is not migrated ({e})") from e
        except duckdb.Error as e:
            raise StoreError(f"query failed on {display_path(path)}: {e}") from e
    return out


class DuckDBData:
    """The games in a DuckDB file, filtered to ``rules_ids`` (all if ``None``) and ``source``."""

    def __init__(self, path: str | Path, rules_ids: tuple[str, ...] | list[str] | None = None,
                 source: str | None = None) -> None:
        self.path = Path(path)
        self.rules_ids = tuple(rules_ids) if rules_ids is not None else None
        self.source = source
        self._rules_tables: tuple[pl.DataFrame, pl.DataFrame] | None = None
        self._con: duckdb.DuckDBPyConnection | None = None
        if not self.path.exists():
            raise StoreError(MISSING.format(path=display_path(self.path)))

    @contextmanager
    def session(self) -> Iterator[DuckDBData]:
        """Share one read-only connection among the queries made inside the block.

        Without a session every query opens and closes its own connection.
        """
        if self._con is not None:
            yield self
            return
        with read_only(self.path) as con:
            self._con = con
            try:
                yield self
            finally:
                self._con = None

    # -- filtering --------------------------------------------------------------------

    def _where(self, alias: str = "") -> tuple[str, dict[str, Any]]:
        """SQL conditions on a table holding ``rules_id``/``source`` (aliased ``alias``)."""
        p = f"{alias}." if alias else ""
        conds, params = ["TRUE"], {}
        if self.rules_ids is not None:
            conds.append(f"list_contains($rules, {p}rules_id)")
            params["rules"] = list(self.rules_ids)
        if self.source is not None:
            conds.append(f"{p}source = $source")
            params["source"] = self.source
        return " AND ".join(conds), params

    def _q(self, sql: str, alias: str = "") -> pl.DataFrame:
        return self._qs([sql], alias)[0]

    def _qs(self, sqls: list[str], alias: str = "") -> list[pl.DataFrame]:
        where, params = self._where(alias)
        return queries(self.path, [s.replace("{where}", where) for s in sqls], params, self._con)

    # -- GameData ---------------------------------------------------------------------

    def provenance(self) -> Provenance:
        """Counts of the selected games and the hash of every game id in the database."""
        counts, digest = self._qs([
            "SELECT rules_id, count(*) AS n FROM games WHERE {where} GROUP BY rules_id",
            "SELECT sha256(coalesce(string_agg(game_id, chr(10) ORDER BY game_id), '')) AS h FROM games"])
        digest = digest["h"].item()
        by_rules = dict(zip(counts["rules_id"].to_list(), counts["n"].to_list(), strict=True))
        return Provenance(str(self.path), tuple(sorted(by_rules)), int(sum(by_rules.values())), by_rules,
                          self.source, digest)

    def unit_sums(self, by_loadout: bool = False, count_games: bool = True) -> pl.DataFrame:
        keys = "rules_id, source, code" + (", weapons" if by_loadout else "")  # type, kind follow from code
        cols = keys.split(", ")
        out_cols = ["rules_id", "source", "code", "type", "kind", *(["weapons"] if by_loadout else [])]
        # DISTINCT in the main aggregate makes DuckDB take a much slower path: count games apart,
        # and only when asked (it costs as much as all the sums together)
        games_sql = (f"SELECT {keys}, count(DISTINCT game_id)::BIGINT AS games FROM unit_game_stats "
                     f"WHERE {{where}} GROUP BY {keys}")
        found = self._qs([f"""
            SELECT {keys}, min(type) AS type, min(kind) AS kind,
              count(*)::BIGINT AS n, sum(pts)::BIGINT AS pts_sum,
              sum(attacks)::BIGINT AS attacks, sum(hits)::BIGINT AS hits,
              sum(damage_dealt)::BIGINT AS damage_dealt,
              sum(damage_dealt::BIGINT * damage_dealt)::BIGINT AS damage_sq,
              sum(overkill)::BIGINT AS overkill, sum(damage_taken)::BIGINT AS damage_taken,
              sum(kills)::BIGINT AS kills, sum(destroyed::INTEGER)::BIGINT AS destroyed,
              count(*) FILTER (destroyed AND round_destroyed IS NOT NULL)::BIGINT AS round_n,
              coalesce(sum(round_destroyed) FILTER (destroyed AND round_destroyed IS NOT NULL), 0)::BIGINT
                AS round_sum,
              count(vp_share)::BIGINT AS vp_n, coalesce(sum(vp_share), 0)::DOUBLE AS vp_sum,
              coalesce(sum(vp_share * vp_share), 0)::DOUBLE AS vp_sq,
              count(damage_dealt) FILTER (pts > 0)::BIGINT AS dpp_n,
              coalesce(sum(damage_dealt / pts) FILTER (pts > 0), 0)::DOUBLE AS dpp_sum,
              coalesce(sum((damage_dealt / pts) ^ 2) FILTER (pts > 0), 0)::DOUBLE AS dpp_sq,
              count(vp_share) FILTER (pts > 0)::BIGINT AS vpp_n,
              coalesce(sum(vp_share / pts) FILTER (pts > 0), 0)::DOUBLE AS vpp_sum,
              coalesce(sum((vp_share / pts) ^ 2) FILTER (pts > 0), 0)::DOUBLE AS vpp_sq
            FROM unit_game_stats WHERE {{where}} GROUP BY {keys}""", *([games_sql] if count_games else [])])
        sums = found[0]
        if count_games:
            sums = sums.join(found[1], on=cols, nulls_equal=True)
        else:
            sums = sums.with_columns(games=pl.lit(None, dtype=pl.Int64))
        return sums.select(*out_cols, "games", *[c for c in sums.columns if c not in (*out_cols, "games")]
                           ).sort(out_cols)

    def survival_counts(self, by_loadout: bool = False) -> pl.DataFrame:
        keys = "rules_id, source, code, type, kind" + (", weapons" if by_loadout else "")
        return self._q(f"""
            SELECT {keys}, t AS round, destroyed, count(*)::BIGINT AS n FROM (
              SELECT *, (CASE WHEN destroyed THEN round_destroyed ELSE rounds_played END)::BIGINT AS t
              FROM unit_game_stats WHERE {{where}})
            WHERE t IS NOT NULL
            GROUP BY {keys}, t, destroyed ORDER BY {keys}, round, destroyed""")

    # Targets: only the units of games that have attacks (most games may have no events).
    _ATTACKS = """
        FROM events e JOIN games g ON g.game_id = e.game_id
        LEFT JOIN (SELECT game_id, unit_id, code, type, kind FROM units
                   WHERE game_id IN (SELECT game_id FROM events WHERE type = 'attack')) t
          ON t.game_id = e.game_id AND t.unit_id = e.target
        WHERE e.type = 'attack' AND {where}"""

    def attack_strata(self) -> pl.DataFrame:
        return self._q("""
            SELECT g.rules_id, g.source, e.weapon, t.code AS target_code, min(t.type) AS target_type,
              min(t.kind) AS target_kind, (e.needed - e.acc)::BIGINT AS threshold, e.hit, e.damage::BIGINT AS damage,
              count(*)::BIGINT AS n, coalesce(sum(e.overkill), 0)::BIGINT AS overkill""" + self._ATTACKS + """
            GROUP BY 1, 2, 3, 4, 7, 8, 9""", alias="g")  # type and kind follow from the code

    def side_attack_strata(self) -> pl.DataFrame:
        return self._q("""
            SELECT e.game_id, min(g.rules_id) AS rules_id, min(g.source) AS source,
              CASE WHEN starts_with(e.unit, 'B:') THEN 'blue' WHEN starts_with(e.unit, 'R:') THEN 'red' END AS side,
              e.weapon, t.code AS target_code, (e.needed - e.acc)::BIGINT AS threshold,
              count(*)::BIGINT AS n, sum(coalesce(e.hit, false)::INTEGER)::BIGINT AS hits,
              coalesce(sum(e.damage), 0)::BIGINT AS damage, coalesce(sum(e.overkill), 0)::BIGINT AS overkill
            """ + self._ATTACKS + """
            GROUP BY 1, 4, 5, 6, 7""", alias="g")  # rules id and source follow from the game; unordered

    def matchup_cells(self) -> pl.DataFrame:
        return self._q("""
            SELECT g.rules_id, g.source, s.composition, s.army_hash, s.bot, s.side,
              o.composition AS opp_composition, o.army_hash AS opp_army_hash, o.bot AS opp_bot,
              (g.first_side = s.side) AS first, s.result,
              count(*)::BIGINT AS n, count(s.vp - o.vp)::BIGINT AS margin_n,
              coalesce(sum(s.vp - o.vp), 0)::BIGINT AS margin_sum,
              coalesce(sum((s.vp - o.vp)::BIGINT * (s.vp - o.vp)), 0)::BIGINT AS margin_sq,
              count(g.rounds)::BIGINT AS rounds_n, coalesce(sum(g.rounds), 0)::BIGINT AS rounds_sum,
              coalesce(sum(g.rounds::BIGINT * g.rounds), 0)::BIGINT AS rounds_sq
            FROM sides s JOIN sides o ON o.game_id = s.game_id AND o.side <> s.side
            JOIN games g ON g.game_id = s.game_id
            WHERE {where}
            GROUP BY ALL ORDER BY ALL NULLS LAST""", alias="g")

    def game_cells(self) -> pl.DataFrame:
        return self._q("""
            SELECT g.rules_id, g.source, b.army_hash AS blue_hash, r.army_hash AS red_hash,
              count(*)::BIGINT AS n, count(*) FILTER (g.winner = 'blue')::BIGINT AS blue_wins,
              count(*) FILTER (g.winner = 'red')::BIGINT AS red_wins,
              count(*) FILTER (g.winner IS NULL)::BIGINT AS draws,
              count(g.blue_vp - g.red_vp)::BIGINT AS margin_n,
              coalesce(sum(g.blue_vp - g.red_vp), 0)::BIGINT AS margin_sum,
              coalesce(sum((g.blue_vp - g.red_vp)::BIGINT * (g.blue_vp - g.red_vp)), 0)::BIGINT AS margin_sq
            FROM games g JOIN sides b ON b.game_id = g.game_id AND b.side = 'blue'
            JOIN sides r ON r.game_id = g.game_id AND r.side = 'red'
            WHERE {where}
            GROUP BY ALL ORDER BY ALL""", alias="g")

    def army_rosters(self) -> pl.DataFrame:
        return self._q("""
            WITH rep AS (
              SELECT rules_id, army_hash, game_id, side FROM (
                SELECT g.rules_id, s.army_hash, s.game_id, s.side,
                  row_number() OVER (PARTITION BY g.rules_id, s.army_hash ORDER BY s.game_id, s.side) AS k
                FROM sides s JOIN games g ON g.game_id = s.game_id WHERE {where})
              WHERE k = 1)
            SELECT rep.rules_id, rep.army_hash, u.code, u.type, u.kind, count(*)::BIGINT AS count,
              sum(u.pts)::BIGINT AS pts_sum
            FROM rep JOIN units u ON u.game_id = rep.game_id AND u.side = rep.side
            GROUP BY ALL ORDER BY rep.rules_id, rep.army_hash, u.code""", alias="g")

    def game_counts(self) -> pl.DataFrame:
        return self._q("""
            SELECT rules_id, source, rounds::BIGINT AS rounds, reason, winner IS NULL AS draw, count(*)::BIGINT AS n
            FROM games WHERE {where} GROUP BY ALL ORDER BY ALL NULLS LAST""")

    def round_scores(self) -> pl.DataFrame:
        return self._q("""
            SELECT e.game_id, g.rules_id, g.source, e.round::BIGINT AS round, e.blue_vp::BIGINT AS blue_vp,
              e.red_vp::BIGINT AS red_vp
            FROM events e JOIN games g ON g.game_id = e.game_id
            WHERE e.type = 'round_end' AND {where}""", alias="g")  # lead_changes orders what it needs

    def game_winners(self) -> pl.DataFrame:
        return self._q("SELECT game_id, winner FROM games WHERE {where}")

    def rules_tables(self) -> tuple[pl.DataFrame, pl.DataFrame]:
        """The database's rules stats for the selected games, completed from the catalogue.

        Read once per instance: a rules id's stats never change.
        """
        if self._rules_tables is None:
            self._rules_tables = self._read_rules_tables()
        return self._rules_tables

    def _read_rules_tables(self) -> tuple[pl.DataFrame, pl.DataFrame]:
        sel = "list_contains((SELECT list(DISTINCT rules_id) FROM games WHERE {where}), rules_id)"
        ids, units, weapons = self._qs(["SELECT DISTINCT rules_id FROM games WHERE {where}",
                                        f"SELECT * FROM rules_units WHERE {sel}",
                                        f"SELECT * FROM rules_weapons WHERE {sel}"])
        return complete_rules_frames(ids["rules_id"].to_list(), units, weapons)
