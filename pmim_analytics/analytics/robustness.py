"""Do balance verdicts survive stronger play? Scores by bot level, and flags from tests.

Input: engine results of games where both sides played at the same bot level, one row per
(rules_id, bot, composition, opp_composition) with ``games, wins, draws`` (each game counted
from both sides). A **score** is wins plus half the draws over games, so a matchup reads the
same from both sides (A's score is one minus B's), with a 95% Wilson interval. A level's
**verdict** is "favoured" when the interval lies above 50%, "unfavoured" below, "even" else.

Each row (a composition, or a matchup) compares the strongest level that has enough games
with every weaker level by a two-proportion z-test of the scores; the row's p-value is the
smallest of these, Bonferroni-corrected for the number of weaker levels, and the weaker level
it comes from is the row's reference. The rows of a table are one family: their p-values are
adjusted with Benjamini-Hochberg (:mod:`.flags`, which also says why BH) and a difference is
**significant** when its q is at most 0.05. The flag then reads the two levels' verdicts:

* ``flips``: significant, and the two levels favour opposite sides;
* ``vanishes``: significant, the reference favours a side, the strongest level is even;
* ``shrinks`` / ``grows``: significant, the edge (score minus 50%) smaller / larger at the
  strongest level (same side, or neither level giving a verdict);
* ``emerges``: significant, only the strongest level favours a side;
* ``unconfirmed``: not significant, the reference favours a side, the strongest is even;
* ``holds``: not significant otherwise; ``one level``: nothing to compare (not tested).

The first three are **bot-dependent**: a designer should not reprice units on them. Bot
levels are ordered by design (random, greedy, tactician, then search by budget:
:func:`.levels.level_strength`); the ladder (``pmim bots ladder``) measures whether that
order is right.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import polars as pl

from pmim_analytics.analytics.flags import FDR, bh_adjust
from pmim_analytics.analytics.levels import level_of, level_strength
from pmim_analytics.analytics.stats import two_proportion_p, wilson_interval

BOT_DEPENDENT = ("flips", "vanishes", "shrinks")


def level_key(label: str) -> tuple[int, float, str]:
    """Weakest to strongest by design: random, greedy, tactician, search by budget, then others."""
    order = ("random", "greedy", "tactician")
    name, _, params = label.partition(":")
    if name in order:
        return (order.index(name), 0.0, label)
    if name == "search":
        budget = 0.0
        for part in params.split(","):
            k, _, v = part.partition("=")
            if k.strip() == "budget":
                try:
                    budget = float(v)
                except ValueError:
                    pass
        return (len(order), budget, label)
    return (len(order) + 1, 0.0, label)


def levels_wide(table: pl.DataFrame, key: str) -> tuple[pl.DataFrame, list[str]]:
    """A robustness table with one column per bot level, weakest to strongest (each cell the
    level's ``62% [55-69] (200)``, null where the level has too few games), and the level names
    in that order: every level shows, the strongest included."""
    cells: list[dict[str, str]] = []
    names: set[str] = set()
    for text in table["levels"].to_list():
        row = {}
        for part in (text or "").split(" | "):
            bot, _, rest = part.partition(" ")
            if bot:
                row[bot] = rest
                names.add(bot)
        cells.append(row)
    order = sorted(names, key=level_key)
    wide = table.select("rules_id", key, "flag").with_columns(
        [pl.Series(b, [r.get(b) for r in cells], dtype=pl.String) for b in order])
    return wide, order


def split_skill(label: str) -> tuple[str, float]:
    """``("search:budget=400", 0.75)`` from ``search:budget=400,skill=0.75``; skill 1 when unset."""
    name, sep, params = label.partition(":")
    keep, skill = [], 1.0
    for part in params.split(",") if sep else []:
        k, _, v = part.partition("=")
        if k.strip() == "skill":
            try:
                skill = float(v)
            except ValueError:
                keep.append(part)
        else:
            keep.append(part)
    return (name + (":" + ",".join(keep) if keep else "")), skill



@dataclass(frozen=True)
class Level:
    """One bot level's record for a row: ``points`` (wins + draws/2) of ``games``, its score and interval."""

    bot: str
    points: float
    games: int

    @property
    def rate(self) -> float:
        """The score: points over games."""
        return self.points / self.games if self.games else float("nan")

    @property
    def interval(self) -> tuple[float, float]:
        """95% Wilson interval of the score."""
        return wilson_interval(self.points, self.games)

    @property
    def sign(self) -> int:
        """+1 favoured, -1 unfavoured, 0 even (the interval straddles 50%)."""
        lo, hi = self.interval
        return 1 if lo > 0.5 else -1 if hi < 0.5 else 0

    def flipped(self) -> Level:
        """The same games seen from the other side."""
        return Level(self.bot, self.games - self.points, self.games)

    def text(self) -> str:
        """``greedy 62% [55-69] (200)``."""
        lo, hi = self.interval
        return f"{self.bot} {self.rate:.0%} [{lo * 100:.0f}-{hi * 100:.0f}] ({self.games})"


def compare(levels: list[Level]) -> tuple[float | None, Level | None]:
    """(the row's p-value, its reference level) for levels ordered weakest first: the smallest
    two-proportion p of a weaker level against the strongest, times the number of weaker levels
    (at most 1). ``(None, None)`` with one level."""
    if len(levels) < 2:
        return (None, None)
    strong = levels[-1]
    tests = [(two_proportion_p(w.points, w.games, strong.points, strong.games), w) for w in levels[:-1]]
    p, ref = min((((1.0 if p is None else p), w) for p, w in tests), key=lambda t: t[0])
    return (min(1.0, p * len(tests)), ref)


def verdict(ref: Level | None, strong: Level, significant: bool) -> str:
    """The flag of a row from its reference, its strongest level and whether they differ significantly."""
    if ref is None:
        return "one level"
    if not significant:
        return "unconfirmed" if ref.sign != 0 and strong.sign == 0 else "holds"
    if ref.sign != 0 and strong.sign == -ref.sign:
        return "flips"
    if ref.sign != 0 and strong.sign == 0:
        return "vanishes"
    if ref.sign == 0 and strong.sign != 0:
        return "emerges"
    return "shrinks" if abs(strong.rate - 0.5) < abs(ref.rate - 0.5) else "grows"


def classify(levels: list[Level], alpha: float = FDR) -> tuple[str, Level | None]:
    """(flag, reference level) of one row tested alone (a family of one) at ``alpha``."""
    p, ref = compare(levels)
    return (verdict(ref, levels[-1], p is not None and p <= alpha), ref)


def same_bot_cells(matchup_cells: pl.DataFrame) -> pl.DataFrame:
    """The input of this module from a :class:`~.dataset.GameData`'s ``matchup_cells()``: engine
    games where both sides played at the same bot level, per (rules_id, bot, composition,
    opp_composition); ``bot`` is the level's canonical key (:mod:`.levels`), so two spellings of
    one behaviour are one level."""
    engine = matchup_cells.filter((pl.col("source") == "engine") & pl.col("bot").is_not_null()
                                  & pl.col("opp_bot").is_not_null())
    labels = set(engine["bot"].to_list()) | set(engine["opp_bot"].to_list())
    key = {lb: level_of(lb) for lb in labels}
    engine = engine.with_columns(pl.col("bot").replace_strict(key, return_dtype=pl.String),
                                 pl.col("opp_bot").replace_strict(key, return_dtype=pl.String))
    return (engine.filter(pl.col("bot") == pl.col("opp_bot"))
            .group_by("rules_id", "bot", "composition", "opp_composition")
            .agg(games=pl.col("n").sum().cast(pl.Int64),
                 wins=pl.col("n").filter(pl.col("result") == "win").sum().cast(pl.Int64),
                 draws=pl.col("n").filter(pl.col("result") == "draw").sum().cast(pl.Int64))
            .sort("rules_id", "bot", "composition", "opp_composition"))


def robustness_tables(matchup_cells: pl.DataFrame, min_games: int = 10) -> tuple[pl.DataFrame, pl.DataFrame]:
    """(compositions, matchups) robustness tables from a GameData's ``matchup_cells()``; bots
    played below skill 1 are left out (they are the skill axis, :mod:`.skill_axis`)."""
    cells = same_bot_cells(matchup_cells)
    if cells.height:
        cells = cells.filter(pl.col("bot").map_elements(lambda b: split_skill(b)[1] >= 1.0, return_dtype=pl.Boolean))
    return composition_robustness(cells, min_games), matchup_robustness(cells, min_games)


def robustness_signals(matchups: pl.DataFrame | None) -> list[str]:
    """The bot-dependent matchups as summary sentences (for the export's summary)."""
    if matchups is None or matchups.height == 0:
        return []
    return [f"{line}: check it with stronger bots before repricing." for line in flag_lines(matchups)]


def _rows(df: pl.DataFrame, key: str, min_games: int) -> pl.DataFrame:
    found = []
    for (rules_id, name), grp in df.group_by("rules_id", key, maintain_order=True):
        levels = sorted((Level(b, float(w) + 0.5 * float(d or 0), int(n))
                         for b, w, d, n in grp.select("bot", "wins", "draws", "games").iter_rows() if n >= min_games),
                        key=lambda lv: level_strength(lv.bot))
        if levels:
            found.append((rules_id, name, levels, *compare(levels)))
    qs = bh_adjust([p for *_, p, _ in found])
    family = sum(p is not None for *_, p, _ in found)
    out = []
    for (rules_id, name, levels, p, ref), q in zip(found, qs, strict=True):
        strong = levels[-1]
        out.append({"rules_id": rules_id, key: name, "levels": " | ".join(lv.text() for lv in levels),
                    "flag": verdict(ref, strong, q is not None and q <= FDR), "p": p, "q": q, "family": family,
                    "reference_bot": ref.bot if ref else None, "reference_rate": ref.rate if ref else None,
                    "strongest_bot": strong.bot, "strongest_rate": strong.rate, "strongest_games": strong.games})
    schema = {"rules_id": pl.String, key: pl.String, "levels": pl.String, "flag": pl.String, "p": pl.Float64,
              "q": pl.Float64, "family": pl.Int64, "reference_bot": pl.String, "reference_rate": pl.Float64,
              "strongest_bot": pl.String, "strongest_rate": pl.Float64, "strongest_games": pl.Int64}
    return pl.DataFrame(out, schema=schema)


def composition_robustness(cells: pl.DataFrame, min_games: int = 10) -> pl.DataFrame:
    """Per rules id and composition (mirror matches left out): every bot level's score against
    the field and the flag. Columns: rules_id, composition, levels (text), flag, p (the row's),
    q (BH over the table's rows), family (rows tested), reference_bot/rate, strongest_bot/rate/games."""
    per = (cells.filter(pl.col("composition") != pl.col("opp_composition"))
           .group_by("rules_id", "composition", "bot").agg(pl.col("games").sum(), pl.col("wins").sum(),
                                                           pl.col("draws").sum())
           .sort("rules_id", "composition"))
    return _rows(per, "composition", min_games)


def matchup_robustness(cells: pl.DataFrame, min_games: int = 10) -> pl.DataFrame:
    """Per rules id and pair of compositions: every bot level's score and the flag (columns as
    :func:`composition_robustness`). ``matchup`` is ``"A vs B"`` with A the side the reference
    level favours (the strongest level's favourite when there is no reference), and the scores
    are A's. Scores count a draw as half, so the flag is the same whichever side a row is read from."""
    pairs = (cells.filter(pl.col("composition") < pl.col("opp_composition"))
             .with_columns(matchup=pl.col("composition") + " vs " + pl.col("opp_composition"))
             .group_by("rules_id", "matchup", "bot").agg(pl.col("games").sum(), pl.col("wins").sum(),
                                                         pl.col("draws").sum())
             .sort("rules_id", "matchup"))
    rows = _rows(pairs, "matchup", min_games)
    fixed = []
    for r in rows.iter_rows(named=True):
        pivot = r["reference_rate"] if r["reference_rate"] is not None else r["strongest_rate"]
        if pivot is not None and pivot < 0.5:
            a, b = r["matchup"].split(" vs ", 1)
            flip = [lv.flipped() for lv in _levels_of(pairs, r, min_games)]
            r = {**r, "matchup": f"{b} vs {a}", "levels": " | ".join(lv.text() for lv in flip),
                 "reference_rate": None if r["reference_rate"] is None else 1 - r["reference_rate"],
                 "strongest_rate": 1 - r["strongest_rate"]}
        fixed.append(r)
    return pl.DataFrame(fixed, schema=rows.schema)


def _levels_of(pairs: pl.DataFrame, row: dict[str, Any], min_games: int) -> list[Level]:
    grp = pairs.filter((pl.col("rules_id") == row["rules_id"]) & (pl.col("matchup") == row["matchup"]))
    return sorted((Level(b, float(w) + 0.5 * float(d or 0), int(n))
                   for b, w, d, n in grp.select("bot", "wins", "draws", "games").iter_rows() if n >= min_games),
                  key=lambda lv: level_strength(lv.bot))


def flag_lines(matchups: pl.DataFrame) -> list[str]:
    """Plain sentences for the bot-dependent matchups: ``"Tank-heavy beats Balanced (v3): 99% with
    greedy, 61% with search:budget=800 — bot-dependent (shrinks, q = 0.001)"`` (scores, draws half)."""
    lines = []
    for r in matchups.filter(pl.col("flag").is_in(BOT_DEPENDENT)).iter_rows(named=True):
        a, b = r["matchup"].split(" vs ", 1)
        lines.append(f"{a} beats {b} ({r['rules_id']}): {r['reference_rate']:.0%} with {r['reference_bot']}, "
                     f"{r['strongest_rate']:.0%} with {r['strongest_bot']} — bot-dependent ({r['flag']}, "
                     f"q = {r['q']:.2g})")
    return lines
