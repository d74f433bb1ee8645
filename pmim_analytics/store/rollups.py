"""Rollups: partial aggregates kept beside the tables so reports never scan millions of rows.

Every report reads a few reduced frames (:class:`pmim_analytics.store.readers.DuckDBData`):
sums per unit type, counts per attack stratum, results per matchup... Each rollup table
(``sql/003_rollups.sql``) holds those frames partially aggregated: :func:`add_rollups`
appends one set of rows per ingest batch, computed from the batch's new games only, in the
batch's transaction; a reader re-aggregates with :func:`reaggregate_sql` (GROUP BY the
keys it wants, sum or min the values). Since games are only ever added, whole and once,
partial sums add up exactly, and so do distinct game counts. Two rollups keep rows per
game instead (luck and lead changes need them per game; they are still far smaller than
the events they come from), and one keeps a single roster per army (``first``).

:func:`rebuild_rollups` recomputes everything from the tables (the migration's backfill,
or after rows were written behind the ingest's back); :func:`rollup_mismatch_sql` is what
``pmim db check`` runs to prove the rollups equal the tables.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import duckdb

from pmim_analytics.store.rollback import rollback_quietly

#: The schema version that created the rollup tables (see migrate.py's backfill).
ROLLUPS_SINCE = 3
#: Schema versions that added rollup tables or columns: applying one to a database that holds
#: games rebuilds the rollups (007: per-game unit sums; 008: the bots of each game, so every
#: report can keep to one bot level).
ROLLUP_VERSIONS = (ROLLUPS_SINCE, 7, 8)


@dataclass(frozen=True)
class Relations:
    """The names of the relations a rollup is computed from: the tables, or one batch's staging."""

    games: str = "games"
    sides: str = "sides"
    units: str = "units"
    stats: str = "unit_game_stats"
    events: str = "events"


def as_written(r: Relations) -> Relations:
    """``r`` narrowed to the games played as the data files read (``games.readings`` NULL, see
    ``sql/009_game_readings.sql``): the rollups hold only those, so no report pools a game
    played under another reading in doubt with the games played as written."""
    keep = f"(SELECT game_id FROM {r.games} WHERE readings IS NULL)"
    return Relations(games=f"(SELECT * FROM {r.games} WHERE readings IS NULL)",
                     **{name: f"(SELECT * FROM {getattr(r, name)} WHERE game_id IN {keep})"
                        for name in ("sides", "units", "stats", "events")})


@dataclass(frozen=True)
class Rollup:
    """A rollup table: its key columns, its value columns with how they re-aggregate, its SELECT.

    ``values`` maps a column to ``sum`` (integers), ``fsum`` (doubles) or ``min``. ``mode`` is
    ``append`` (partial aggregates per batch) or ``first`` (one row set per key, later
    batches add only keys not yet present).
    """

    table: str
    keys: tuple[str, ...]
    values: dict[str, str]
    select: Callable[[Relations], str]
    mode: str = "append"
    first_key: tuple[str, ...] = ()
    late_keys: tuple[str, ...] = ()  # keys a later migration added: their columns come after the values

    @property
    def columns(self) -> tuple[str, ...]:
        """Every column, in table order (the order the SELECT gives them)."""
        return (*(k for k in self.keys if k not in self.late_keys), *self.values, *self.late_keys)


_SUMS = {"n": "sum", "pts_sum": "sum", "attacks": "sum", "hits": "sum", "damage_dealt": "sum", "damage_sq": "sum",
         "overkill": "sum", "damage_taken": "sum", "kills": "sum", "destroyed": "sum", "round_n": "sum",
         "round_sum": "sum", "vp_n": "sum", "vp_sum": "fsum", "vp_sq": "fsum", "dpp_n": "sum", "dpp_sum": "fsum",
         "dpp_sq": "fsum", "vpp_n": "sum", "vpp_sum": "fsum", "vpp_sq": "fsum"}


def _bots(r: Relations) -> str:
    """Each game's recorded bots, one row per game (the rollups without a game id keep them as
    keys, so a report can select one bot level: see ``analytics.levels``)."""
    return f"""(SELECT game_id, min(bot) FILTER (side = 'blue') AS blue_bot, min(bot) FILTER (side = 'red') AS red_bot
        FROM {r.sides} GROUP BY game_id)"""


def _unit_sums(r: Relations) -> str:
    return f"""
        SELECT rules_id, source, code, weapons, min(type), min(kind),
          count(*), sum(pts), sum(attacks), sum(hits), sum(damage_dealt), sum(damage_dealt::BIGINT * damage_dealt),
          sum(overkill), sum(damage_taken), sum(kills), sum(destroyed::INTEGER),
          count(*) FILTER (destroyed AND round_destroyed IS NOT NULL),
          coalesce(sum(round_destroyed) FILTER (destroyed AND round_destroyed IS NOT NULL), 0),
          count(vp_share), coalesce(sum(vp_share), 0), coalesce(sum(vp_share * vp_share), 0),
          count(damage_dealt) FILTER (pts > 0), coalesce(sum(damage_dealt / pts) FILTER (pts > 0), 0),
          coalesce(sum((damage_dealt / pts) ^ 2) FILTER (pts > 0), 0),
          count(vp_share) FILTER (pts > 0), coalesce(sum(vp_share / pts) FILTER (pts > 0), 0),
          coalesce(sum((vp_share / pts) ^ 2) FILTER (pts > 0), 0),
          count(DISTINCT game_id), count(attacks), count(destroyed), blue_bot, red_bot
        FROM {r.stats} JOIN {_bots(r)} USING (game_id) GROUP BY rules_id, source, code, weapons, blue_bot, red_bot"""


def _unit_game_sums(r: Relations) -> str:
    return f"""
        SELECT game_id, rules_id, source, code, weapons, min(type), min(kind),
          count(*), sum(pts), sum(attacks), sum(hits), sum(damage_dealt), sum(kills), sum(destroyed::INTEGER),
          count(vp_share), coalesce(sum(vp_share), 0),
          count(damage_dealt) FILTER (pts > 0), coalesce(sum(damage_dealt / pts) FILTER (pts > 0), 0),
          count(vp_share) FILTER (pts > 0), coalesce(sum(vp_share / pts) FILTER (pts > 0), 0),
          count(attacks), count(destroyed)
        FROM {r.stats} GROUP BY game_id, rules_id, source, code, weapons"""


def _unit_games(r: Relations) -> str:
    return (f"SELECT rules_id, source, code, count(DISTINCT game_id), blue_bot, red_bot FROM {r.stats} "
            f"JOIN {_bots(r)} USING (game_id) GROUP BY rules_id, source, code, blue_bot, red_bot")


def _survival(r: Relations) -> str:
    return f"""
        SELECT rules_id, source, code, type, kind, weapons, t, destroyed, count(*), blue_bot, red_bot FROM (
          SELECT s.*, p.blue_bot, p.red_bot,
            (CASE WHEN destroyed THEN round_destroyed ELSE rounds_played END)::BIGINT AS t
          FROM {r.stats} s JOIN {_bots(r)} p ON p.game_id = s.game_id)
        WHERE t IS NOT NULL AND destroyed IS NOT NULL GROUP BY ALL"""


def _attacks(r: Relations, bots: bool = False) -> str:
    """Attack events with their game and their target's unit row (only games that have attacks);
    with ``bots``, the game's bots too (``p.blue_bot``, ``p.red_bot``)."""
    return f"""
        FROM {r.events} e JOIN {r.games} g ON g.game_id = e.game_id
        {f"JOIN {_bots(r)} p ON p.game_id = e.game_id" if bots else ""}
        LEFT JOIN (SELECT game_id, unit_id, code, type, kind FROM {r.units}
                   WHERE game_id IN (SELECT game_id FROM {r.events} WHERE type = 'attack')) t
          ON t.game_id = e.game_id AND t.unit_id = e.target
        WHERE e.type = 'attack'"""


def _attack_strata(r: Relations) -> str:
    return f"""
        SELECT g.rules_id, g.source, e.weapon, t.code, (e.needed - e.acc)::BIGINT, e.hit, e.damage::BIGINT,
          min(t.type), min(t.kind), count(*), coalesce(sum(e.overkill), 0), p.blue_bot, p.red_bot {_attacks(r, True)}
        GROUP BY 1, 2, 3, 4, 5, 6, 7, 12, 13"""


def _side_attack_strata(r: Relations) -> str:
    return f"""
        SELECT e.game_id, min(g.rules_id), min(g.source),
          CASE WHEN starts_with(e.unit, 'B:') THEN 'blue' WHEN starts_with(e.unit, 'R:') THEN 'red' END,
          e.weapon, t.code, (e.needed - e.acc)::BIGINT, count(*), sum(coalesce(e.hit, false)::INTEGER),
          coalesce(sum(e.damage), 0), coalesce(sum(e.overkill), 0) {_attacks(r)}
        GROUP BY 1, 4, 5, 6, 7"""


def _matchup_cells(r: Relations) -> str:
    return f"""
        SELECT g.rules_id, g.source, s.composition, s.army_hash, s.bot, s.side,
          o.composition, o.army_hash, o.bot, (g.first_side = s.side), s.result,
          count(*), count(s.vp - o.vp) FILTER (NOT est), coalesce(sum(s.vp - o.vp) FILTER (NOT est), 0),
          coalesce(sum((s.vp - o.vp)::BIGINT * (s.vp - o.vp)) FILTER (NOT est), 0),
          count(g.rounds), coalesce(sum(g.rounds), 0), coalesce(sum(g.rounds::BIGINT * g.rounds), 0),
          count(s.vp - o.vp) FILTER (est), coalesce(sum(s.vp - o.vp) FILTER (est), 0),
          coalesce(sum((s.vp - o.vp)::BIGINT * (s.vp - o.vp)) FILTER (est), 0)
        FROM {r.sides} s JOIN {r.sides} o ON o.game_id = s.game_id AND o.side <> s.side
        JOIN (SELECT *, coalesce(vp_estimated, false) AS est FROM {r.games}) g ON g.game_id = s.game_id
        GROUP BY 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11"""


def _game_cells(r: Relations) -> str:
    return f"""
        SELECT g.rules_id, g.source, b.army_hash, rd.army_hash,
          count(*), count(*) FILTER (g.winner = 'blue'), count(*) FILTER (g.winner = 'red'),
          count(*) FILTER (g.winner IS NULL), count(g.blue_vp - g.red_vp) FILTER (NOT est),
          coalesce(sum(g.blue_vp - g.red_vp) FILTER (NOT est), 0),
          coalesce(sum((g.blue_vp - g.red_vp)::BIGINT * (g.blue_vp - g.red_vp)) FILTER (NOT est), 0),
          count(g.blue_vp - g.red_vp) FILTER (est), coalesce(sum(g.blue_vp - g.red_vp) FILTER (est), 0),
          coalesce(sum((g.blue_vp - g.red_vp)::BIGINT * (g.blue_vp - g.red_vp)) FILTER (est), 0), b.bot, rd.bot
        FROM (SELECT *, coalesce(vp_estimated, false) AS est FROM {r.games}) g
        JOIN {r.sides} b ON b.game_id = g.game_id AND b.side = 'blue'
        JOIN {r.sides} rd ON rd.game_id = g.game_id AND rd.side = 'red'
        GROUP BY 1, 2, 3, 4, b.bot, rd.bot"""


def _army_rosters(r: Relations) -> str:
    return f"""
        WITH rep AS (
          SELECT rules_id, source, army_hash, game_id, side FROM (
            SELECT g.rules_id, g.source, s.army_hash, s.game_id, s.side,
              row_number() OVER (PARTITION BY g.rules_id, g.source, s.army_hash ORDER BY s.game_id, s.side) AS k
            FROM {r.sides} s JOIN {r.games} g ON g.game_id = s.game_id)
          WHERE k = 1)
        SELECT rep.rules_id, rep.source, rep.army_hash, u.code, u.type, u.kind, count(*), sum(u.pts)
        FROM rep JOIN {r.units} u ON u.game_id = rep.game_id AND u.side = rep.side
        GROUP BY 1, 2, 3, 4, 5, 6"""


def _round_scores(r: Relations) -> str:
    return f"""
        SELECT e.game_id, g.rules_id, g.source, e.round::BIGINT, e.blue_vp::BIGINT, e.red_vp::BIGINT
        FROM {r.events} e JOIN {r.games} g ON g.game_id = e.game_id WHERE e.type = 'round_end'"""


#: VP margins of games whose final VP are estimated (kept apart: margins leave them out
#: unless a report includes them, see ``analytics.compositions.fold_estimated``).
_EST_MARGIN = {"est_margin_n": "sum", "est_margin_sum": "sum", "est_margin_sq": "sum"}

#: The keys migration 8 added: each game's recorded bots (a report keeps to one bot level).
_BOTS = ("blue_bot", "red_bot")

ROLLUPS: tuple[Rollup, ...] = (
    Rollup("rollup_unit_sums", ("rules_id", "source", "code", "weapons", "blue_bot", "red_bot"),
           {"type": "min", "kind": "min", **_SUMS, "games": "sum", "combat_n": "sum", "fate_n": "sum"},
           _unit_sums, late_keys=_BOTS),
    Rollup("rollup_unit_games", ("rules_id", "source", "code", "blue_bot", "red_bot"), {"games": "sum"}, _unit_games,
           late_keys=_BOTS),
    Rollup("rollup_unit_game_sums", ("game_id", "rules_id", "source", "code", "weapons"),
           {"type": "min", "kind": "min", "n": "sum", "pts_sum": "sum", "attacks": "sum", "hits": "sum",
            "damage_dealt": "sum", "kills": "sum", "destroyed": "sum", "vp_n": "sum", "vp_sum": "fsum",
            "dpp_n": "sum", "dpp_sum": "fsum", "vpp_n": "sum", "vpp_sum": "fsum", "combat_n": "sum",
            "fate_n": "sum"}, _unit_game_sums),
    Rollup("rollup_survival", ("rules_id", "source", "code", "type", "kind", "weapons", "round", "destroyed",
                               "blue_bot", "red_bot"),
           {"n": "sum"}, _survival, late_keys=_BOTS),
    Rollup("rollup_attack_strata", ("rules_id", "source", "weapon", "target_code", "threshold", "hit", "damage",
                                    "blue_bot", "red_bot"),
           {"target_type": "min", "target_kind": "min", "n": "sum", "overkill": "sum"}, _attack_strata,
           late_keys=_BOTS),
    Rollup("rollup_side_attack_strata", ("game_id", "rules_id", "source", "side", "weapon", "target_code",
                                         "threshold"),
           {"n": "sum", "hits": "sum", "damage": "sum", "overkill": "sum"}, _side_attack_strata),
    Rollup("rollup_matchup_cells", ("rules_id", "source", "composition", "army_hash", "bot", "side",
                                    "opp_composition", "opp_army_hash", "opp_bot", "first", "result"),
           {"n": "sum", "margin_n": "sum", "margin_sum": "sum", "margin_sq": "sum", "rounds_n": "sum",
            "rounds_sum": "sum", "rounds_sq": "sum", **_EST_MARGIN}, _matchup_cells),
    Rollup("rollup_game_cells", ("rules_id", "source", "blue_hash", "red_hash", "blue_bot", "red_bot"),
           {"n": "sum", "blue_wins": "sum", "red_wins": "sum", "draws": "sum", "margin_n": "sum",
            "margin_sum": "sum", "margin_sq": "sum", **_EST_MARGIN}, _game_cells, late_keys=_BOTS),
    Rollup("rollup_army_rosters", ("rules_id", "source", "army_hash", "code", "type", "kind"),
           {"count": "sum", "pts_sum": "sum"}, _army_rosters, mode="first",
           first_key=("rules_id", "source", "army_hash")),
    Rollup("rollup_round_scores", ("game_id", "rules_id", "source", "round"),
           {"blue_vp": "min", "red_vp": "min"}, _round_scores),
)
BY_TABLE = {r.table: r for r in ROLLUPS}


def _quoted(cols: tuple[str, ...] | list[str]) -> str:
    return ", ".join(f'"{c}"' for c in cols)


def _insert_sql(rollup: Rollup, rel: Relations) -> str:
    """The INSERT adding ``rel``'s partial aggregates to the rollup (the SELECT gives the table's columns)."""
    cols = _quoted(rollup.columns)
    sql = rollup.select(rel)
    if rollup.mode == "first":
        key = " AND ".join(f'r."{k}" = x."{k}"' for k in rollup.first_key)
        sql = (f"SELECT * FROM ({sql}) AS x({cols}) "
               f"WHERE NOT EXISTS (SELECT 1 FROM {rollup.table} r WHERE {key})")
    return f"INSERT INTO {rollup.table} ({cols}) {sql}"


def add_rollups(con: duckdb.DuckDBPyConnection, rel: Relations) -> None:
    """Append the partial aggregates of the games in ``rel`` (new games only) to every rollup.

    Runs in the caller's transaction, after the games are in the tables.
    """
    for rollup in ROLLUPS:
        con.execute(_insert_sql(rollup, rel))


def rebuild_rollups(con: duckdb.DuckDBPyConnection) -> None:
    """Recompute every rollup from the tables (one transaction)."""
    con.execute("BEGIN TRANSACTION")
    try:
        for rollup in ROLLUPS:
            con.execute(f"DELETE FROM {rollup.table}")
        add_rollups(con, as_written(Relations()))
        con.execute("COMMIT")
    except BaseException:
        rollback_quietly(con)
        raise


_CAST = {"sum": "::BIGINT", "fsum": "::DOUBLE", "min": ""}


def reaggregate_sql(table: str, keys: tuple[str, ...] | list[str], where: str = "TRUE",
                    values: tuple[str, ...] | list[str] | None = None) -> str:
    """``SELECT keys, values FROM table WHERE where GROUP BY keys`` with each value re-aggregated.

    ``keys`` may be any subset of the rollup's keys (the others are summed over); ``values``
    defaults to every value column.
    """
    rollup = BY_TABLE[table]
    chosen = list(values) if values is not None else list(rollup.values)
    aggs = [f'{"min" if rollup.values[v] == "min" else "sum"}("{v}"){_CAST[rollup.values[v]]} AS "{v}"'
            for v in chosen]
    return (f"SELECT {_quoted(list(keys))}, {', '.join(aggs)} FROM {table} WHERE {where} "
            f"GROUP BY {_quoted(list(keys))}")


def rollup_mismatch_sql(rollup: Rollup) -> str:
    """One text row per key where the re-aggregated rollup differs from a recomputation from the tables."""
    cols = _quoted(rollup.columns)
    keys = _quoted(rollup.keys)
    agg = ", ".join(f'{"min" if k == "min" else "sum"}("{v}") AS "{v}"' for v, k in rollup.values.items())
    stored = f"SELECT {keys}, {agg}, 1 AS present FROM {rollup.table} GROUP BY ALL"
    tables = as_written(Relations())
    fresh = f"SELECT {keys}, {agg}, 1 AS present FROM ({rollup.select(tables)}) AS x({cols}) GROUP BY ALL"
    on = " AND ".join(f'a."{k}" IS NOT DISTINCT FROM b."{k}"' for k in rollup.keys)
    diffs = " OR ".join(
        f'abs(coalesce(a."{v}", 0) - coalesce(b."{v}", 0)) > 1e-6 * (1 + abs(coalesce(b."{v}", 0)))'
        if k == "fsum" else f'a."{v}" IS DISTINCT FROM b."{v}"' for v, k in rollup.values.items())
    label = " || ' ' || ".join(f"coalesce(CAST(coalesce(a.\"{k}\", b.\"{k}\") AS VARCHAR), '-')"
                               for k in rollup.keys[:4])
    return f"""
        SELECT '{rollup.table}: ' || {label} FROM ({stored}) a FULL JOIN ({fresh}) b ON {on}
        WHERE a.present IS NULL OR b.present IS NULL OR {diffs}"""
