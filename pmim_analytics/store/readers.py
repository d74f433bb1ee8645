"""The analytics' database readers: short read-only queries returning Polars frames.

:class:`DuckDBData` is the database :class:`~.dataset.GameData`: each method runs one query
that computes a reduced frame (the same frame the Polars reducers compute from table rows;
a test checks they agree) on a short-lived read-only connection, its own or the one of an
enclosing :meth:`DuckDBData.session`. Connections come from the store's
:func:`~pmim_analytics.store.open_reader` (waits while an ingest holds the file, checks the
schema version). The analytics themselves (:mod:`pmim_analytics.analytics`) never see DuckDB:
they take frames, and this module is where the database turns into frames.

The default database is ``$PMIM_DB`` or ``data/pmim.duckdb`` (in the data folder).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import duckdb
import polars as pl

from pmim_analytics.analytics import luck, optional_rules, units
from pmim_analytics.analytics.compositions import fold_estimated
from pmim_analytics.analytics.dataset import Provenance
from pmim_analytics.analytics.levels import HUMAN, labels_at, levels_from_pairs
from pmim_analytics.analytics.rules_frames import complete_rules_frames
from pmim_analytics.errors import Location, StoreError, display_path
from pmim_analytics.store.connection import explain_db_error, open_reader, resolve_db_path
from pmim_analytics.store.rollups import BY_TABLE, reaggregate_sql

MISSING = "no database at {path}; create one with `make run` (the demo database) or `pmim ingest`"
_DIGESTS: dict[tuple[str, int, str | None], str] = {}  # (file, games, latest ingest) -> content hash


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
        except (duckdb.IOException, duckdb.PermissionException) as e:
            raise StoreError(explain_db_error(e, True), Location(display_path(path))) from e
        except duckdb.Error as e:
            raise StoreError(f"query failed on {display_path(path)}: {e}") from e
    return out


class DuckDBData:
    """The games in a DuckDB file, filtered to ``rules_ids`` (all if ``None``), ``source`` and
    ``bot_level`` (a canonical level key, see :mod:`~pmim_analytics.analytics.levels`; all
    levels if ``None``: only for reports that compare levels, such as robustness)."""

    def __init__(self, path: str | Path, rules_ids: tuple[str, ...] | list[str] | None = None,
                 source: str | None = None, include_estimated: bool = False, bot_level: str | None = None) -> None:
        self.path = Path(path)
        self.rules_ids = tuple(rules_ids) if rules_ids is not None else None
        self.source = source
        self.include_estimated = include_estimated
        self.bot_level = bot_level
        self._bots: list[str] | None = None  # the recorded bot labels at bot_level
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

    def at_level(self, bot_level: str | None) -> DuckDBData:
        """The same selection at one bot level (a canonical key; ``None``: every level)."""
        return DuckDBData(self.path, self.rules_ids, self.source, self.include_estimated, bot_level)

    def bot_levels(self) -> pl.DataFrame:
        """Games per rules id, source and bot level in the selection (every level, whatever
        ``bot_level`` is): columns rules_id, source, level, games."""
        where, params = DuckDBData(self.path, self.rules_ids, self.source)._where("g")
        pairs = queries(self.path, [f"""
            SELECT g.rules_id, g.source, b.bot AS blue_bot, r.bot AS red_bot, count(*)::BIGINT AS games
            FROM games g LEFT JOIN sides b ON b.game_id = g.game_id AND b.side = 'blue'
            LEFT JOIN sides r ON r.game_id = g.game_id AND r.side = 'red' WHERE {where} GROUP BY ALL"""],
                        params, self._con)[0]
        return levels_from_pairs(pairs)

    def _level_bots(self) -> list[str]:
        if self._bots is None:
            assert self.bot_level is not None
            found = queries(self.path, ["SELECT DISTINCT coalesce(bot, 'human') AS bot FROM sides"], None, self._con)[0]
            # an impossible label keeps the list typed when no recorded bot plays at the level
            self._bots = list(labels_at(self.bot_level, found["bot"].to_list())) or ["\x00none"]
        return self._bots

    def _where(self, alias: str = "", by: str = "game", as_written: bool = True) -> tuple[str, dict[str, Any]]:
        """SQL conditions on a table holding ``rules_id``/``source`` (aliased ``alias``).

        The bot level is tested ``by`` the table's columns: ``game`` (its ``game_id``: both
        sides of the game at the level), ``pair`` (the rollups' ``blue_bot``/``red_bot``),
        ``cells`` (the matchup cells' ``bot``/``opp_bot``) or ``none`` (rosters: the same
        whatever the level).

        With ``as_written`` (always, but for counting the others) a table read ``by`` game
        keeps to the games played as the data files read: a game played under another
        reading in doubt (``games.readings``) is a different game and is left out, as the
        rollups leave it out (``store.rollups.as_written``).
        """
        p = f"{alias}." if alias else ""
        conds: list[str] = ["TRUE"]
        params: dict[str, Any] = {}
        if as_written and by == "game":
            conds.append(f"{p}game_id NOT IN (SELECT game_id FROM games WHERE readings IS NOT NULL)")
        if self.rules_ids is not None:
            conds.append(f"list_contains($rules, {p}rules_id)")
            params["rules"] = list(self.rules_ids)
        if self.source is not None:
            conds.append(f"{p}source = $source")
            params["source"] = self.source
        if self.bot_level is not None and by != "none":
            params["bots"] = self._level_bots()
            at = "list_contains($bots, coalesce({}, '" + HUMAN + "'))"
            if by == "game":
                conds.append(f"{p}game_id IN (SELECT game_id FROM sides GROUP BY game_id "
                             f"HAVING bool_and({at.format('bot')}))")
            else:
                a, b = ("blue_bot", "red_bot") if by == "pair" else ("bot", "opp_bot")
                conds.append(f"{at.format(p + a)} AND {at.format(p + b)}")
        return " AND ".join(conds), params

    def _q(self, sql: str, alias: str = "", by: str = "game") -> pl.DataFrame:
        return self._qs([sql], alias, by)[0]

    def _qs(self, sqls: list[str], alias: str = "", by: str = "game") -> list[pl.DataFrame]:
        where, params = self._where(alias, by)
        return queries(self.path, [s.replace("{where}", where) for s in sqls], params, self._con)

    # -- GameData ---------------------------------------------------------------------

    def provenance(self) -> Provenance:
        """Counts of the selected games and the hash of every game id in the database.

        The hash sorts every game id (a third of a second at a million games), so it is
        remembered per database file and content (games only ever get added: same count,
        same latest ingest, same games) for as long as the process lives.
        """
        counts, state = self._qs([
            "SELECT rules_id, count(*) AS n FROM games WHERE {where} GROUP BY rules_id",
            "SELECT count(*) AS n, max(ingested_at)::VARCHAR AS latest FROM games"])
        where, params = self._where(as_written=False)
        other = queries(self.path, [f"SELECT count(*) AS n FROM games WHERE {where} AND readings IS NOT NULL"],
                        params, self._con)[0]["n"].item()
        key = (str(self.path.resolve()), state["n"].item(), state["latest"].item())
        digest = _DIGESTS.get(key)
        if digest is None:
            digest = self._q("SELECT sha256(coalesce(string_agg(game_id, chr(10) ORDER BY game_id), '')) AS h "
                             "FROM games")["h"].item()
            _DIGESTS[key] = digest
        by_rules = dict(zip(counts["rules_id"].to_list(), counts["n"].to_list(), strict=True))
        return Provenance(str(self.path), tuple(sorted(by_rules)), int(sum(by_rules.values())), by_rules,
                          self.source, digest, bot_level=self.bot_level, other_readings=int(other))

    # Every reduced frame below but game counts and winners is re-aggregated from the store's
    # rollups (pmim_analytics.store.rollups): partial aggregates the ingest keeps per batch, so a
    # report never scans the millions of rows of unit_game_stats or events.

    def unit_sums(self, by_loadout: bool = False, count_games: bool = True) -> pl.DataFrame:
        keys = ["rules_id", "source", "code", *(["weapons"] if by_loadout else [])]
        out_cols = ["rules_id", "source", "code", "type", "kind", *(["weapons"] if by_loadout else [])]
        values = [v for v in BY_TABLE["rollup_unit_sums"].values if v != "games"]
        sqls = [reaggregate_sql("rollup_unit_sums", keys, "{where}", values)]
        if count_games:  # distinct games do not add up over loadouts: a rollup of their own
            sqls.append(reaggregate_sql("rollup_unit_sums" if by_loadout else "rollup_unit_games", keys, "{where}",
                                        ["games"]))
        found = self._qs(sqls, by="pair")
        sums = found[0]
        if count_games:
            sums = sums.join(found[1], on=keys, nulls_equal=True)
        else:
            sums = sums.with_columns(games=pl.lit(None, dtype=pl.Int64))
        return sums.select(*out_cols, "games", *[c for c in sums.columns if c not in (*out_cols, "games")]
                           ).sort(out_cols)

    def survival_counts(self, by_loadout: bool = False) -> pl.DataFrame:
        keys = ["rules_id", "source", "code", "type", "kind", *(["weapons"] if by_loadout else []), "round",
                "destroyed"]
        return self._q(reaggregate_sql("rollup_survival", keys, "{where}") + " ORDER BY ALL", by="pair")

    def unit_game_sums(self, by_loadout: bool = False) -> pl.DataFrame:
        keys = ["game_id", "rules_id", "source", "code", *(["weapons"] if by_loadout else [])]
        out = ["game_id", "rules_id", "source", "code", "type", "kind", *(["weapons"] if by_loadout else [])]
        cols = ", ".join(f'"{c}"' for c in (*out, *units.GAME_SUM_COLS))
        return self._q(f"SELECT {cols} FROM ({reaggregate_sql('rollup_unit_game_sums', keys, '{where}')})")

    def game_lineups(self) -> pl.DataFrame:
        return self._q("""
            SELECT g.game_id, g.rules_id, g.source, b.army_hash AS blue_hash, b.composition AS blue_composition,
              b.bot AS blue_bot, r.army_hash AS red_hash, r.composition AS red_composition, r.bot AS red_bot,
              g.winner, g.blue_vp::BIGINT AS blue_vp, g.red_vp::BIGINT AS red_vp, g.seed::BIGINT AS seed,
              g.game_index::BIGINT AS game_index
            FROM games g JOIN sides b ON b.game_id = g.game_id AND b.side = 'blue'
            JOIN sides r ON r.game_id = g.game_id AND r.side = 'red' WHERE {where}""", alias="g")

    def army_contents(self) -> pl.DataFrame:
        return self._q("""
            WITH rep AS (
              SELECT g.rules_id, s.army_hash, s.game_id, s.side,
                min(s.composition) OVER (PARTITION BY g.rules_id, s.army_hash) AS composition
              FROM sides s JOIN games g ON g.game_id = s.game_id WHERE {where}
              QUALIFY row_number() OVER (PARTITION BY g.rules_id, s.army_hash ORDER BY s.game_id, s.side) = 1)
            SELECT rep.rules_id, rep.army_hash, rep.composition, u.code, u.weapons
            FROM rep JOIN units u ON u.game_id = rep.game_id AND u.side = rep.side""", alias="g")

    def attack_strata(self) -> pl.DataFrame:
        keys = ["rules_id", "source", "weapon", "target_code", "threshold", "hit", "damage"]
        return self._q(f"""
            SELECT rules_id, source, weapon, target_code, target_type, target_kind, threshold, hit, damage, n,
              overkill FROM ({reaggregate_sql("rollup_attack_strata", keys, "{where}")})""", by="pair")

    def side_attack_strata(self) -> pl.DataFrame:
        return self._q("""
            SELECT game_id, rules_id, source, side, weapon, target_code, threshold, n, hits, damage, overkill
            FROM rollup_side_attack_strata WHERE {where}""")  # one row set per game: nothing to re-aggregate

    def side_luck_sums(self, rules_units: pl.DataFrame, rules_weapons: pl.DataFrame) -> pl.DataFrame:
        """:func:`.luck.side_sums` in SQL: the expectations of the (few) distinct strata are computed
        in Polars, the sums over the (millions of) per-game strata in DuckDB."""
        with self.session():
            keys = self._q("SELECT DISTINCT rules_id, weapon, target_code, threshold FROM rollup_side_attack_strata "
                           "WHERE {where}")
            expectations = luck.stratum_expectations(keys, rules_units, rules_weapons)
            assert self._con is not None
            self._con.register("_expectations", expectations)
            try:
                return self._q("""
                    SELECT s.game_id, s.rules_id, s.source, s.side,
                      coalesce(sum(n) FILTER (rated), 0)::BIGINT AS attacks,
                      coalesce(sum(hits) FILTER (rated), 0)::BIGINT AS hits,
                      coalesce(sum(n * p) FILTER (rated), 0)::DOUBLE AS expected_hits,
                      coalesce(sum(damage) FILTER (rated), 0)::BIGINT AS damage,
                      coalesce(sum(n * p * d) FILTER (rated), 0)::DOUBLE AS expected_damage,
                      coalesce(sum(n * p * (1 - p) * d * d) FILTER (rated), 0)::DOUBLE AS var_damage,
                      coalesce(sum(damage - overkill) FILTER (rated), 0)::BIGINT AS landed,
                      coalesce(sum(n) FILTER (NOT rated), 0)::BIGINT AS unrated,
                      any_value(g.winner) AS winner
                    FROM (SELECT s.*, x.p, x.d::DOUBLE AS d, x.p IS NOT NULL AND x.d IS NOT NULL AS rated
                          FROM rollup_side_attack_strata s LEFT JOIN _expectations x
                            ON x.rules_id = s.rules_id AND x.weapon IS NOT DISTINCT FROM s.weapon
                            AND x.target_code IS NOT DISTINCT FROM s.target_code
                            AND x.threshold IS NOT DISTINCT FROM s.threshold
                          WHERE {where}) s
                    JOIN games g ON g.game_id = s.game_id
                    GROUP BY 1, 2, 3, 4""", alias="s")
            finally:
                self._con.unregister("_expectations")

    def matchup_cells(self) -> pl.DataFrame:
        keys = list(BY_TABLE["rollup_matchup_cells"].keys)
        cells = self._q(reaggregate_sql("rollup_matchup_cells", keys, "{where}") + " ORDER BY ALL NULLS LAST",
                        by="cells")
        return fold_estimated(cells, self.include_estimated)

    def game_cells(self) -> pl.DataFrame:
        keys = [k for k in BY_TABLE["rollup_game_cells"].keys if k not in ("blue_bot", "red_bot")]
        cells = self._q(reaggregate_sql("rollup_game_cells", keys, "{where}") + " ORDER BY ALL", by="pair")
        return fold_estimated(cells, self.include_estimated)

    def estimated_vp_games(self) -> int:
        """Selected games whose final VP are estimated (left out of VP margins unless included)."""
        return int(self._q("SELECT count(*) AS n FROM games WHERE {where} AND vp_estimated")["n"].item())

    def army_rosters(self) -> pl.DataFrame:
        # one roster per army hash; the same hash means the same units, whichever source kept it
        return self._q("""
            SELECT rules_id, army_hash, code, type, kind, count, pts_sum FROM rollup_army_rosters WHERE {where}
            QUALIFY dense_rank() OVER (PARTITION BY rules_id, army_hash ORDER BY source) = 1
            ORDER BY rules_id, army_hash, code""", by="none")

    def game_counts(self) -> pl.DataFrame:
        return self._q("""
            SELECT rules_id, source, rounds::BIGINT AS rounds, reason, winner IS NULL AS draw, count(*)::BIGINT AS n
            FROM games WHERE {where} GROUP BY ALL ORDER BY ALL NULLS LAST""")

    def round_scores(self) -> pl.DataFrame:
        return self._q("""
            SELECT game_id, rules_id, source, round, blue_vp, red_vp FROM rollup_round_scores
            WHERE {where}""")  # lead_changes orders what it needs

    def game_winners(self) -> pl.DataFrame:
        return self._q("SELECT game_id, winner FROM games WHERE {where}")

    def optional_rule_events(self) -> pl.DataFrame:
        """The optional rules' events of the selected games (:mod:`.optional_rules` wide columns)."""
        types = ", ".join(f"'{t}'" for t in optional_rules.OPTIONAL_TYPES)
        cols = ", ".join(f'e."{c}"' if c not in ("rules_id", "source") else f"g.{c}"
                         for c in optional_rules.EVENT_COLUMNS)
        return self._q(f"""
            SELECT {cols} FROM events e JOIN games g USING (game_id)
            WHERE e.type IN ({types}) AND {{where}}""", "g")

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
