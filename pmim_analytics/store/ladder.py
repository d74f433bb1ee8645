"""The bot ladder's tables (``sql/005_bot_ladder.sql``), and the reads the bot analyses need.

:func:`save_ladder` writes a run whole in one transaction (a run with the same id is
replaced), so an interrupted write leaves the previous state. The readers return Polars
frames on short-lived read-only connections.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import duckdb
import polars as pl

from pmim_analytics.errors import StoreError
from pmim_analytics.store.connection import open_writer, read_frame, rollback_quietly

_RATING_COLUMNS = ("bot", "rating", "lo", "hi", "games", "score", "decisions", "ms_per_decision", "games_per_s",
                   "adherence", "vp_per_round")
_GAME_COLUMNS = ("game_no", "batch", "game_index", "blue_bot", "red_bot", "blue_army", "red_army", "winner",
                 "reason", "rounds", "blue_vp", "red_vp")


def save_ladder(run: dict[str, Any], ratings: pl.DataFrame, games: pl.DataFrame, db: str | Path | None = None) -> None:
    """Store one ladder run: ``run`` (run_id, rules_id, scenario, bots, armies, games_per_pairing,
    seed, games, seconds, workers), its ratings and games. Replaces a run with the same id.

    Raises :class:`StoreError` when the database cannot be written (nothing of the run stays).
    """
    run_id = run["run_id"]
    r = ratings.select(pl.lit(run_id).alias("run_id"), *_RATING_COLUMNS)
    g = games.select(pl.lit(run_id).alias("run_id"), *_GAME_COLUMNS)
    with open_writer(db) as con:
        try:
            con.execute("BEGIN TRANSACTION")
            for table in ("ladder_games", "ladder_ratings", "ladder_runs"):
                con.execute(f"DELETE FROM {table} WHERE run_id = ?", [run_id])
            cols = list(run)
            con.execute(f"INSERT INTO ladder_runs ({', '.join(cols)}) VALUES ({', '.join('?' * len(cols))})",
                        [run[c] for c in cols])
            con.register("_ladder_ratings", r.to_arrow())
            con.register("_ladder_games", g.to_arrow())
            con.execute("INSERT INTO ladder_ratings BY NAME SELECT * FROM _ladder_ratings")
            con.execute("INSERT INTO ladder_games BY NAME SELECT * FROM _ladder_games")
            con.unregister("_ladder_ratings")
            con.unregister("_ladder_games")
            con.execute("COMMIT")
        except duckdb.Error as e:
            rollback_quietly(con)
            raise StoreError(f"the ladder run could not be stored: {str(e).splitlines()[0]}") from e


def read_ladder_runs(db: str | Path | None = None) -> pl.DataFrame:
    """Every stored ladder run, newest first."""
    return read_frame("SELECT * FROM ladder_runs ORDER BY created_at DESC, run_id", db=db)


def read_ladder_ratings(run_id: str | None = None, db: str | Path | None = None) -> pl.DataFrame:
    """The ratings of run ``run_id`` (the newest run when None), best first; empty when there is none."""
    if run_id is None:
        return read_frame("""SELECT r.* FROM ladder_ratings r
                             JOIN (SELECT run_id FROM ladder_runs
                                   ORDER BY created_at DESC, run_id LIMIT 1) USING (run_id)
                             ORDER BY rating DESC""", db=db)
    return read_frame("SELECT * FROM ladder_ratings WHERE run_id = ? ORDER BY rating DESC", [run_id], db=db)


def read_manual_games(db: str | Path | None = None) -> tuple[pl.DataFrame, pl.DataFrame]:
    """The manual games (game_id, rules_id, scenario, played, winner, blue/red VP, whether those
    VP are estimated, blue/red composition, n_events, file) and their units (game_id, unit_id, side, code, type, kind,
    weapons, pts), in a fixed order."""
    games = read_frame("""
        SELECT g.game_id, g.rules_id, g.scenario, g.played, g.winner, g.reason, g.blue_vp, g.red_vp,
               coalesce(g.vp_estimated, false) AS vp_estimated, b.composition AS blue, r.composition AS red,
               g.n_events, g.file
        FROM games g JOIN sides b ON b.game_id = g.game_id AND b.side = 'blue'
                     JOIN sides r ON r.game_id = g.game_id AND r.side = 'red'
        WHERE g.source = 'manual' ORDER BY g.file, g.game_id""", db=db)
    units = read_frame("""SELECT u.game_id, u.unit_id, u.side, u.code, u.type, u.kind, u.weapons, u.pts
                          FROM units u JOIN games g USING (game_id) WHERE g.source = 'manual'
                          ORDER BY u.game_id, u.side, u.unit_id""", db=db)
    return games, units
