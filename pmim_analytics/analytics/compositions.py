"""Army compositions: win/draw/loss, VP margin, game length, matchups, side advantage.

:func:`matchup_cells` reduces ``sides`` x ``games`` to counts per (composition, opponent,
bots, side, first player, result), the additive input of everything here (the loader
computes the same cells in SQL). Each game gives two rows, one from each side's view.

Compositions are keyed by ``composition`` (the army list's name), ``army_hash`` (same
units and weapons, whatever the name; the hash includes the rules id) or ``list`` (same
units and weapons whatever the rules id: a list and its translation; see :mod:`.lineups`,
and :func:`with_lists` to add it to the cells). Mirror games (both
sides on the same key) say nothing about a composition's strength and are left out of
composition and matchup tables. Win rates carry Wilson 95% intervals.
"""

from __future__ import annotations

import polars as pl

from pmim_analytics.analytics.stats import (
    exact_strata_p_value,
    mean_exprs,
    newcombe_exprs,
    normal_two_sided_p,
    wilson_exprs,
)

CELL_KEYS = ("rules_id", "source", "composition", "army_hash", "bot", "side", "opp_composition", "opp_army_hash",
             "opp_bot", "first", "result")
KEYS = ("composition", "army_hash", "list")
#: The column listing the other key's values behind each row.
_PLURAL = {"composition": "compositions", "army_hash": "army_hashes"}


def matchup_cells(sides: pl.DataFrame, games: pl.DataFrame) -> pl.DataFrame:
    """Count games per :data:`CELL_KEYS`, with sums of VP margin and rounds.

    ``first`` is whether this side activated first (null when unknown); the margin is this
    side's VP minus the opponent's. Columns: keys, ``n``, ``margin_n``, ``margin_sum``,
    ``margin_sq``, ``rounds_n``, ``rounds_sum``, ``rounds_sq``, and ``est_margin_n/_sum/_sq``:
    the margins of games whose final VP are estimated, kept apart (see :func:`fold_estimated`).
    """
    me = sides.join(games.select("game_id", "rules_id", "source", "first_side", "rounds", "vp_estimated"),
                    on="game_id")
    opp = sides.select("game_id", opp_side="side", opp_composition="composition", opp_army_hash="army_hash",
                       opp_bot="bot", opp_vp="vp")
    est = pl.col("vp_estimated").fill_null(False)
    margin = (pl.col("vp") - pl.col("opp_vp")).cast(pl.Int64)
    rounds = pl.col("rounds").cast(pl.Int64)
    return (
        me.join(opp, on="game_id")
        .filter(pl.col("side") != pl.col("opp_side"))
        .with_columns(first=pl.col("first_side") == pl.col("side"), _m=pl.when(~est).then(margin),
                      _e=pl.when(est).then(margin), _r=rounds)
        .group_by(list(CELL_KEYS))
        .agg(
            n=pl.len().cast(pl.Int64),
            **margin_aggs("_m", "margin"),
            rounds_n=pl.col("_r").is_not_null().cast(pl.Int64).sum(),
            rounds_sum=pl.col("_r").fill_null(0).sum(),
            rounds_sq=(pl.col("_r") ** 2).fill_null(0).sum().cast(pl.Int64),
            **margin_aggs("_e", "est_margin"),
        )
        .sort(list(CELL_KEYS), nulls_last=True)
    )


def margin_aggs(col: str, prefix: str) -> dict[str, pl.Expr]:
    """Count, sum and sum of squares of the non-null values of ``col`` as ``<prefix>_n/_sum/_sq``."""
    x = pl.col(col)
    return {f"{prefix}_n": x.is_not_null().cast(pl.Int64).sum(), f"{prefix}_sum": x.fill_null(0).sum(),
            f"{prefix}_sq": (x**2).fill_null(0).sum().cast(pl.Int64)}


EST_MARGIN_COLS = ("est_margin_n", "est_margin_sum", "est_margin_sq")


def fold_estimated(cells: pl.DataFrame, include: bool) -> pl.DataFrame:
    """Matchup or game cells with the VP margins of games whose final VP are estimated
    (``est_margin_*``) added into ``margin_*`` when ``include``, else left out; the
    ``est_margin_*`` columns are dropped either way."""
    if "est_margin_n" not in cells.columns:
        return cells
    if include:
        cells = cells.with_columns(*[(pl.col(f"margin_{k}") + pl.col(f"est_margin_{k}").fill_null(0))
                                     .alias(f"margin_{k}") for k in ("n", "sum", "sq")])
    return cells.drop(EST_MARGIN_COLS)
def with_lists(cells: pl.DataFrame, keys: pl.DataFrame) -> pl.DataFrame:
    """Add ``list``/``opp_list`` (and their keys) to :func:`matchup_cells` output from :func:`.lineups.list_keys`."""
    k = keys.select("rules_id", "army_hash", "list_key", "list")
    return cells.join(k, on=["rules_id", "army_hash"], how="left").join(
        k.rename({"army_hash": "opp_army_hash", "list_key": "opp_list_key", "list": "opp_list"}),
        on=["rules_id", "opp_army_hash"], how="left")


def _check_key(key: str) -> str:
    if key not in KEYS:
        raise ValueError(f"key must be one of {', '.join(KEYS)}, not {key!r}")
    return key


def _outcome_aggs() -> list[pl.Expr]:
    return [
        pl.col("n").sum().alias("games"),
        pl.col("n").filter(pl.col("result") == "win").sum().alias("wins"),
        pl.col("n").filter(pl.col("result") == "draw").sum().alias("draws"),
        pl.col("n").filter(pl.col("result") == "loss").sum().alias("losses"),
        pl.col("margin_n").sum(), pl.col("margin_sum").sum(), pl.col("margin_sq").sum(),
        pl.col("rounds_n").sum(), pl.col("rounds_sum").sum(),
    ]


def _outcome_columns(df: pl.DataFrame) -> pl.DataFrame:
    lo, hi = wilson_exprs(pl.col("wins"), pl.col("games"))
    s_lo, s_hi = wilson_exprs(pl.col("wins") + 0.5 * pl.col("draws"), pl.col("games"))
    margin, margin_ci = mean_exprs(pl.col("margin_n"), pl.col("margin_sum"), pl.col("margin_sq"))
    g = pl.col("games").cast(pl.Float64)
    return df.with_columns(
        win_rate=pl.when(g > 0).then(pl.col("wins") / g),
        win_lo=lo,
        win_hi=hi,
        score=pl.when(g > 0).then((pl.col("wins") + 0.5 * pl.col("draws")) / g),
        score_lo=s_lo,
        score_hi=s_hi,
        vp_margin=margin,
        vp_margin_ci=margin_ci,
        mean_rounds=pl.when(pl.col("rounds_n") > 0).then(pl.col("rounds_sum") / pl.col("rounds_n")),
    ).drop("margin_n", "margin_sum", "margin_sq", "rounds_n", "rounds_sum")


def _mirror(key: str) -> pl.Expr:
    return pl.col(key) == pl.col(f"opp_{key}")


def composition_table(cells: pl.DataFrame, key: str = "composition") -> pl.DataFrame:
    """Per rules id, source and composition: W/D/L, win rate (Wilson), score, VP margin, length.

    Mirror games are left out (``mirrors`` counts them). ``score`` counts a draw as half a win
    for each side (``score_lo``/``score_hi``: its Wilson interval), so a pairing's two scores add
    up to one; ``win_rate`` counts wins only.
    """
    key = _check_key(key)
    keys = ["rules_id", "source", key]
    # each mirror game gives two rows with the same key
    mirrors = cells.filter(_mirror(key)).group_by(keys).agg(mirrors=pl.col("n").sum() // 2)
    other = "army_hash" if key == "composition" else "composition"
    t = (
        cells.filter(~_mirror(key))
        .group_by(keys)
        .agg(*_outcome_aggs(), pl.col(other).unique().sort().str.join(", ").alias(_PLURAL[other]))
        .join(mirrors, on=keys, how="left")
        .with_columns(pl.col("mirrors").fill_null(0))
    )
    return _outcome_columns(t).sort(keys)


#: A win rate this close to 0 or 1 cannot move much further: a change read from it is floored.
SATURATION = 0.05


def _saturated(rate: pl.Expr) -> pl.Expr:
    return (rate <= SATURATION) | (rate >= 1 - SATURATION)


def matchup_table(cells: pl.DataFrame, key: str = "composition") -> pl.DataFrame:
    """Per rules id, source, composition and opponent composition: the row side's results.

    Every non-mirror pairing appears twice, once from each side's view. ``games`` is the
    cell's n, ``win_lo``/``win_hi`` its Wilson interval; ``saturated`` marks a win rate
    within 5% of 0 or 1 (a change there is bounded by the floor or the ceiling).
    """
    key = _check_key(key)
    keys = ["rules_id", "source", key, f"opp_{key}"]
    t = cells.filter(~_mirror(key)).group_by(keys).agg(*_outcome_aggs())
    return _outcome_columns(t).with_columns(saturated=_saturated(pl.col("win_rate"))).sort(keys)


def matchup_diff(matchups: pl.DataFrame, rules_a: str, rules_b: str, key: str = "composition",
                 source: str | None = None) -> pl.DataFrame:
    """Per pairing played under both rules ids: the row's win rate under each, the change, flags.

    ``matchups`` is :func:`matchup_table` output. Columns: ``source``, the key and its
    ``opp_`` twin, ``games_a games_b win_a win_b diff diff_lo diff_hi`` (Newcombe 95%),
    ``saturated`` (either win rate within 5% of 0 or 1: the change is bounded, "+0" may
    hide a real change) and ``significant``.
    """
    key = _check_key(key)
    m = matchups.filter(pl.col("rules_id").is_in([rules_a, rules_b]))
    if source is not None:
        m = m.filter(pl.col("source") == source)
    keys = ["source", key, f"opp_{key}"]

    def side(rid: str, sfx: str) -> pl.DataFrame:
        return m.filter(pl.col("rules_id") == rid).group_by(keys).agg(
            pl.col("wins").sum().alias(f"wins_{sfx}"), pl.col("games").sum().alias(f"games_{sfx}"))

    t = side(rules_a, "a").join(side(rules_b, "b"), on=keys).filter((pl.col("games_a") > 0) & (pl.col("games_b") > 0))
    a_lo, a_hi = wilson_exprs(pl.col("wins_a"), pl.col("games_a"))
    b_lo, b_hi = wilson_exprs(pl.col("wins_b"), pl.col("games_b"))
    t = t.with_columns(win_a=pl.col("wins_a") / pl.col("games_a").cast(pl.Float64), _alo=a_lo, _ahi=a_hi,
                       win_b=pl.col("wins_b") / pl.col("games_b").cast(pl.Float64), _blo=b_lo, _bhi=b_hi)
    lo, hi = newcombe_exprs(pl.col("win_b"), pl.col("_blo"), pl.col("_bhi"), pl.col("win_a"), pl.col("_alo"),
                            pl.col("_ahi"))
    return t.select(
        *keys, "games_a", "games_b", "win_a", "win_b", diff=pl.col("win_b") - pl.col("win_a"), diff_lo=lo,
        diff_hi=hi, saturated=_saturated(pl.col("win_a")) | _saturated(pl.col("win_b")),
    ).with_columns(significant=(pl.col("diff_lo") > 0) | (pl.col("diff_hi") < 0)).sort(keys)


def matchup_matrix(matchups: pl.DataFrame, rules_id: str, source: str | None = None, key: str = "composition",
                   value: str = "win_rate") -> pl.DataFrame:
    """The matchup table of one rules id as a matrix: a row per composition, a column per opponent.

    Cells hold ``value`` (default: the row composition's win rate); mirrors are null.
    """
    key = _check_key(key)
    m = matchups.filter(pl.col("rules_id") == rules_id)
    if source is not None:
        m = m.filter(pl.col("source") == source)
    m = m.group_by(key, f"opp_{key}").agg(pl.col(value).mean())
    names = sorted(set(m[key].to_list()) | set(m[f"opp_{key}"].to_list()))
    lookup = {(a, b): v for a, b, v in m.select(key, f"opp_{key}", value).iter_rows()}
    return pl.DataFrame(
        {key: names, **{b: [lookup.get((a, b)) for a in names] for b in names}},
        schema={key: pl.Utf8, **{b: pl.Float64 for b in names}},
    )


def side_advantage(cells: pl.DataFrame) -> pl.DataFrame:
    """Per rules id and source: does blue, or the side activating first in round 1, win more often?

    Counts each game once (mirrors included: they are the cleanest test). Shares are of
    decisive games, with Wilson intervals and an exact two-sided test against one half
    (normal above 5000 games). ``blue_first_games`` / ``red_first_games`` count the games
    in which that side activated first (``first_unknown`` where the log does not say).

    When every game whose first side is known had the same side first (``confounded``:
    the scenario's ``alternate`` or ``blue`` setting always starts blue), side and first
    move are one effect: the blue test is the only test, the first-player columns are
    null and ``confounded_by`` names the side that always went first. Otherwise the two
    tests are given separately (each over all its decisive games).
    """
    keys = ["rules_id", "source"]
    win, loss = pl.col("result") == "win", pl.col("result") == "loss"
    blue = cells.filter(pl.col("side") == "blue").group_by(keys).agg(
        games=pl.col("n").sum(),
        blue_wins=pl.col("n").filter(win).sum(),
        red_wins=pl.col("n").filter(loss).sum(),
        draws=pl.col("n").filter(pl.col("result") == "draw").sum(),
        blue_first_games=pl.col("n").filter(pl.col("first").fill_null(False)).sum(),
        red_first_games=pl.col("n").filter(~pl.col("first").fill_null(True)).sum(),
        first_unknown=pl.col("n").filter(pl.col("first").is_null()).sum(),
    )
    first = cells.filter(pl.col("first").fill_null(False)).group_by(keys).agg(
        first_wins=pl.col("n").filter(win).sum(),
        first_losses=pl.col("n").filter(loss).sum(),
    )
    t = blue.join(first, on=keys, how="left").with_columns(pl.col("first_wins", "first_losses").fill_null(0))
    known_one_side = (pl.col("blue_first_games") == 0) | (pl.col("red_first_games") == 0)
    t = t.with_columns(
        confounded=(pl.col("blue_first_games") + pl.col("red_first_games") > 0) & known_one_side,
    ).with_columns(
        confounded_by=pl.when(~pl.col("confounded")).then(None)
        .when(pl.col("blue_first_games") > 0).then(pl.lit("blue")).otherwise(pl.lit("red")),
    )
    b_lo, b_hi = wilson_exprs(pl.col("blue_wins"), pl.col("blue_wins") + pl.col("red_wins"))
    f_lo, f_hi = wilson_exprs(pl.col("first_wins"), pl.col("first_wins") + pl.col("first_losses"))
    separate = ~pl.col("confounded")
    t = t.with_columns(
        blue_share=pl.col("blue_wins") / (pl.col("blue_wins") + pl.col("red_wins")).cast(pl.Float64),
        blue_lo=b_lo, blue_hi=b_hi,
        first_share=pl.when(separate).then(
            pl.col("first_wins") / (pl.col("first_wins") + pl.col("first_losses")).cast(pl.Float64)),
        first_lo=pl.when(separate).then(f_lo), first_hi=pl.when(separate).then(f_hi),
    )
    t = t.with_columns(
        blue_p=pl.Series([_half_p(w, w + lo) for w, lo in t.select("blue_wins", "red_wins").iter_rows()],
                         dtype=pl.Float64),
        first_p=pl.Series([None if c else _half_p(w, w + lo)
                           for w, lo, c in t.select("first_wins", "first_losses", "confounded").iter_rows()],
                          dtype=pl.Float64),
    )
    return t.sort(keys)


def _half_p(k: int, n: int) -> float | None:
    """Two-sided p-value of k successes in n against one half."""
    if n == 0:
        return None
    exact = exact_strata_p_value([(n, 0.5)], k)
    if exact is not None:
        return exact
    return normal_two_sided_p((k - n / 2) / (n**0.5 / 2))
