"""Verdicts along the skill axis: does a balance verdict hold at the skill of the table?

The bot levels of :mod:`~pmim_analytics.analytics.robustness` go from random to the
strongest search budget, every one of them playing its best. Here one bot, the strongest
that has games at several skills (``search:skill=0.75``, issue #29), is read at the skills
:data:`SKILLS` (0.5, 0.75, 0.9 and 1 = flawless), in games where both sides had that bot at
the same skill. A **score** is wins plus half the draws over games, with a 95% Wilson
interval; a verdict at one skill is "favoured" when the interval lies above 50%,
"unfavoured" below, "even" otherwise.

Flags come from tests, as in the robustness report: each row compares skill 1 with every
lower skill by a two-proportion z-test, the row's p is the smallest times the number of
lower skills (Bonferroni within the row; that skill is the row's reference), and the rows of
a table are one family adjusted with Benjamini-Hochberg (q <= 0.05 is significant; the
family size is in the ``family`` column). Each composition and matchup gets one of

* ``expert only``: significant, skill 1 favours a side and the reference skill is even:
  a verdict about expert play;
* ``casual only``: significant, skill 1 is even and the reference skill favours a side:
  a verdict about casual play;
* ``flips``: significant, skill 1 and the reference favour opposite sides;
* ``shrinks`` / ``grows``: significant, the same side favoured, the edge smaller / larger
  at skill 1;
* ``holds``: not significant;
* ``one skill``: only one skill has enough games, or no skill-1 games.

A skill is never pooled with another: each column is its own games.
"""

from __future__ import annotations

import polars as pl

from pmim_analytics.analytics.flags import FDR, bh_adjust
from pmim_analytics.analytics.levels import level_strength
from pmim_analytics.analytics.robustness import Level, compare, same_bot_cells, split_skill

#: The skills shown, lowest first (1 = the bot's best play).
SKILLS: tuple[float, ...] = (0.5, 0.75, 0.9, 1.0)


def skill_label(skill: float) -> str:
    """``skill 0.75``."""
    return f"skill {skill:g}"


def _axis_cells(cells: pl.DataFrame) -> pl.DataFrame:
    """Same-bot cells of the strongest bot (per rules id) that has games below skill 1, with
    columns base and skill added; only the skills of :data:`SKILLS`."""
    if cells.height == 0:
        return cells.with_columns(base=pl.lit(None, pl.String), skill=pl.lit(None, pl.Float64))
    split = [split_skill(b) for b in cells["bot"]]
    df = cells.with_columns(base=pl.Series([s[0] for s in split], dtype=pl.String),
                            skill=pl.Series([s[1] for s in split], dtype=pl.Float64))
    graded = df.filter(pl.col("skill") < 1.0).select("rules_id", "base").unique()
    keep = []
    for (rid,), grp in graded.group_by("rules_id", maintain_order=True):
        keep.append({"rules_id": rid, "base": max(grp["base"], key=level_strength)})
    if not keep:
        return df.clear()
    chosen = pl.DataFrame(keep, schema={"rules_id": pl.String, "base": pl.String})
    return df.join(chosen, on=["rules_id", "base"]).filter(pl.col("skill").is_in(list(SKILLS)))


def classify_skills(levels: dict[float, Level], q: float | None) -> str:
    """The flag of one row from its levels by skill and its BH-adjusted p (see the module)."""
    top = levels.get(1.0)
    lower = sorted(s for s in levels if s < 1.0)
    if top is None or not lower or q is None:
        return "one skill"
    ref = _reference(levels)
    if ref is None or q > FDR:
        return "holds"
    if ref.sign != 0 and top.sign == -ref.sign:
        return "flips"
    if top.sign != 0 and ref.sign == 0:
        return "expert only"
    if top.sign == 0 and ref.sign != 0:
        return "casual only"
    return "shrinks" if abs(top.rate - 0.5) < abs(ref.rate - 0.5) else "grows"


def _ordered(levels: dict[float, Level]) -> list[Level]:
    """The levels lowest skill first, skill 1 last (the strongest, as :func:`compare` wants)."""
    return [levels[s] for s in sorted(levels)]


def _reference(levels: dict[float, Level]) -> Level | None:
    return compare(_ordered(levels))[1] if 1.0 in levels else None


def _table(per: pl.DataFrame, key: str, min_games: int) -> pl.DataFrame:
    found = []
    for (rid, base, name), grp in per.group_by("rules_id", "base", key, maintain_order=True):
        levels = {float(sk): Level(skill_label(float(sk)), float(w) + 0.5 * float(d), int(n))
                  for sk, w, d, n in grp.select("skill", "wins", "draws", "games").iter_rows() if n >= min_games}
        if levels:
            p = compare(_ordered(levels))[0] if 1.0 in levels else None
            found.append((rid, base, name, levels, p))
    qs = bh_adjust([f[-1] for f in found])
    family = sum(f[-1] is not None for f in found)
    out = []
    for (rid, base, name, levels, p), q in zip(found, qs, strict=True):
        row: dict[str, object] = {"rules_id": rid, "bot": base, key: name}
        for sk in SKILLS:
            lv = levels.get(sk)
            row[skill_label(sk)] = None if lv is None else lv.text().removeprefix(lv.bot + " ")
            row[f"rate {sk:g}"] = None if lv is None else lv.rate
        ref = _reference(levels)
        row |= {"flag": classify_skills(levels, q), "p": p, "q": q, "family": family,
                "reference_skill": None if ref is None else ref.bot}
        out.append(row)
    schema: dict[str, pl.DataType | type[pl.DataType]] = {"rules_id": pl.String, "bot": pl.String, key: pl.String}
    schema |= {skill_label(sk): pl.String for sk in SKILLS}
    schema |= {f"rate {sk:g}": pl.Float64 for sk in SKILLS}
    schema |= {"flag": pl.String, "p": pl.Float64, "q": pl.Float64, "family": pl.Int64,
               "reference_skill": pl.String}
    return pl.DataFrame(out, schema=schema)


def skill_tables(matchup_cells: pl.DataFrame, min_games: int = 10) -> tuple[pl.DataFrame, pl.DataFrame]:
    """(compositions, matchups) along the skill axis from a GameData's ``matchup_cells()``.

    Columns: rules_id, bot (the bot without its skill), composition or matchup, one text
    column per skill (``skill 0.75``: ``62% [55-69] (200)``), ``rate <skill>`` and flag. A
    matchup ``A vs B`` is seen from A, the side skill 1 favours (or the highest skill shown).
    """
    cells = _axis_cells(same_bot_cells(matchup_cells))
    comps = (cells.filter(pl.col("composition") != pl.col("opp_composition"))
             .group_by("rules_id", "base", "composition", "skill").agg(pl.col("games").sum(), pl.col("wins").sum(),
                                                                       pl.col("draws").sum())
             .sort("rules_id", "composition", "skill"))
    pairs = (cells.filter(pl.col("composition") != pl.col("opp_composition"))
             .with_columns(matchup=pl.col("composition") + " vs " + pl.col("opp_composition"))
             .group_by("rules_id", "base", "matchup", "skill").agg(pl.col("games").sum(), pl.col("wins").sum(),
                                                                   pl.col("draws").sum())
             .sort("rules_id", "matchup", "skill"))
    if pairs.height:
        # each pair appears from both sides: keep the side its highest skill (with enough games)
        # favours, before testing, so every pair is one row of the family
        scored = pairs.filter(pl.col("games") >= min_games).with_columns(
            score=(pl.col("wins") + 0.5 * pl.col("draws")) / pl.col("games"),
            _pair=pl.col("matchup").str.split(" vs ").list.sort().list.join(" | "))
        keep = (scored.sort("rules_id", "base", "_pair", "skill", "score", "matchup",
                            descending=[False, False, False, True, True, False])
                .unique(["rules_id", "base", "_pair"], keep="first", maintain_order=True)
                .select("rules_id", "base", "matchup"))
        pairs = pairs.join(keep, on=["rules_id", "base", "matchup"])
    matches = _table(pairs, "matchup", min_games)
    return _table(comps, "composition", min_games), matches


def skill_lines(matchups: pl.DataFrame) -> list[str]:
    """Plain sentences for the matchups whose verdict depends on skill: ``"Tank-heavy beats
    Balanced (v3, search): 100% at skill 1, 62% at skill 0.75: a verdict about expert play"``."""
    words = {"expert only": "a verdict about expert play", "casual only": "a verdict about casual play",
             "flips": "the favourite changes with skill", "shrinks": "the edge is smaller at expert play",
             "grows": "the edge is larger at expert play"}
    lines = []
    for r in matchups.filter(pl.col("flag").is_in(list(words))).iter_rows(named=True):
        a, b = r["matchup"].split(" vs ", 1)
        shown = [f"{r[f'rate {s:g}']:.0%} at {skill_label(s)}" for s in reversed(SKILLS)
                 if r[f"rate {s:g}"] is not None]
        lines.append(f"{a} beats {b} ({r['rules_id']}, {r['bot']}): {', '.join(shown)}: {words[r['flag']]}")
    return lines


def skill_signals(matchups: pl.DataFrame | None) -> list[str]:
    """The skill-dependent matchups as the export summary's sentences (each names its skills)."""
    if matchups is None or matchups.height == 0:
        return []
    return [f"{line}." for line in skill_lines(matchups)]


__all__ = ["SKILLS", "classify_skills", "skill_label", "skill_lines", "skill_signals", "skill_tables",
           "split_skill"]
