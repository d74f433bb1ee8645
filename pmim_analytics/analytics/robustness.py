"""Do balance verdicts survive stronger play? Win rates by bot level, and flags where they don't.

Input: engine results of games where both sides had the same bot, one row per (rules_id,
bot, composition, opp_composition) with ``games, wins, draws`` (each game counted from
both sides). A win rate is wins over games (draws count as not won), with a 95% Wilson
interval. A **verdict** at one bot level is "favoured" when the interval lies above 50%,
"unfavoured" when below, "even" otherwise. Comparing the weaker levels with the strongest
level that has enough games, a row is flagged

* ``flips``: a weaker level favours one side and the strongest level the other;
* ``vanishes``: a weaker level gives a verdict, the strongest level says even, and the
  weaker level's win rate lies outside the strongest level's interval;
* ``unconfirmed``: a weaker level gives a verdict, the strongest says even, but its
  interval still holds the weaker level's rate (it needs more games to tell);
* ``shrinks``: the same side is favoured, but the edge (win rate minus 50%) at the
  strongest level is at least 15 points smaller than at a weaker level and the two
  intervals do not overlap;
* ``emerges``: only the strongest level gives a verdict;
* ``holds``: none of these.

The first three are **bot-dependent**: a designer should not reprice units on them.
Bot levels are ordered by design (random, greedy, tactician, then search by budget); the
ladder (``pmim bots ladder``) measures whether that order is right.
"""

from __future__ import annotations

from dataclasses import dataclass

import polars as pl

from pmim_analytics.analytics.levels import level_of, level_strength
from pmim_analytics.analytics.stats import wilson_interval

SHRINK = 0.15
BOT_DEPENDENT = ("flips", "vanishes", "shrinks")
#: Each flag in words (the dashboard's legend).
FLAGS = {
    "flips": "a weaker level favours one side and the strongest level the other",
    "vanishes": "a weaker level gives a verdict; the strongest says even and its interval excludes the weaker rate",
    "unconfirmed": "a weaker level gives a verdict; the strongest says even but cannot rule it out yet",
    "shrinks": f"the same side is favoured, but the edge is at least {SHRINK * 100:.0f} points smaller at the "
               "strongest level",
    "emerges": "only the strongest level gives a verdict",
    "holds": "every level agrees",
    "one level": "only one level has enough games to compare",
}


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
    """One bot level's record for a row: wins of ``games``, win rate and interval."""

    bot: str
    wins: int
    games: int

    @property
    def rate(self) -> float:
        """Wins over games."""
        return self.wins / self.games if self.games else float("nan")

    @property
    def interval(self) -> tuple[float, float]:
        """95% Wilson interval of the win rate."""
        return wilson_interval(self.wins, self.games)

    @property
    def sign(self) -> int:
        """+1 favoured, -1 unfavoured, 0 even (the interval straddles 50%)."""
        lo, hi = self.interval
        return 1 if lo > 0.5 else -1 if hi < 0.5 else 0

    def text(self) -> str:
        """``greedy 62% [55-69] (200)``."""
        lo, hi = self.interval
        return f"{self.bot} {self.rate:.0%} [{lo * 100:.0f}-{hi * 100:.0f}] ({self.games})"


def classify(levels: list[Level]) -> tuple[str, Level | None]:
    """(flag, the weaker level the strongest is compared with) for levels ordered weakest first."""
    if len(levels) < 2:
        return ("one level", None)
    strong, weaker = levels[-1], levels[:-1]
    s = strong.sign
    opposite = [w for w in weaker if w.sign != 0 and s != 0 and w.sign == -s]
    if opposite:
        return ("flips", max(opposite, key=lambda w: abs(w.rate - 0.5)))
    clear = [w for w in weaker if w.sign != 0]
    if clear and s == 0:
        lo_s, hi_s = strong.interval
        gone = [w for w in clear if not lo_s <= w.rate <= hi_s]
        if gone:
            return ("vanishes", max(gone, key=lambda w: abs(w.rate - 0.5)))
        return ("unconfirmed", max(clear, key=lambda w: abs(w.rate - 0.5)))
    if s != 0:
        same = [w for w in weaker if w.sign == s]
        for w in sorted(same, key=lambda w: -abs(w.rate - 0.5)):
            lo_w, hi_w = w.interval
            lo_s, hi_s = strong.interval
            disjoint = hi_s < lo_w or hi_w < lo_s
            if abs(w.rate - 0.5) - abs(strong.rate - 0.5) >= SHRINK and disjoint:
                return ("shrinks", w)
        if not clear:
            return ("emerges", None)
    return ("holds", None)


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
    out = []
    for (rules_id, name), grp in df.group_by("rules_id", key, maintain_order=True):
        levels = sorted((Level(b, int(w), int(n)) for b, w, n in grp.select("bot", "wins", "games").iter_rows()
                         if n >= min_games), key=lambda lv: level_strength(lv.bot))
        if not levels:
            continue
        flag, ref = classify(levels)
        out.append({"rules_id": rules_id, key: name, "levels": " | ".join(lv.text() for lv in levels), "flag": flag,
                    "reference_bot": ref.bot if ref else None, "reference_rate": ref.rate if ref else None,
                    "strongest_bot": levels[-1].bot, "strongest_rate": levels[-1].rate,
                    "strongest_games": levels[-1].games})
    schema = {"rules_id": pl.String, key: pl.String, "levels": pl.String, "flag": pl.String,
              "reference_bot": pl.String, "reference_rate": pl.Float64, "strongest_bot": pl.String,
              "strongest_rate": pl.Float64, "strongest_games": pl.Int64}
    return pl.DataFrame(out, schema=schema)


def composition_robustness(cells: pl.DataFrame, min_games: int = 10) -> pl.DataFrame:
    """Per rules id and composition (mirror matches left out): every bot level's win rate and
    the flag. Columns: rules_id, composition, levels (text), flag, reference_bot/rate,
    strongest_bot/rate/games."""
    per = (cells.filter(pl.col("composition") != pl.col("opp_composition"))
           .group_by("rules_id", "composition", "bot").agg(pl.col("games").sum(), pl.col("wins").sum())
           .sort("rules_id", "composition"))
    return _rows(per, "composition", min_games)


def matchup_robustness(cells: pl.DataFrame, min_games: int = 10) -> pl.DataFrame:
    """Per rules id and pair of compositions, seen from the first named: every bot level's win
    rate and the flag. ``matchup`` is ``"A vs B"`` with A the side favoured at the reference
    level (or at the strongest level when there is none)."""
    pairs = (cells.filter(pl.col("composition") < pl.col("opp_composition"))
             .with_columns(matchup=pl.col("composition") + " vs " + pl.col("opp_composition"))
             .group_by("rules_id", "matchup", "bot").agg(pl.col("games").sum(), pl.col("wins").sum(),
                                                         pl.col("draws").sum())
             .sort("rules_id", "matchup"))
    rows = _rows(pairs, "matchup", min_games)
    if rows.height == 0:
        return rows
    # Orient every row so that the first named composition is the one the reference level favours
    # (the strongest level's favourite when there is no reference); the flag stays as classified.
    lookup = {(r, m, b): (int(w), int(n), int(d or 0)) for r, m, b, w, n, d in
              pairs.select("rules_id", "matchup", "bot", "wins", "games", "draws").iter_rows()}
    fixed = []
    for r in rows.iter_rows(named=True):
        pivot = r["reference_rate"] if r["reference_rate"] is not None else r["strongest_rate"]
        if pivot is not None and pivot < 0.5:
            a, b = r["matchup"].split(" vs ", 1)
            levels = sorted((Level(bot, n - w - d, n) for (rr, m, bot), (w, n, d) in lookup.items()
                             if rr == r["rules_id"] and m == r["matchup"] and n >= min_games),
                            key=lambda lv: level_strength(lv.bot))
            rate = {lv.bot: lv.rate for lv in levels}
            r = {**r, "matchup": f"{b} vs {a}", "levels": " | ".join(lv.text() for lv in levels),
                 "reference_rate": rate.get(r["reference_bot"]), "strongest_rate": levels[-1].rate}
        fixed.append(r)
    return pl.DataFrame(fixed, schema=rows.schema)


def flag_lines(matchups: pl.DataFrame) -> list[str]:
    """Plain sentences for the bot-dependent matchups: ``"Tank-heavy beats Balanced (v3): 99% with
    greedy, 61% with search:budget=800 — bot-dependent (shrinks)"``."""
    lines = []
    for r in matchups.filter(pl.col("flag").is_in(BOT_DEPENDENT)).iter_rows(named=True):
        a, b = r["matchup"].split(" vs ", 1)
        lines.append(f"{a} beats {b} ({r['rules_id']}): {r['reference_rate']:.0%} with {r['reference_bot']}, "
                     f"{r['strongest_rate']:.0%} with {r['strongest_bot']} — bot-dependent ({r['flag']})")
    return lines
