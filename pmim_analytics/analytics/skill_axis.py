"""Verdicts along the skill axis: does a balance verdict hold at the skill of the table?

The bot levels of :mod:`~pmim_analytics.analytics.robustness` go from random to the
strongest search budget, every one of them playing its best. Here one bot, the strongest
that has games at several skills (``search:skill=0.75``, issue #29), is read at the skills
:data:`SKILLS` (0.5, 0.75, 0.9 and 1 = flawless), in games where both sides had that bot at
the same skill. A win rate is wins over games with a 95% Wilson interval; a **verdict** at
one skill is "favoured" when the interval lies above 50%, "unfavoured" below, "even"
otherwise. Each composition and matchup gets one of

* ``expert only``: skill 1 gives a verdict, and some lower skill is even or the other way:
  a verdict about expert play;
* ``casual only``: skill 1 is even, some lower skill gives a verdict: a verdict about
  casual play;
* ``flips``: skill 1 and a lower skill favour opposite sides;
* ``holds``: every skill shown gives the same verdict;
* ``even``: no skill gives a verdict;
* ``one skill``: only one skill has enough games.

A skill is never pooled with another: each column is its own games.
"""

from __future__ import annotations

import polars as pl

from pmim_analytics.analytics.levels import level_strength
from pmim_analytics.analytics.robustness import Level, same_bot_cells, split_skill

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


def classify_skills(levels: dict[float, Level]) -> str:
    """The flag of one row from its levels by skill (see the module)."""
    if len(levels) < 2:
        return "one skill"
    top = levels.get(1.0)
    lower = [lv for s, lv in levels.items() if s < 1.0]
    if top is None:
        return "one skill" if len(lower) < 2 else ("holds" if len({lv.sign for lv in lower}) == 1 else "casual only")
    if top.sign != 0 and any(lv.sign == -top.sign for lv in lower):
        return "flips"
    if top.sign != 0 and any(lv.sign == 0 for lv in lower):
        return "expert only"
    if top.sign == 0 and any(lv.sign != 0 for lv in lower):
        return "casual only"
    return "even" if top.sign == 0 else "holds"


def _table(per: pl.DataFrame, key: str, min_games: int) -> pl.DataFrame:
    out = []
    for (rid, base, name), grp in per.group_by("rules_id", "base", key, maintain_order=True):
        levels = {float(s): Level(skill_label(float(s)), int(w), int(n))
                  for s, w, n in grp.select("skill", "wins", "games").iter_rows() if n >= min_games}
        if not levels:
            continue
        row: dict[str, object] = {"rules_id": rid, "bot": base, key: name}
        for s in SKILLS:
            lv = levels.get(s)
            row[skill_label(s)] = None if lv is None else lv.text().removeprefix(lv.bot + " ")
            row[f"rate {s:g}"] = None if lv is None else lv.rate
        row["flag"] = classify_skills(levels)
        out.append(row)
    schema: dict[str, pl.DataType | type[pl.DataType]] = {"rules_id": pl.String, "bot": pl.String, key: pl.String}
    schema |= {skill_label(s): pl.String for s in SKILLS}
    schema |= {f"rate {s:g}": pl.Float64 for s in SKILLS}
    schema["flag"] = pl.String
    return pl.DataFrame(out, schema=schema)


def skill_tables(matchup_cells: pl.DataFrame, min_games: int = 10) -> tuple[pl.DataFrame, pl.DataFrame]:
    """(compositions, matchups) along the skill axis from a GameData's ``matchup_cells()``.

    Columns: rules_id, bot (the bot without its skill), composition or matchup, one text
    column per skill (``skill 0.75``: ``62% [55-69] (200)``), ``rate <skill>`` and flag. A
    matchup ``A vs B`` is seen from A, the side skill 1 favours (or the highest skill shown).
    """
    cells = _axis_cells(same_bot_cells(matchup_cells))
    comps = (cells.filter(pl.col("composition") != pl.col("opp_composition"))
             .group_by("rules_id", "base", "composition", "skill").agg(pl.col("games").sum(), pl.col("wins").sum())
             .sort("rules_id", "composition", "skill"))
    pairs = (cells.filter(pl.col("composition") != pl.col("opp_composition"))
             .with_columns(matchup=pl.col("composition") + " vs " + pl.col("opp_composition"))
             .group_by("rules_id", "base", "matchup", "skill").agg(pl.col("games").sum(), pl.col("wins").sum())
             .sort("rules_id", "matchup", "skill"))
    matches = _table(pairs, "matchup", min_games)
    if matches.height:
        # each pair appears from both sides: keep the one the highest skill shown favours
        top = pl.coalesce([pl.col(f"rate {s:g}") for s in reversed(SKILLS)])
        matches = (matches.with_columns(_top=top, _pair=pl.col("matchup").str.split(" vs ").list.sort()
                                        .list.join(" | "))
                   .sort("rules_id", "_pair", "_top", descending=[False, False, True], nulls_last=True)
                   .unique(["rules_id", "bot", "_pair"], keep="first", maintain_order=True)
                   .drop("_top", "_pair"))
    return _table(comps, "composition", min_games), matches


def skill_lines(matchups: pl.DataFrame) -> list[str]:
    """Plain sentences for the matchups whose verdict depends on skill: ``"Tank-heavy beats
    Balanced (v3, search): 100% at skill 1, 62% at skill 0.75: a verdict about expert play"``."""
    words = {"expert only": "a verdict about expert play", "casual only": "a verdict about casual play",
             "flips": "the favourite changes with skill"}
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
