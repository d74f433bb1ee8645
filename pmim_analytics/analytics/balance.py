"""Balance at a glance: who dominates each rules id at one bot level, and what moved.

Input: engine matchup cells (:meth:`~.dataset.GameData.matchup_cells`), one row per rules id,
composition, bot, side, opponent and result, each game counted from both sides. Only games
where both sides played at one bot level count (:mod:`.levels`), at one level: levels are
never pooled; the level is :func:`~.levels.choose_bot_level`'s unless the user picks another. A
composition's win rate is wins over its games (mirrors left out, draws not won) with a 95%
Wilson interval, exactly as ``pmim report compositions`` computes it on the same games.

The **movers** of a rules id compare each composition's win rate with the same composition
(by name) under the previous rules id: a variant's base, or the version before it. The
change has Newcombe's interval: the two rules ids' games are separate games, not pairs
(the Rules A → B page has the paired comparison).
"""

from __future__ import annotations

from collections.abc import Sequence

import polars as pl

from pmim_analytics.analytics.compositions import composition_table
from pmim_analytics.analytics.levels import (
    HUMAN,
    LEVELS_SCHEMA,
    MIXED,
    LevelChoice,
    choose_bot_level,
    game_level,
)
from pmim_analytics.analytics.stats import newcombe_exprs


def same_bot(cells: pl.DataFrame) -> pl.DataFrame:
    """The engine cells of games where both sides played at one bot level, with its ``level``
    (canonical key, :func:`~.levels.game_level`)."""
    c = cells.filter(pl.col("source") == "engine")
    if c.height == 0:
        return c.with_columns(level=pl.lit(None, dtype=pl.String))
    lv = [game_level(b, o) for b, o in c.select("bot", "opp_bot").iter_rows()]
    return c.with_columns(level=pl.Series(lv, dtype=pl.String)).filter(
        ~pl.col("level").is_in([MIXED, HUMAN]))


def level_games(cells: pl.DataFrame) -> pl.DataFrame:
    """Games per rules id, source and bot level (both sides at it), engine games only: the input
    of :func:`~.levels.choose_bot_level` (columns rules_id, source, level, games)."""
    c = same_bot(cells)
    if c.height == 0:
        return pl.DataFrame(schema=LEVELS_SCHEMA)
    return (c.group_by("rules_id", "source", "level").agg((pl.col("n").sum() // 2).cast(pl.Int64).alias("games"))
            .sort("rules_id", "level"))


def pick_level(levels: pl.DataFrame, rules_ids: list[str] | None = None) -> LevelChoice | None:
    """The bot level the overview rests on (:func:`~.levels.choose_bot_level`: the strongest
    level with enough games under every rules id); None without engine games at one level."""
    if levels.height == 0:
        return None
    return choose_bot_level(levels, None, rules_ids)


def balance_table(cells: pl.DataFrame, level: str) -> pl.DataFrame:
    """Per rules id and composition at bot level ``level`` (a canonical key): W/D/L, win rate and its interval,
    sorted by rules id and win rate, highest first (the columns of :func:`.composition_table`)."""
    c = same_bot(cells).filter(pl.col("level") == level).drop("level")
    if c.height == 0:
        return composition_table(cells.clear())
    return composition_table(c).sort(["rules_id", "win_rate", "composition"], descending=[False, True, False],
                                      nulls_last=True)


def pct(x: float | None) -> str:
    """A share as a whole percent ("85%"); "—" when missing."""
    return "—" if x is None else f"{x * 100:.0f}%"


def headline(table: pl.DataFrame, rules_id: str, level: str) -> str | None:
    """One sentence: the composition that wins most under ``rules_id`` at ``level`` (win rate,
    95% interval, games) and the one that wins least; None without games."""
    rows = table.filter((pl.col("rules_id") == rules_id) & (pl.col("games") > 0))
    if rows.height == 0:
        return None
    top, low = rows.row(0, named=True), rows.row(rows.height - 1, named=True)
    text = (f"{rules_id}: {top['composition']} wins {pct(top['win_rate'])} "
            f"[{top['win_lo'] * 100:.0f}, {top['win_hi'] * 100:.0f}] of {top['games']:,} games at {level}")
    if rows.height > 1:
        text += f"; {low['composition']} {pct(low['win_rate'])}"
    return text


def previous_rules(rules_id: str, present: Sequence[str]) -> str | None:
    """The rules id ``rules_id`` is compared with: a variant's base, else the version before it
    among the versions (not variants) in ``present``; None when there is none."""
    from pmim_analytics.rules import load_rules

    r = load_rules(rules_id)
    if r.is_variant:
        return r.base if r.base in present else None
    versions = sorted((p for p in present if not load_rules(p).is_variant), key=_version_key)
    earlier = [v for v in versions if _version_key(v) < _version_key(rules_id)]
    return earlier[-1] if earlier else None


def _version_key(rules_id: str) -> tuple[int, str]:
    digits = "".join(ch for ch in rules_id if ch.isdigit())
    return (int(digits) if digits else 0, rules_id)


def movers(table: pl.DataFrame, rules_id: str, previous: str, n: int = 5) -> pl.DataFrame:
    """The ``n`` compositions whose win rate changed most from ``previous`` to ``rules_id``
    (both at the level of ``table``): ``composition, games_before, win_before, games, win_rate,
    change, change_lo, change_hi`` (shares; the interval is Newcombe's, 95%)."""
    cols = ["composition", "games", "win_rate", "win_lo", "win_hi"]
    now = table.filter(pl.col("rules_id") == rules_id).select(cols)
    before = table.filter(pl.col("rules_id") == previous).select(cols).rename(
        {c: f"{c}_before" for c in cols if c != "composition"})
    both = now.join(before, on="composition", how="inner").filter(
        (pl.col("games") > 0) & (pl.col("games_before") > 0))
    lo, hi = newcombe_exprs(pl.col("win_rate"), pl.col("win_lo"), pl.col("win_hi"),
                            pl.col("win_rate_before"), pl.col("win_lo_before"), pl.col("win_hi_before"))
    return (both.with_columns(change=pl.col("win_rate") - pl.col("win_rate_before"), change_lo=lo, change_hi=hi)
            .sort(pl.col("change").abs(), descending=True).head(n)
            .select("composition", "games_before", pl.col("win_rate_before").alias("win_before"), "games",
                    "win_rate", "change", "change_lo", "change_hi"))
