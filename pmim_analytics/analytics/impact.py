"""Rules-version impact, paired: the same lists, opponents, bots and sides under two rules ids.

A list's results depend on whom it meets and who plays it, so a change of rules can only be
read from games that differ in nothing else. A game's **stratum** is its source, the blue
list (by content: :mod:`.lineups`), the blue bot, the red list and the red bot. Only strata
played under both rules ids count; every other game is left out, with the first reason that
applies, looking at the other rules id:

- ``list not played``: one of its lists was never fielded there;
- ``matchup not played``: both lists were, but never against each other;
- ``other bots``: they met, but played by other bots;
- ``sides swapped``: they met with these bots, but on the other sides.

Within a paired stratum the rules id with more games has them weighted down so that both
count the same (weight ``min(n_a, n_b) / n``): a stratum played 40 times under A and 10
times under B cannot tilt A's figure towards itself. With equal numbers of games (a sweep)
every weight is 1.

Figures are B minus A with game-clustered 95% intervals (:mod:`.cluster`), their variance taken
within strata (:func:`_within_strata`: both rules ids play the same strata, so the spread between
strata cancels from the change; counting it made the intervals conservative, 2.9% beyond 0 where
a 95% interval should put 5%: docs/analytics.md, "Null rates on engine games"). The two rules
ids' games are independent, so the variances add. ``significant`` says the interval excludes 0.

**Paired design.** When every paired stratum's games carry distinct (seed, game index) keys
and the two rules ids played the same keys (common random numbers: a sweep of a variant on
the baseline's seeds), each game has a twin, and the win-rate change of a list is read from
the pairs: Newcombe's paired interval (method 10, :func:`.stats.newcombe_paired_interval`),
which gives identical copies exactly 0 [0, 0]. ``design`` says ``paired`` or ``unpaired``
(strata matched, games independent); the other figures keep their clustered intervals.
"""

from __future__ import annotations

import polars as pl

from pmim_analytics.analytics.cluster import cluster_sums
from pmim_analytics.analytics.stats import Z95, newcombe_paired_interval
from pmim_analytics.analytics.units import UNIT_KEYS, UNIT_METRICS

STRATUM = ("source", "blue_list_key", "blue_bot", "red_list_key", "red_bot")
REASONS = ("list not played", "matchup not played", "other bots", "sides swapped")


def pair_games(lineups: pl.DataFrame, rules_a: str, rules_b: str) -> pl.DataFrame:
    """Mark each game of ``rules_a``/``rules_b`` as paired (with its weight) or left out (with why).

    ``lineups`` is :func:`.lineups.with_list_keys` output. Adds ``paired`` (bool), ``weight``
    (0 when left out) and ``reason`` (null when paired).
    """
    g = lineups.filter(pl.col("rules_id").is_in([rules_a, rules_b]))
    counts = g.group_by("rules_id", *STRATUM).agg(n=pl.len())
    other = pl.when(pl.col("rules_id") == rules_a).then(pl.lit(rules_b)).otherwise(pl.lit(rules_a))
    g = g.with_columns(_other=other)
    theirs = counts.select(pl.col("rules_id").alias("_other"), *STRATUM, pl.col("n").alias("_n_other"))
    mine = counts.select("rules_id", *STRATUM, pl.col("n").alias("_n"))
    g = g.join(mine, on=["rules_id", *STRATUM]).join(theirs, on=["_other", *STRATUM], how="left", nulls_equal=True)

    # what the other rules id played, for the reasons
    def sides_of(df: pl.DataFrame) -> pl.DataFrame:
        return pl.concat([df.select("rules_id", "source", list_key="blue_list_key"),
                          df.select("rules_id", "source", list_key="red_list_key")]).unique()

    lists = sides_of(g).rename({"rules_id": "_other"})
    pair = pl.concat_list(pl.min_horizontal("blue_list_key", "red_list_key"),
                          pl.max_horizontal("blue_list_key", "red_list_key")).alias("_pair")
    bots = pl.concat_list(
        pl.when(pl.col("blue_list_key") <= pl.col("red_list_key")).then(pl.col("blue_bot")).otherwise("red_bot"),
        pl.when(pl.col("blue_list_key") <= pl.col("red_list_key")).then(pl.col("red_bot")).otherwise("blue_bot"),
    ).alias("_bots")
    g = g.with_columns(pair, bots)
    met = g.select(pl.col("rules_id").alias("_other"), "source", "_pair").unique().with_columns(_met=pl.lit(True))
    met_bots = g.select(pl.col("rules_id").alias("_other"), "source", "_pair", "_bots").unique().with_columns(
        _met_bots=pl.lit(True))
    g = (
        g.join(lists.rename({"list_key": "blue_list_key"}).with_columns(_blue_there=pl.lit(True)),
               on=["_other", "source", "blue_list_key"], how="left", nulls_equal=True)
        .join(lists.rename({"list_key": "red_list_key"}).with_columns(_red_there=pl.lit(True)),
              on=["_other", "source", "red_list_key"], how="left", nulls_equal=True)
        .join(met, on=["_other", "source", "_pair"], how="left", nulls_equal=True)
        .join(met_bots, on=["_other", "source", "_pair", "_bots"], how="left", nulls_equal=True)
    )
    paired = pl.col("_n_other").is_not_null()
    reason = (
        pl.when(paired).then(None)
        .when(~(pl.col("_blue_there").fill_null(False) & pl.col("_red_there").fill_null(False)))
        .then(pl.lit(REASONS[0]))
        .when(pl.col("_met").is_null()).then(pl.lit(REASONS[1]))
        .when(pl.col("_met_bots").is_null()).then(pl.lit(REASONS[2]))
        .otherwise(pl.lit(REASONS[3]))
    )
    weight = pl.when(paired).then(pl.min_horizontal("_n", "_n_other") / pl.col("_n").cast(pl.Float64)).otherwise(0.0)
    return g.with_columns(paired=paired, weight=weight, reason=reason).drop(
        [c for c in g.columns if c.startswith("_")]).sort("game_id")


def pairing_summary(paired: pl.DataFrame) -> pl.DataFrame:
    """Per rules id: games paired, games left out, and how many for each reason."""
    base = paired.group_by("rules_id").agg(games=pl.len(), paired=pl.col("paired").sum(),
                                           strata=pl.struct(*STRATUM).filter(pl.col("paired")).n_unique())
    why = paired.filter(~pl.col("paired")).group_by("rules_id", "reason").agg(n=pl.len())
    wide = base.with_columns(left_out=pl.col("games") - pl.col("paired"))
    for r in REASONS:
        wide = wide.join(why.filter(pl.col("reason") == r).select("rules_id", pl.col("n").alias(r)),
                         on="rules_id", how="left").with_columns(pl.col(r).fill_null(0))
    return wide.sort("rules_id")


def unpaired_lists(paired: pl.DataFrame) -> pl.DataFrame:
    """The lists of the games left out, and why: per rules id, source, list and reason, the
    games of that list left out for that reason (``rules_id source list reason games``),
    most games first. A list that is paired in some games and not in others appears here
    only with the games it lost."""
    out = paired.filter(~pl.col("paired"))
    if out.height == 0:
        return pl.DataFrame(schema={"rules_id": pl.Utf8, "source": pl.Utf8, "list": pl.Utf8, "reason": pl.Utf8,
                                    "games": pl.UInt32})
    sides = pl.concat([out.select("game_id", "rules_id", "source", "reason", list=pl.col(f"{s}_list"))
                       for s in ("blue", "red")]).unique()
    return (sides.group_by("rules_id", "source", "list", "reason").agg(games=pl.col("game_id").n_unique())
            .sort(["rules_id", "games", "list"], descending=[False, True, False]))


def _stratum() -> pl.Expr:
    return pl.concat_str([pl.col(c).cast(pl.Utf8).fill_null("") for c in STRATUM], separator="|").alias("_stratum")


def _within_strata(clusters: pl.DataFrame, keys: list[str]) -> pl.DataFrame:
    """Per key, from :func:`.cluster.cluster_sums` by key *and stratum*: each metric's ``_y``, ``_d``,
    ``_g`` summed over strata and ``_v``, the stratified variance numerator of the ratio ``y / d``.

    Every rules id plays the same strata (that is what pairing means), so the spread between
    strata cancels from a change and only the spread within them counts:
    ``v = Σ_h g_h / (g_h - 1) · Σ_{g in h} (e_g - ē_h)²`` with ``e_g = Y_g - m·D_g``. A stratum of
    one game has no spread of its own and adds ``e_g²`` (as the unstratified formula would).
    """
    names = sorted({c[: -len("_yy")] for c in clusters.columns if c.endswith("_yy")})
    aggs: list[pl.Expr] = []
    parts: list[pl.Expr] = []
    for n in names:
        y, d, g = pl.col(f"{n}_y"), pl.col(f"{n}_d"), pl.col(f"{n}_g").cast(pl.Float64)
        m = pl.when(d.sum().over(keys) > 0).then(y.sum().over(keys) / d.sum().over(keys)).otherwise(0.0)
        ss = pl.col(f"{n}_yy") - 2 * m * pl.col(f"{n}_yd") + m * m * pl.col(f"{n}_dd")
        e = y - m * d
        part = pl.when(g > 1).then(g / (g - 1) * (ss - e * e / g)).otherwise(ss)
        parts.append(pl.max_horizontal(part, pl.lit(0.0)).alias(f"_{n}_v"))
        aggs += [y.sum(), d.sum(), pl.col(f"{n}_g").sum(), pl.col(f"_{n}_v").sum().alias(f"{n}_v")]
    # summed in one fixed order (by stratum), so identical games give identical sums, to the last bit
    return clusters.sort([*keys, "_stratum"]).with_columns(parts).group_by(keys, maintain_order=True).agg(aggs)


def _mean_se(name: str, suffix: str) -> tuple[pl.Expr, pl.Expr]:
    """(mean, stratified SE) of ``{name}`` from :func:`_within_strata` columns."""
    d, g = pl.col(f"{name}_d{suffix}"), pl.col(f"{name}_g{suffix}")
    m = pl.when(d > 0).then(pl.col(f"{name}_y{suffix}") / d)
    return m, pl.when(g > 1).then(pl.col(f"{name}_v{suffix}").sqrt() / d)


def _diff(name: str, out: str) -> list[pl.Expr]:
    ma, sa = _mean_se(name, "_a")
    mb, sb = _mean_se(name, "_b")
    half = Z95 * (sa * sa + sb * sb).sqrt()
    d = mb - ma
    return [ma.alias(f"{out}_a"), mb.alias(f"{out}_b"), d.alias(f"{out}_diff"), (d - half).alias(f"{out}_diff_lo"),
            (d + half).alias(f"{out}_diff_hi")]


def _both(clusters: pl.DataFrame, keys: list[str], rules_a: str, rules_b: str) -> pl.DataFrame:
    """Cluster sums of A and B side by side (suffix ``_a``/``_b``), keys present under both."""
    vals = [c for c in clusters.columns if c not in (*keys, "rules_id")]
    a = clusters.filter(pl.col("rules_id") == rules_a).select(*keys, *[pl.col(c).alias(f"{c}_a") for c in vals])
    b = clusters.filter(pl.col("rules_id") == rules_b).select(*keys, *[pl.col(c).alias(f"{c}_b") for c in vals])
    return a.join(b, on=keys, how="inner", nulls_equal=True)


def _significant(*outs: str) -> pl.Expr:
    return pl.any_horizontal(*[(pl.col(f"{o}_diff_lo") > 0) | (pl.col(f"{o}_diff_hi") < 0) for o in outs]).fill_null(
        False)


def composition_impact(paired: pl.DataFrame, rules_a: str, rules_b: str) -> pl.DataFrame:
    """Per source and list: win rate, score and VP margin under both rules ids, paired games only.

    ``paired`` is :func:`pair_games` output. Mirror games are left out (a mirror is one win
    and one loss). Columns: ``rules_a rules_b source list list_key composition_a
    composition_b games_a games_b`` then ``win_*`` and ``vp_margin_*`` (``_a _b _diff
    _diff_lo _diff_hi``), ``significant`` and ``saturated`` (a win rate within 5% of 0 or 1
    under either rules id: a change of win rate cannot show there).
    """
    g = paired.filter(pl.col("paired") & (pl.col("blue_list_key") != pl.col("red_list_key")))
    views = []
    for me, opp in (("blue", "red"), ("red", "blue")):
        views.append(g.select(
            "game_id", "rules_id", "source", "weight", list_key=pl.col(f"{me}_list_key"), list=pl.col(f"{me}_list"),
            composition=pl.col(f"{me}_composition"),
            win=(pl.col("winner") == me).cast(pl.Float64).fill_null(0.0),
            margin=(pl.col(f"{me}_vp") - pl.col(f"{opp}_vp")).cast(pl.Float64), one=pl.lit(1.0),
            _stratum=_stratum()))
    v = pl.concat(views)
    keys = ["source", "list_key", "list"]
    clusters = _within_strata(cluster_sums(v, ["rules_id", *keys, "_stratum"], {
        "win": (pl.col("win"), pl.col("one")),
        "margin": (pl.col("margin").fill_null(0.0), pl.col("margin").is_not_null().cast(pl.Float64)),
    }, weight=pl.col("weight")), ["rules_id", *keys])
    names = v.group_by("rules_id", "list_key").agg(pl.col("composition").unique().sort().str.join(", "),
                                                   games=pl.len())
    t = _both(clusters, keys, rules_a, rules_b)
    for sfx, rid in (("a", rules_a), ("b", rules_b)):
        t = t.join(names.filter(pl.col("rules_id") == rid).select(
            "list_key", pl.col("composition").alias(f"composition_{sfx}"), pl.col("games").alias(f"games_{sfx}")),
            on="list_key", how="left")
    out = t.select(
        pl.lit(rules_a).alias("rules_a"), pl.lit(rules_b).alias("rules_b"), *keys, "composition_a", "composition_b",
        "games_a", "games_b", *_diff("win", "win"), *_diff("margin", "vp_margin"),
    )
    twins = seed_twins(g, rules_a, rules_b)
    if twins is not None and out.height:
        out = _paired_wins(out, v, twins, rules_a, rules_b)
    out = out.with_columns(design=pl.lit("paired" if twins is not None else "unpaired"))
    return out.with_columns(
        significant=_significant("win", "vp_margin"),
        saturated=pl.any_horizontal(*[(pl.col(c) <= 0.05) | (pl.col(c) >= 0.95) for c in ("win_a", "win_b")]),
    ).sort("source", "list")


def seed_twins(paired: pl.DataFrame, rules_a: str, rules_b: str) -> pl.DataFrame | None:
    """``game_a, game_b`` for every paired game and its twin (same stratum, seed and game index
    under the other rules id), or ``None`` when the games cannot all be paired so (a key used
    twice in a stratum, a key played under one rules id only, or no seeds)."""
    if paired.height == 0 or "seed" not in paired.columns or paired["seed"].null_count():
        return None
    keys = [*STRATUM, "seed", "game_index"]
    per = paired.group_by("rules_id", *keys).agg(pl.len().alias("n"), pl.col("game_id").first())
    if per["n"].max() != 1:
        return None
    a = per.filter(pl.col("rules_id") == rules_a).select(*keys, game_a="game_id")
    b = per.filter(pl.col("rules_id") == rules_b).select(*keys, game_b="game_id")
    both = a.join(b, on=keys, how="inner", nulls_equal=True)
    if both.height == 0 or both.height != a.height or both.height != b.height:
        return None
    return both.select("game_a", "game_b")


def _paired_wins(out: pl.DataFrame, views: pl.DataFrame, twins: pl.DataFrame, rules_a: str,
                 rules_b: str) -> pl.DataFrame:
    """Replace each list's win change and interval by the paired ones (Newcombe, method 10)."""
    va = views.filter(pl.col("rules_id") == rules_a).select("game_id", "list_key", "source", win_a_="win")
    vb = views.filter(pl.col("rules_id") == rules_b).select("game_id", "list_key", "source", win_b_="win")
    pairs = (twins.join(va, left_on="game_a", right_on="game_id")
             .join(vb, left_on=["game_b", "list_key", "source"], right_on=["game_id", "list_key", "source"]))
    counts = pairs.group_by("source", "list_key").agg(
        both=((pl.col("win_a_") == 1) & (pl.col("win_b_") == 1)).sum(),
        only_a=((pl.col("win_a_") == 1) & (pl.col("win_b_") == 0)).sum(),
        only_b=((pl.col("win_a_") == 0) & (pl.col("win_b_") == 1)).sum(),
        neither=((pl.col("win_a_") == 0) & (pl.col("win_b_") == 0)).sum())
    found = {(s, k): newcombe_paired_interval(*(int(x) for x in rest))
             for s, k, *rest in counts.select("source", "list_key", "both", "only_a", "only_b",
                                              "neither").iter_rows()}
    rows = [found.get((s, k)) for s, k in out.select("source", "list_key").iter_rows()]
    return out.with_columns(
        win_diff=pl.Series([r[0] if r else d for r, d in zip(rows, out["win_diff"], strict=True)], dtype=pl.Float64),
        win_diff_lo=pl.Series([r[1] if r else d for r, d in zip(rows, out["win_diff_lo"], strict=True)],
                              dtype=pl.Float64),
        win_diff_hi=pl.Series([r[2] if r else d for r, d in zip(rows, out["win_diff_hi"], strict=True)],
                              dtype=pl.Float64))


def unit_impact(paired: pl.DataFrame, game_sums: pl.DataFrame, rules_a: str, rules_b: str) -> pl.DataFrame:
    """Per source and unit type: per-unit figures under both rules ids, paired games only.

    ``game_sums`` is :func:`.units.unit_game_sums` output (by type) of the same games.
    Columns: ``rules_a rules_b source code type units_a units_b pts_a pts_b`` then
    ``vp_share_* vp_per_pt_* damage_per_pt_* survival_*`` (``_a _b _diff _diff_lo
    _diff_hi``) and ``significant`` (any of them).
    """
    w = paired.filter(pl.col("paired")).select("game_id", "weight", _stratum())
    per_game = game_sums.filter(pl.col("rules_id").is_in([rules_a, rules_b])).join(w, on="game_id")
    unit_keys = [c for c in (*UNIT_KEYS, "weapons") if c in per_game.columns]
    clusters = _within_strata(cluster_sums(per_game, [*unit_keys, "_stratum"], UNIT_METRICS, weight=pl.col("weight")),
                              unit_keys)
    counts = per_game.group_by("rules_id", "source", "code").agg(units=pl.col("n").sum(),
                                                                 pts=pl.col("pts_sum").sum() / pl.col("n").sum())
    keys = ["source", "code", "type", "kind"]
    t = _both(clusters, keys, rules_a, rules_b)
    for sfx, rid in (("a", rules_a), ("b", rules_b)):
        t = t.join(counts.filter(pl.col("rules_id") == rid).select(
            "source", "code", pl.col("units").alias(f"units_{sfx}"), pl.col("pts").alias(f"pts_{sfx}")),
            on=["source", "code"], how="left")
    return t.select(
        pl.lit(rules_a).alias("rules_a"), pl.lit(rules_b).alias("rules_b"), "source", "code", "type",
        "units_a", "units_b", "pts_a", "pts_b",
        *_diff("vp", "vp_share"), *_diff("vpp", "vp_per_pt"), *_diff("dpp", "damage_per_pt"),
        *_diff("surv", "survival"),
    ).with_columns(significant=_significant("vp_share", "vp_per_pt", "damage_per_pt", "survival")).sort(
        "source", "code")


#: The verdict words of :func:`with_verdicts`, each with what it means (the dashboard's legend).
VERDICTS = {
    "stronger": "the list wins more under B: the 95% interval of the change lies above 0",
    "weaker": "the list wins less under B: the interval lies below 0",
    "no clear change": "the interval holds 0: these games cannot tell a change from chance",
    "saturated": "the list won or lost 95-100% under A or B, where a change of win rate cannot show",
}


def with_verdicts(comps: pl.DataFrame) -> pl.DataFrame:
    """:func:`composition_impact` rows with ``verdict`` (a word of :data:`VERDICTS`) and
    ``verdict_line``: "Tank-heavy: stronger, +12 points [3, 21] over 40 / 40 paired games"."""
    lo, hi, d = (pl.col(c) * 100 for c in ("win_diff_lo", "win_diff_hi", "win_diff"))
    verdict = (pl.when(pl.col("saturated")).then(pl.lit("saturated"))
               .when(pl.col("win_diff_lo") > 0).then(pl.lit("stronger"))
               .when(pl.col("win_diff_hi") < 0).then(pl.lit("weaker"))
               .otherwise(pl.lit("no clear change")))
    line = pl.format("{}: {}, {} points [{}, {}] over {} / {} paired games", pl.col("list"), verdict,
                     pl.when(d >= 0).then(pl.lit("+")).otherwise(pl.lit("")) + d.round(0).cast(pl.Int64).cast(pl.Utf8),
                     lo.round(0).cast(pl.Int64), hi.round(0).cast(pl.Int64), pl.col("games_a"), pl.col("games_b"))
    return comps.with_columns(verdict=verdict, verdict_line=line)
