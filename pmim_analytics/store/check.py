"""``pmim db check``: prove the database is whole.

Every event's game and units exist; every game has its two sides, its units and exactly
one game_end, with the game row's result, rounds and VP equal to it; side unit counts
and game event counts match; seq runs 1..n; and the per-unit aggregates equal what the
events give when recomputed with the ingest's own SQL.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import duckdb

from pmim_analytics.errors import StoreError
from pmim_analytics.store.connection import open_reader
from pmim_analytics.store.load import STATS_COLUMNS, unit_stats_sql


@dataclass(frozen=True)
class Finding:
    """One integrity problem: what, how many rows, and one example."""

    check: str
    count: int
    example: str


@dataclass(frozen=True)
class CheckReport:
    """What was checked and what was found."""

    games: int
    events: int
    findings: tuple[Finding, ...]

    @property
    def ok(self) -> bool:
        """True when nothing is wrong."""
        return not self.findings


def _unit_ref(column: str) -> str:
    return f"""SELECT e.game_id || ' seq ' || e.seq || ': ' || e."{column}" FROM events e
               LEFT JOIN units u ON u.game_id = e.game_id AND u.unit_id = e."{column}"
               WHERE e."{column}" IS NOT NULL AND u.unit_id IS NULL"""


CHECKS: tuple[tuple[str, str], ...] = (
    ("events of a game that does not exist",
     "SELECT game_id || ' seq ' || seq FROM events ANTI JOIN games USING (game_id)"),
    ("events naming a unit not in the game's roster", _unit_ref("unit")),
    ("attacks on a target not in the game's roster", _unit_ref("target")),
    ("events crediting a unit ('by') not in the game's roster", _unit_ref("by")),
    ("units of a game that does not exist",
     "SELECT game_id || ' ' || unit_id FROM units ANTI JOIN games USING (game_id)"),
    ("sides of a game that does not exist", "SELECT game_id || ' ' || side FROM sides ANTI JOIN games USING (game_id)"),
    ("aggregates of a unit that does not exist",
     "SELECT game_id || ' ' || unit_id FROM unit_game_stats ANTI JOIN units USING (game_id, unit_id)"),
    ("units without aggregates",
     "SELECT game_id || ' ' || unit_id FROM units ANTI JOIN unit_game_stats USING (game_id, unit_id)"),
    ("games without exactly a blue and a red side",
     """SELECT g.game_id FROM games g LEFT JOIN sides s USING (game_id) GROUP BY g.game_id
        HAVING count(s.side) <> 2 OR count(DISTINCT s.side) FILTER (WHERE s.side IN ('blue', 'red')) <> 2"""),
    ("sides whose unit count differs from their units",
     """SELECT s.game_id || ' ' || s.side || ': ' || s.n_units || ' vs ' || count(u.unit_id) FROM sides s
        LEFT JOIN units u ON u.game_id = s.game_id AND u.side = s.side
        GROUP BY s.game_id, s.side, s.n_units HAVING s.n_units <> count(u.unit_id)"""),
    ("games whose event count or seq numbering is off",
     """SELECT g.game_id || ': ' || g.n_events || ' events recorded, ' || count(e.seq) || ' stored' FROM games g
        LEFT JOIN events e USING (game_id) GROUP BY g.game_id, g.n_events
        HAVING g.n_events <> count(e.seq) OR count(e.seq) <> count(DISTINCT e.seq)
            OR min(e.seq) <> 1 OR max(e.seq) <> count(e.seq)"""),
    ("games without exactly one game_end, or whose result differs from it",
     """SELECT g.game_id FROM games g LEFT JOIN events e ON e.game_id = g.game_id AND e.type = 'game_end'
        GROUP BY g.game_id, g.winner, g.reason, g.rounds, g.blue_vp, g.red_vp
        HAVING count(e.seq) <> 1 OR any_value(e.side) IS DISTINCT FROM g.winner
            OR any_value(e.reason) IS DISTINCT FROM g.reason OR any_value(e.rounds) IS DISTINCT FROM g.rounds
            OR any_value(e.blue_vp) IS DISTINCT FROM g.blue_vp OR any_value(e.red_vp) IS DISTINCT FROM g.red_vp"""),
    ("sides whose result does not follow from the winner",
     """SELECT s.game_id || ' ' || s.side FROM sides s JOIN games g USING (game_id)
        WHERE s.result <> CASE WHEN g.winner IS NULL THEN 'draw' WHEN g.winner = s.side THEN 'win' ELSE 'loss' END"""),
)


def _stats_mismatch_sql() -> str:
    cols = [c for c in STATS_COLUMNS if c not in ("game_id", "unit_id")]
    diffs = " OR ".join(
        "abs(coalesce(s.vp_share, -1) - coalesce(r.vp_share, -1)) > 1e-9" if c == "vp_share"
        else f"s.{c} IS DISTINCT FROM r.{c}" for c in cols)
    recomputed = unit_stats_sql("events", "units", "games")
    names = ", ".join(STATS_COLUMNS)
    return f"""
        SELECT coalesce(s.game_id, r.game_id) || ' ' || coalesce(s.unit_id, r.unit_id)
        FROM unit_game_stats s
        FULL JOIN (SELECT * FROM ({recomputed}) AS x({names})) r USING (game_id, unit_id)
        WHERE s.game_id IS NULL OR r.game_id IS NULL OR {diffs}"""


def run_checks(con: duckdb.DuckDBPyConnection) -> CheckReport:
    """Run every integrity check on an open connection."""
    findings = []
    checks = (*CHECKS, ("aggregates that differ from the events", _stats_mismatch_sql()))
    for name, sql in checks:
        n, example = con.execute(f"SELECT count(*), min(x) FROM ({sql}) AS t(x)").fetchall()[0]
        if n:
            findings.append(Finding(name, int(n), str(example)))
    games, events = con.execute("SELECT (SELECT count(*) FROM games), (SELECT count(*) FROM events)").fetchall()[0]
    return CheckReport(int(games), int(events), tuple(findings))


def check_db(db: str | Path | None = None) -> CheckReport:
    """Open the database read-only and check it. Raises :class:`StoreError` if it cannot be read."""
    with open_reader(db) as con:
        try:
            return run_checks(con)
        except duckdb.Error as e:
            raise StoreError(f"the check could not run: {str(e).strip().splitlines()[0]}") from e
