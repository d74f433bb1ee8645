"""The design note: one screen answering the designer's four questions, for the top of an export.

Each answer names its numbers with their 95% interval and sample size, comes from the games of
the export's selection (paired: the same compositions against the same opponents under both
rules ids) and, where the question is about dice, from the exact dice maths (which needs no
games). A question whose rules ids have no games in the selection says which ``--rules`` to add.
Tables have at most :data:`MAX_COLUMNS` columns so that they fit a blog column.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import SupportsFloat

import polars as pl

from pmim_analytics.analytics import tables
from pmim_analytics.analytics.dataset import GameData, Provenance
from pmim_analytics.analytics.dice import dice_table
from pmim_analytics.errors import PmimError
from pmim_analytics.report.figures import main_source
from pmim_analytics.report.markdown import (
    Col,
    Row,
    interval,
    markdown_table,
    num,
    pct,
    points_change,
    text,
)
from pmim_analytics.rules import load_rules
from pmim_analytics.rules.diff import diff_rules

#: The widest table the note holds.
MAX_COLUMNS = 6
#: Rows of a composition table in the note (the biggest changes first).
MAX_ROWS = 5


@dataclass(frozen=True)
class Question:
    """One of the designer's questions: a rules change, before and after."""

    key: str
    title: str
    before: str
    after: str


QUESTIONS = (
    Question("llaser", "Should the L. Laser fire four times (RPT 4)?", "v3", "v3-llaser-rpt4"),
    Question("heavy_def", "Heavy Warmechs at DEF 6 or 7?", "v3", "v3-heavy-def6"),
    Question("mjolnir", "Should the Mjolnir cost 18 points or 16?", "v3", "v3-mjolnir-16"),
    Question("v2_v3", "What did v2 → v3 change?", "v2", "v3"),
)


def _dice(rules_id: str) -> pl.DataFrame | None:
    try:
        return dice_table(load_rules(rules_id))
    except PmimError:
        return None


def _cell(d: pl.DataFrame | None, weapon: str, target: str) -> Row | None:
    if d is None:
        return None
    r = d.filter((pl.col("weapon") == weapon) & (pl.col("target_code") == target))
    return r.row(0, named=True) if r.height else None


def _attacks(v: SupportsFloat | None) -> str:
    return "never" if v is None else num(v, 1)


def _missing(q: Question, present: Sequence[str]) -> str | None:
    gone = [r for r in (q.before, q.after) if r not in present]
    if not gone:
        return None
    return (f"No games under {' or '.join(gone)} in this export: add them with `--rules {q.before},{q.after}` "
            "for the games' answer.")


def _impact_table(comp: pl.DataFrame, q: Question) -> str:
    """The compositions whose win rate moved most, in at most six columns."""
    top = comp.with_columns(pl.col("win_diff").abs().alias("_size")).sort("_size", descending=True,
                                                                           nulls_last=True).head(MAX_ROWS)
    cols = [Col("list", text("list"), "left"),
            Col("games", lambda r: f"{r['games_a']} / {r['games_b']}"),
            Col(f"wins, {q.before}", lambda r: pct(r["win_a"])),
            Col(f"wins, {q.after}", lambda r: pct(r["win_b"])),
            Col("change", lambda r: points_change(r["win_diff"], r["win_diff_lo"], r["win_diff_hi"]))]
    assert len(cols) <= MAX_COLUMNS
    return markdown_table(top, cols)


def _games_answer(data: GameData, q: Question, present: Sequence[str]) -> tuple[list[str], str]:
    """What the paired games say: a sentence, and the table of the biggest changes."""
    if (why := _missing(q, present)) is not None:
        return [why], ""
    imp = tables.impact_report(data, q.before, q.after)
    src = main_source(imp.compositions)
    comp = imp.compositions.filter(pl.col("source") == src) if src else imp.compositions
    if comp.height == 0:
        return [f"The games under {q.before} and {q.after} share no matchup (same lists, bots and "
                "sides), so they cannot be compared pair for pair."], ""
    moved = comp.filter((pl.col("win_diff_lo") > 0) | (pl.col("win_diff_hi") < 0))
    big = comp.sort(pl.col("win_diff").abs(), descending=True, nulls_last=True).row(0, named=True)
    lines = [f"In {src} games, {moved.height} of {comp.height} compositions changed their win rate beyond "
             f"the 95% interval; the biggest change is **{big['list']}**, "
             f"{pct(big['win_a'])} → {pct(big['win_b'])} "
             f"({points_change(big['win_diff'], big['win_diff_lo'], big['win_diff_hi'])}; "
             f"{big['games_a']} / {big['games_b']} games)."]
    return lines, _impact_table(comp, q)


def _llaser_dice(q: Question) -> list[str]:
    a, b = _dice(q.before), _dice(q.after)
    ca, cb = _cell(a, "LL", "IN"), _cell(b, "LL", "IN")
    if ca is None or cb is None:
        return []
    blank = b.filter((pl.col("weapon") == "LL") & (pl.col("damage_on_hit") == 0)).height if b is not None else 0
    total = b.filter(pl.col("weapon") == "LL").height if b is not None else 0
    return [f"Exact dice: against Infantry an L. Laser deals {num(ca['expected_damage'])} expected damage per "
            f"attack under {q.before} and {num(cb['expected_damage'])} under {q.after} (attacks to destroy one: "
            f"{_attacks(ca['expected_attacks_to_kill'])} → {_attacks(cb['expected_attacks_to_kill'])}); under "
            f"{q.after} it still cannot damage {blank} of {total} unit types."]


def _heavy_dice(q: Question) -> list[str]:
    a, b = _dice(q.before), _dice(q.after)
    ca, cb = _cell(a, "HPB", "PA"), _cell(b, "HPB", "PA")
    if ca is None or cb is None:
        return []
    return [f"Exact dice: a H. Particle Beam hits a Paladin {pct(ca['p_hit'])} of the time at DEF {ca['def']} "
            f"({q.before}) and {pct(cb['p_hit'])} at DEF {cb['def']} ({q.after}); attacks to destroy it: "
            f"{_attacks(ca['expected_attacks_to_kill'])} → {_attacks(cb['expected_attacks_to_kill'])}."]


def _mjolnir(data: GameData, q: Question, present: Sequence[str]) -> list[str]:
    if _missing(q, present) is not None:
        return []
    units = tables.impact_report(data, q.before, q.after).units
    out = []
    for r in units.filter(pl.col("code") == "MJ").iter_rows(named=True):
        out.append(f"Mjolnir ({r['source']} games): {num(r['vp_per_pt_a'], 3)} VP per point per game at "
                   f"{num(r['pts_a'], 0)} points ({num(r.get('units_a'))} unit-games) and "
                   f"{num(r['vp_per_pt_b'], 3)} at {num(r['pts_b'], 0)} points ({num(r.get('units_b'))}); "
                   f"change {interval(r['vp_per_pt_diff'], r['vp_per_pt_diff_lo'], r['vp_per_pt_diff_hi'], digits=3)}.")
    return out or ["No Mjolnir was fielded under both rules ids in these games."]


def _costs(costs: pl.DataFrame | None, code: str) -> list[str]:
    if costs is None or costs.height == 0:
        return []
    out = []
    for r in costs.filter(pl.col("code") == code).iter_rows(named=True):
        if r["suggested_pts"] is not None:
            out.append(f"Implied cost ({r['rules_id']}): {num(r['suggested_pts'], 1)} points "
                       f"[{num(r['suggested_lo'], 1)}, {num(r['suggested_hi'], 1)}] against its {num(r['pts'], 0)} "
                       f"({num(r['games'])} games; {r['verdict']}).")
    return out


def _versions(t: dict[str, pl.DataFrame], q: Question, present: Sequence[str]) -> tuple[list[str], str]:
    """v2 against v3 played with different lists: how the games end under each, side by side."""
    lines = []
    try:
        changes = diff_rules(load_rules(q.before), load_rules(q.after))
        lines.append(f"{q.after} changes {len(changes)} entries of {q.before}'s tables (the appendix lists them).")
    except PmimError:
        pass
    ids = [r for r in (q.before, q.after) if r in present]
    if not ids:
        return [*lines, _missing(q, present) or ""], ""
    out = t["quality_outcomes"].filter(pl.col("rules_id").is_in(ids))
    src = main_source(out)
    out = out.filter(pl.col("source") == src) if src else out
    sides = t["sides"].select("rules_id", "source", "blue_share", "blue_lo", "blue_hi")
    rows = out.join(sides, on=["rules_id", "source"], how="left").sort("rules_id")
    cols = [Col("rules", text("rules_id"), "left"), Col("games", lambda r: num(r["games"])),
            Col("draws", lambda r: interval(r["draw_rate"], r["draw_lo"], r["draw_hi"], as_pct=True)),
            Col("round limit", lambda r: interval(r["round_limit_rate"], r["round_limit_lo"], r["round_limit_hi"],
                                                  as_pct=True)),
            Col("rounds", lambda r: num(r["mean_rounds"], 1)),
            Col("blue wins", lambda r: interval(r["blue_share"], r["blue_lo"], r["blue_hi"], as_pct=True))]
    assert len(cols) <= MAX_COLUMNS
    lines.append(f"The demo plays different lists under each version, so this compares how {src} games end, "
                 "not the same matchups (blue wins: share of decisive games).")
    if (why := _missing(q, present)) is not None:
        lines.append(why)
    return lines, markdown_table(rows, cols)


def render_note(data: GameData, prov: Provenance, t: dict[str, pl.DataFrame], figs: dict[str, Path],
                out: Path) -> str:
    """The design note as Markdown: a title, the provenance, four answers and one figure."""
    present = list(prov.rules_ids)
    p = [f"# PMIM design notes: {', '.join(present)}", "",
         f"_{prov.caption()}. Bot-vs-bot and logged games; 95% intervals in brackets or after ±; "
         "games = before / after._", ""]
    for q in QUESTIONS:
        p += [f"**{q.title}**", ""]
        table = ""
        if q.key == "v2_v3":
            lines, table = _versions(t, q, present)
        else:
            lines, table = _games_answer(data, q, present)
            lines += _llaser_dice(q) if q.key == "llaser" else []
            lines += _heavy_dice(q) if q.key == "heavy_def" else []
            if q.key == "mjolnir":  # a price question: the Mjolnir's own numbers, not the composition table
                lines += _mjolnir(data, q, present) + _costs(t.get("costs"), "MJ")
                table = ""
        p += [f"- {line}" for line in lines if line]
        p += ["", table] if table else [""]
    if "win_rates" in figs:
        rel = figs["win_rates"].relative_to(out).as_posix()
        p += [f"![Win rate by composition, with 95% intervals]({rel})", ""]
    return "\n".join(p)
