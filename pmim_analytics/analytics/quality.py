"""Game quality: how long games last, how they end, and whether the lead changes hands.

:func:`game_counts` reduces ``games`` to counts per (rules id, source, rounds, reason, draw);
:func:`round_scores` takes each game's VP after every round from its ``round_end`` events.
"""

from __future__ import annotations

import polars as pl

from pmim_analytics.analytics.stats import wilson_exprs

KEYS = ["rules_id", "source"]


def game_counts(games: pl.DataFrame) -> pl.DataFrame:
    """Games per rules id, source, length in rounds, end reason and whether drawn.

    Columns: ``rules_id source rounds reason draw n``.
    """
    return (
        games.group_by(*KEYS, pl.col("rounds").cast(pl.Int64), "reason", draw=pl.col("winner").is_null())
        .agg(n=pl.len().cast(pl.Int64))
        .sort(*KEYS, "rounds", "reason", "draw", nulls_last=True)
    )


def length_distribution(counts: pl.DataFrame) -> pl.DataFrame:
    """Games per length in rounds and their share, per rules id and source."""
    t = counts.group_by(*KEYS, "rounds").agg(games=pl.col("n").sum())
    return t.with_columns(share=pl.col("games") / pl.col("games").sum().over(KEYS)).sort(*KEYS, "rounds",
                                                                                          nulls_last=True)


#: End reasons that say how a game ended; a logged result without one reads ``manual`` (or nothing).
KNOWN_REASONS = ("vp", "wipeout", "round_limit")


def outcome_table(counts: pl.DataFrame) -> pl.DataFrame:
    """Per rules id and source: games, mean and median length, draw, round-limit and wipeout rates.

    Rates carry Wilson 95% intervals. ``median_rounds`` is over games of known length. The
    end-reason rates (round limit, wipeouts, won on VP) are over the games whose end reason
    is known (``reason_known``); a logged result that does not say why the game ended
    (reason ``manual``, as playtest 2) is counted in ``reason_unknown``, never as a known one.
    """
    n = pl.col("n")
    known = pl.col("reason").is_in(list(KNOWN_REASONS)).fill_null(False)
    t = counts.group_by(KEYS).agg(
        games=n.sum(),
        reason_known=n.filter(known).sum(),
        reason_unknown=n.filter(~known).sum(),
        mean_rounds=(pl.col("rounds") * n).sum() / n.filter(pl.col("rounds").is_not_null()).sum(),
        draws=n.filter(pl.col("draw")).sum(),
        round_limit=n.filter(pl.col("reason") == "round_limit").sum(),
        wipeouts=n.filter(pl.col("reason") == "wipeout").sum(),
        vp_wins=n.filter(pl.col("reason") == "vp").sum(),
    )
    med = (
        counts.filter(pl.col("rounds").is_not_null()).group_by(*KEYS, "rounds").agg(n=pl.col("n").sum())
        .sort(*KEYS, "rounds")
        .with_columns(_cum=pl.col("n").cum_sum().over(KEYS), _tot=pl.col("n").sum().over(KEYS))
        .filter(pl.col("_cum") * 2 >= pl.col("_tot"))
        .group_by(KEYS).agg(median_rounds=pl.col("rounds").first())
    )
    d_lo, d_hi = wilson_exprs(pl.col("draws"), pl.col("games"))
    r_lo, r_hi = wilson_exprs(pl.col("round_limit"), pl.col("reason_known"))
    g = pl.col("games").cast(pl.Float64)
    k = pl.col("reason_known").cast(pl.Float64)
    by_known = pl.col("reason_known") > 0
    return t.join(med, on=KEYS, how="left").select(
        *KEYS, "games", "mean_rounds", "median_rounds",
        "draws", draw_rate=pl.col("draws") / g, draw_lo=d_lo, draw_hi=d_hi,
        round_limit=pl.col("round_limit"), round_limit_rate=pl.when(by_known).then(pl.col("round_limit") / k),
        round_limit_lo=r_lo, round_limit_hi=r_hi, wipeout_rate=pl.when(by_known).then(pl.col("wipeouts") / k),
        vp_win_rate=pl.when(by_known).then(pl.col("vp_wins") / k), reason_known=pl.col("reason_known"),
        reason_unknown=pl.col("reason_unknown"),
    ).sort(KEYS)


def round_scores(events: pl.DataFrame, games: pl.DataFrame) -> pl.DataFrame:
    """VP after every round of every game (from ``round_end`` events).

    Columns: ``game_id rules_id source round blue_vp red_vp``.
    """
    return (
        events.filter(pl.col("type") == "round_end")
        .select("game_id", pl.col("round").cast(pl.Int64), pl.col("blue_vp").cast(pl.Int64),
                pl.col("red_vp").cast(pl.Int64))
        .join(games.select("game_id", "rules_id", "source"), on="game_id")
        .select("game_id", "rules_id", "source", "round", "blue_vp", "red_vp")
        .sort("game_id", "round")
    )


def lead_changes(scores: pl.DataFrame, games: pl.DataFrame) -> pl.DataFrame:
    """Per game: how many times the VP lead changed hands, and whether the winner ever trailed.

    Rounds ending level are skipped: blue ahead, level, red ahead is one change. Columns:
    ``game_id rules_id source rounds lead_changes winner_trailed``.
    """
    lead = (
        scores.with_columns(
            leader=pl.when(pl.col("blue_vp") > pl.col("red_vp")).then(pl.lit("blue"))
            .when(pl.col("red_vp") > pl.col("blue_vp")).then(pl.lit("red")))
        .filter(pl.col("leader").is_not_null())
        .join(games.select("game_id", "winner"), on="game_id", how="left")
        .sort("game_id", "round")
        .with_columns(_prev=pl.col("leader").shift(1).over("game_id"))
        .group_by("game_id")
        .agg(
            lead_changes=(pl.col("_prev").is_not_null() & (pl.col("_prev") != pl.col("leader"))).sum()
            .cast(pl.Int64),
            _trailed=(pl.col("leader") != pl.col("winner")).fill_null(False).any(),
        )
    )
    return (
        scores.group_by("game_id", "rules_id", "source").agg(rounds=pl.col("round").max())
        .join(lead, on="game_id", how="left")
        .join(games.select("game_id", "winner"), on="game_id", how="left")
        .select(
            "game_id", "rules_id", "source", "rounds",
            lead_changes=pl.col("lead_changes").fill_null(0),
            winner_trailed=pl.when(pl.col("winner").is_null()).then(None)
            .otherwise(pl.col("_trailed").fill_null(False)),
        )
        .sort("game_id")
    )


def lead_summary(leads: pl.DataFrame) -> pl.DataFrame:
    """Per rules id and source: mean lead changes, share of games with one, comeback rate.

    ``comeback_rate`` is the share of decisive games whose winner trailed at some round's end.
    """
    t = leads.group_by(KEYS).agg(
        games=pl.len().cast(pl.Int64),
        mean_lead_changes=pl.col("lead_changes").mean(),
        with_change=(pl.col("lead_changes") > 0).sum().cast(pl.Int64),
        decisive=pl.col("winner_trailed").is_not_null().sum().cast(pl.Int64),
        comebacks=pl.col("winner_trailed").fill_null(False).sum().cast(pl.Int64),
    )
    lo, hi = wilson_exprs(pl.col("comebacks"), pl.col("decisive"))
    return t.with_columns(
        share_with_change=pl.col("with_change") / pl.col("games").cast(pl.Float64),
        comeback_rate=pl.when(pl.col("decisive") > 0).then(pl.col("comebacks") / pl.col("decisive")),
        comeback_lo=lo, comeback_hi=hi,
    ).sort(KEYS)


def vp_by_round(scores: pl.DataFrame) -> pl.DataFrame:
    """Mean VP of each side after each round, over the games still running then.

    Columns: ``rules_id source round games blue_vp red_vp margin``.
    """
    return (
        scores.group_by(*KEYS, "round")
        .agg(games=pl.len().cast(pl.Int64), blue_vp=pl.col("blue_vp").mean(), red_vp=pl.col("red_vp").mean(),
             margin=(pl.col("blue_vp") - pl.col("red_vp")).mean())
        .sort(*KEYS, "round")
    )
