"""Objective adherence: does a side go for the objectives it could reach?

Computed from a game's events alone (deploy, move, unit_destroyed), in Polars:

* a unit's hex at the start of round *r* is where its last deploy or move before round *r*
  left it, and at the end of round *r* where its last one up to round *r* left it;
* an objective is **within reach** of a side in round *r* when one of its units alive at the
  start of the round stands within MOV + the scenario's objective radius of it (the unit
  could end its move inside the capture zone; immobilisation is ignored);
* the side **contests** it when, at the end of the round, one of its living units stands
  within the radius (it counts as a holder, whatever the enemy has there).

Adherence is the share of (round, objective) pairs within reach that the side contested.
VP per round is the side's final VP over the game's rounds.
"""

from __future__ import annotations

from collections.abc import Sequence

import polars as pl


def _cube(col: pl.Expr, row: pl.Expr) -> tuple[pl.Expr, pl.Expr]:
    """Cube q, r of odd-q offset coordinates (as in :mod:`pmim_analytics.engine.hexgrid`)."""
    return col, row - (col - (col % 2)) // 2


def hex_distance(c1: pl.Expr, r1: pl.Expr, c2: pl.Expr, r2: pl.Expr) -> pl.Expr:
    """Hex distance between two odd-q offset hexes, as an expression."""
    q1, rr1 = _cube(c1, r1)
    q2, rr2 = _cube(c2, r2)
    dq, dr = q1 - q2, rr1 - rr2
    return pl.max_horizontal(dq.abs(), dr.abs(), (dq + dr).abs())


def side_adherence(events: pl.DataFrame, units: pl.DataFrame, games: pl.DataFrame,
                   objectives: Sequence[tuple[int, int]], radius: int) -> pl.DataFrame:
    """Per game and side: ``reachable`` (objective-rounds within reach), ``contested`` (of
    those, the ones contested), ``vp`` and ``rounds``.

    ``events``: game_id, seq, round, type, unit, to_col, to_row. ``units``: game_id, unit_id,
    side (blue/red), mov. ``games``: game_id, rounds, blue_vp, red_vp.
    """
    pos = (events.filter(pl.col("type").is_in(["deploy", "move"]))
           .sort("game_id", "unit", "seq")
           .group_by("game_id", "unit", "round", maintain_order=True)
           .agg(pl.col("to_col").last().cast(pl.Int64).alias("col"),
                pl.col("to_row").last().cast(pl.Int64).alias("row"))
           .rename({"unit": "unit_id"})
           .with_columns(pl.col("round").cast(pl.Int64))
           .sort("round"))
    dead = (events.filter(pl.col("type") == "unit_destroyed")
            .group_by("game_id", pl.col("unit").alias("unit_id"))
            .agg(pl.col("round").min().cast(pl.Int64).alias("dead")))
    grid = (games.select("game_id", pl.int_ranges(1, pl.col("rounds").cast(pl.Int64) + 1).alias("round"))
            .explode("round").drop_nulls("round"))
    ur = (units.select("game_id", "unit_id", "side", pl.col("mov").cast(pl.Int64))
          .join(grid, on="game_id")
          .join(dead, on=["game_id", "unit_id"], how="left")
          .with_columns(start_key=pl.col("round") - 1)
          .sort("start_key"))
    start = ur.join_asof(pos.rename({"round": "pos_round"}), left_on="start_key", right_on="pos_round",
                         by=["game_id", "unit_id"], strategy="backward", check_sortedness=False).sort("round")
    both = start.join_asof(pos.rename({"round": "pos_round2", "col": "end_col", "row": "end_row"}),
                           left_on="round", right_on="pos_round2", by=["game_id", "unit_id"], strategy="backward",
                           check_sortedness=False)
    objs = pl.DataFrame({"objective": list(range(len(objectives))), "ocol": [c for c, _ in objectives],
                         "orow": [r for _, r in objectives]}, schema={"objective": pl.Int64, "ocol": pl.Int64,
                                                                       "orow": pl.Int64})
    alive_start = pl.col("dead").is_null() | (pl.col("dead") >= pl.col("round"))
    alive_end = pl.col("dead").is_null() | (pl.col("dead") > pl.col("round"))
    cells = (both.join(objs, how="cross")
             .with_columns(
                 reach=alive_start & pl.col("col").is_not_null()
                 & (hex_distance(pl.col("col"), pl.col("row"), pl.col("ocol"), pl.col("orow"))
                    <= pl.col("mov") + radius),
                 hold=alive_end & pl.col("end_col").is_not_null()
                 & (hex_distance(pl.col("end_col"), pl.col("end_row"), pl.col("ocol"), pl.col("orow")) <= radius))
             .group_by("game_id", "side", "round", "objective")
             .agg(pl.col("reach").any(), pl.col("hold").any()))
    per_side = (cells.group_by("game_id", "side")
                .agg(reachable=pl.col("reach").sum().cast(pl.Int64),
                     contested=(pl.col("reach") & pl.col("hold")).sum().cast(pl.Int64)))
    sides = games.select("game_id", "rounds", pl.lit("blue").alias("side"), pl.col("blue_vp").alias("vp")).vstack(
        games.select("game_id", "rounds", pl.lit("red").alias("side"), pl.col("red_vp").alias("vp")))
    return (sides.join(per_side, on=["game_id", "side"], how="left")
            .with_columns(pl.col("reachable").fill_null(0), pl.col("contested").fill_null(0))
            .select("game_id", "side", "reachable", "contested", pl.col("vp").cast(pl.Int64),
                    pl.col("rounds").cast(pl.Int64)))


def adherence_by(per_side: pl.DataFrame, key: str = "bot") -> pl.DataFrame:
    """Sum :func:`side_adherence` rows (with a ``key`` column added) into ``adherence`` (share of
    reachable objective-rounds contested) and ``vp_per_round`` per value of ``key``."""
    return (per_side.group_by(key)
            .agg(pl.col("contested").sum(), pl.col("reachable").sum(), pl.col("vp").sum(), pl.col("rounds").sum())
            .with_columns(adherence=pl.when(pl.col("reachable") > 0)
                          .then(pl.col("contested") / pl.col("reachable")),
                          vp_per_round=pl.when(pl.col("rounds") > 0).then(pl.col("vp") / pl.col("rounds")))
            .select(key, "adherence", "vp_per_round"))
