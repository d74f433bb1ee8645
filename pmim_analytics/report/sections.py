"""The Markdown of a report, section by section, from the tables of an export."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import polars as pl

from pmim_analytics.analytics import costs as cost_model
from pmim_analytics.analytics import implied_costs
from pmim_analytics.analytics.dataset import Provenance
from pmim_analytics.analytics.flags import FDR, family_note
from pmim_analytics.analytics.weapons import dice_test_note
from pmim_analytics.errors import PmimError
from pmim_analytics.report.figures import MIN_GAMES
from pmim_analytics.report.markdown import (
    Col,
    Formatter,
    Row,
    field,
    interval,
    markdown_table,
    num,
    pct,
    plus_minus,
    points_change,
    text,
)
from pmim_analytics.rules import load_rules
from pmim_analytics.rules.diff import diff_rules, format_diff_markdown

MAX_ROWS = 40

NOT_RECORDED = "not recorded"


def unknown_or(cell: Formatter, missing: str) -> Formatter:
    """``cell``, or "not recorded" when every unit-game behind it left it unrecorded (``missing``
    counts those; the cell is empty when there simply was nothing to count)."""
    def show(r: Row) -> str:
        n, left_out = r.get("units") or 0, r.get(missing) or 0
        return NOT_RECORDED if n and left_out == n else cell(r)
    return show


def left_out(r: Row) -> str:
    """How many unit-games the combat and survival figures leave out (not recorded)."""
    parts = [f"{r[k]} {what}" for k, what in (("combat_not_recorded", "combat"), ("fate_not_recorded", "fate"))
             if r.get(k)]
    return ", ".join(parts)


UNIT_COLS = [
    Col("rules", text("rules_id"), "left"), Col("source", text("source"), "left"), Col("unit", text("type"), "left"),
    Col("fielded", field("units")), Col("games", field("games")), Col("PTS", field("pts", lambda v: num(v, 0))),
    Col("damage / pt", unknown_or(lambda r: plus_minus(r["damage_per_pt"], r["damage_per_pt_ci"], 2),
                                  "combat_not_recorded")),
    Col("hit rate", unknown_or(lambda r: interval(r["hit_rate"], r["hit_rate_lo"], r["hit_rate_hi"], as_pct=True),
                               "combat_not_recorded")),
    Col("kills", unknown_or(field("kills"), "combat_not_recorded")),
    Col("overkill", unknown_or(field("overkill"), "combat_not_recorded")),
    Col("survives", unknown_or(lambda r: interval(r["survival_rate"], r["survival_lo"], r["survival_hi"],
                                                  as_pct=True), "fate_not_recorded")),
    Col("destroyed in round", field("mean_round_destroyed", lambda v: num(v, 1))),
    Col("VP / game", lambda r: plus_minus(r["vp_share"], r["vp_share_ci"], 2)),
    Col("VP / pt", lambda r: plus_minus(r["vp_per_pt"], r["vp_per_pt_ci"], 3)),
    Col("left out (not recorded)", left_out, "left"),
]
WEAPON_COLS = [
    Col("rules", text("rules_id"), "left"), Col("source", text("source"), "left"),
    Col("weapon", text("weapon"), "left"), Col("against", text("target_kind"), "left"),
    Col("attacks", field("attacks")),
    Col("hit rate", lambda r: interval(r["hit_rate"], r["hit_rate_lo"], r["hit_rate_hi"], as_pct=True)),
    Col("expected", field("expected_hit_rate", pct)), Col("p", field("hit_p", lambda v: "" if v is None
                                                                       else f"{v:.2g}")),
    Col("damage / attack", field("mean_damage")), Col("expected", field("expected_mean_damage")),
]
COMP_COLS = [
    Col("rules", text("rules_id"), "left"), Col("source", text("source"), "left"),
    Col("composition", text("composition"), "left"), Col("games", field("games")),
    Col("W-D-L", lambda r: f"{r['wins']}-{r['draws']}-{r['losses']}"),
    Col("win rate", lambda r: interval(r["win_rate"], r["win_lo"], r["win_hi"], as_pct=True)),
    Col("score (draw ½)", lambda r: interval(r["score"], r["score_lo"], r["score_hi"], as_pct=True)),
    Col("VP margin", lambda r: plus_minus(r["vp_margin"], r["vp_margin_ci"], 1)),
    Col("rounds", field("mean_rounds", lambda v: num(v, 1))), Col("mirrors", field("mirrors")),
]
def _first_cell(r: Row) -> str:
    """The first-player share, or why there is no separate test (side and first move confounded)."""
    if r.get("confounded"):
        return f"= blue test ({r['confounded_by']} always first)"
    return interval(r["first_share"], r["first_lo"], r["first_hi"], as_pct=True)


SIDE_COLS = [
    Col("rules", text("rules_id"), "left"), Col("source", text("source"), "left"), Col("games", field("games")),
    Col("blue wins (decisive)", lambda r: interval(r["blue_share"], r["blue_lo"], r["blue_hi"], as_pct=True)),
    Col("p", field("blue_p", lambda v: "" if v is None else f"{v:.2g}")),
    Col("first player wins", lambda r: _first_cell(r)),
    Col("p", field("first_p", lambda v: "" if v is None else f"{v:.2g}")), Col("draws", field("draws")),
]
def _change(out: str, digits: int = 2, as_points: bool = False) -> Formatter:
    """``a → b`` then the change with its interval, marked * when the interval excludes 0."""
    def cell(r: Row) -> str:
        d, lo, hi = r[f"{out}_diff"], r[f"{out}_diff_lo"], r[f"{out}_diff_hi"]
        if as_points:
            head = f"{pct(r[f'{out}_a'])} → {pct(r[f'{out}_b'])}: {points_change(d, lo, hi)}"
        else:
            head = (f"{num(r[f'{out}_a'], digits)} → {num(r[f'{out}_b'], digits)}: "
                    f"{'' if d is None else f'{d:+.{digits}f}'}"
                    + ("" if lo is None or hi is None else f" [{lo:+.{digits}f}, {hi:+.{digits}f}]"))
        sig = lo is not None and hi is not None and (lo > 0 or hi < 0)
        return head + (" *" if sig else "")
    return cell


IMPACT_COMP_COLS = [
    Col("source", text("source"), "left"), Col("list", text("list"), "left"),
    Col("games", lambda r: f"{r['games_a']} / {r['games_b']}"),
    Col("design", lambda r: r.get("design") or "unpaired", "left"),
    Col("win rate", lambda r: _change("win", as_points=True)(r) + (" (saturated)" if r.get("saturated") else "")),
    Col("VP margin", _change("vp_margin", 1)),
]
IMPACT_UNIT_COLS = [
    Col("source", text("source"), "left"), Col("unit", text("type"), "left"),
    Col("PTS", lambda r: f"{num(r['pts_a'], 0)} → {num(r['pts_b'], 0)}"),
    Col("VP / game", _change("vp_share", 2)),
    Col("VP / pt", _change("vp_per_pt", 3)),
    Col("damage / pt", _change("damage_per_pt", 2)),
    Col("survives", _change("survival", as_points=True)),
]
PAIRING_COLS = [
    Col("rules", text("rules_id"), "left"), Col("games", field("games")), Col("paired", field("paired")),
    Col("strata", field("strata")), Col("left out", field("left_out")),
    *[Col(r, field(r)) for r in ("list not played", "matchup not played", "other bots", "sides swapped")],
]
COST_COLS = [
    Col("rules", text("rules_id"), "left"), Col("unit", text("type"), "left"), Col("PTS", field("pts", lambda v:
                                                                                                num(v, 0))),
    Col("games differing", field("games")), Col("value (VP)", lambda r: plus_minus(r["value_vp"],
                                                                                    r["value_se"], 2)),
    Col("value / pt vs scale", field("rel_value_per_pt", lambda v: "" if v is None else f"{v:+.0%}")),
    Col("implied PTS", lambda r: interval(r["suggested_pts"], r["suggested_lo"], r["suggested_hi"], digits=1)),
    Col("p", field("p", lambda v: "" if v is None else f"{v:.3g}")),
    Col("q (BH)", field("q", lambda v: "" if v is None else f"{v:.3g}")),
    Col("verdict", lambda r: r["verdict"] + (f" ({r['direction']})" if r["direction"] else ""), "left"),
]
LUCK_COLS = [
    Col("rules", text("rules_id"), "left"), Col("source", text("source"), "left"), Col("decisive games",
                                                                                        field("games")),
    Col("luckier side won", lambda r: interval(r["share"], r["share_lo"], r["share_hi"], as_pct=True)),
    Col("mean luck gap (z)", field("mean_abs_diff")),
]
OVERHEAT_COLS = [
    Col("rules", text("rules_id"), "left"), Col("excess", field("excess")), Col("rolls", field("rolls")),
    Col("overheats", lambda r: interval(r["rate"], r["rate_lo"], r["rate_hi"], as_pct=True)),
    Col("exact", field("exact", pct)),
]
WEAPONS_LOST_COLS = [
    Col("rules", text("rules_id"), "left"), Col("weapon", text("weapon"), "left"),
    Col("overheat rolls", field("rolls")), Col("weapons lost", field("lost")),
    Col("damage to itself", field("self_damage")),
]
INITIATIVE_COLS = [
    Col("rules", text("rules_id"), "left"), Col("initiative rolls", field("rolls")), Col("ties", field("ties")),
    Col("blue went first", lambda r: interval(r["share"], r["share_lo"], r["share_hi"], as_pct=True)),
]
RUSH_COLS = [Col("rules", text("rules_id"), "left"), Col("rushes", field("rushes")), Col("games", field("games"))]
OUTCOME_COLS = [
    Col("rules", text("rules_id"), "left"), Col("source", text("source"), "left"), Col("games", field("games")),
    Col("rounds (mean)", field("mean_rounds", lambda v: num(v, 1))), Col("median", field("median_rounds")),
    Col("draws", lambda r: interval(r["draw_rate"], r["draw_lo"], r["draw_hi"], as_pct=True)),
    Col("round limit", lambda r: interval(r["round_limit_rate"], r["round_limit_lo"], r["round_limit_hi"],
                                          as_pct=True)),
    Col("wipeouts", field("wipeout_rate", pct)), Col("won on VP", field("vp_win_rate", pct)),
    Col("end reason unknown", field("reason_unknown")),
]
LEAD_COLS = [
    Col("rules", text("rules_id"), "left"), Col("source", text("source"), "left"), Col("games", field("games")),
    Col("lead changes (mean)", field("mean_lead_changes")), Col("games with one", field("share_with_change", pct)),
    Col("winner came from behind", lambda r: interval(r["comeback_rate"], r["comeback_lo"], r["comeback_hi"],
                                                      as_pct=True)),
]


def _figure(name: str, figs: dict[str, Path], out: Path, caption: str, prov: Provenance) -> str:
    """An image (a PNG beside the report) or a link (an HTML figure), with its source."""
    if name not in figs:
        return ""
    rel = figs[name].relative_to(out).as_posix()
    if figs[name].suffix == ".png":
        return f"\n![{caption}]({rel})  \n_Source: {prov.caption()}_\n"
    return f"\n**Figure: [{caption}]({rel})**  \n_Source: {prov.caption()}_\n"


def _dice_summary(d: pl.DataFrame) -> pl.DataFrame:
    """Expected attacks to kill: every weapon against a few representative targets."""
    targets = [t for t in ("Infantry", "GEV", "Mammoth", "Tyrant", "Timber Wolf", "Paladin") if t in
               set(d["target"].to_list())]
    wide = d.filter(pl.col("target").is_in(targets)).pivot(on="target", index=["weapon", "weapon_name", "rng",
                                                                                 "rng_infantry"],
                                                           values="expected_attacks_to_kill")
    return wide.select("weapon", "weapon_name", "rng", "rng_infantry", *targets)


def _dice_cols(d: pl.DataFrame) -> list[Col]:
    targets = [c for c in d.columns if c not in ("weapon", "weapon_name", "rng", "rng_infantry")]
    return [Col("weapon", text("weapon_name"), "left"), Col("RNG", field("rng")),
            Col("RNG (infantry)", field("rng_infantry")),
            *[Col(t, field(t, lambda v: "—" if v is None else num(v, 1))) for t in targets]]


def _rules_diff(a: str, b: str) -> str:
    try:
        ra, rb = load_rules(a), load_rules(b)
    except PmimError:
        return ""
    return format_diff_markdown(ra, rb, diff_rules(ra, rb)).replace("## Rules changes", "#### Rules changes")


def render_report(ids: Sequence[str], prov: Provenance, t: dict[str, pl.DataFrame], dice: dict[str, pl.DataFrame],
                  figs: dict[str, Path], signals: list[str], questions: list[tuple[str, list[str]]],
                  out: Path, title: str | None = None) -> str:
    """The whole report as Markdown (under ``title``, by default "PMIM balance report: <ids>")."""
    p = [f"# {title or 'PMIM balance report: ' + ', '.join(ids)}", "",
         f"_Source: {prov.caption()}. Every table is also in `tables/` as CSV and Parquet; 95% intervals "
         "in brackets or after ±._", "", "## Summary: the biggest balance signals", ""]
    p += [f"- {s}" for s in signals]
    p += ["", "## The playtest's open questions", ""]
    for q, answers in questions:
        p += [f"**{q}**", "", *[f"- {a}" for a in answers], ""]
    p += ["## Units", "", "Per unit type and game (a unit-game): landed damage per point, hit rate, kills, "
          "survival, and VP share (each VP split among the scoring side's units in the objective's zone). "
          "Objectives count units, not points, so VP per point favours cheap units by the scenario's design.", "",
          markdown_table(t["units"], UNIT_COLS, MAX_ROWS)]
    for rid in ids:
        p.append(_figure(f"survival_{rid}", figs, out, f"Unit survival by round, {rid} (Kaplan-Meier)", prov))
    p += ["", "## Weapons: observed against the dice", "", "Hit rate and damage per attack against the exact "
          "expectation from 2d6 (p: exact test up to 5,000 attacks, normal above).", "",
          markdown_table(t["weapons"].sort("attacks", descending=True), WEAPON_COLS, MAX_ROWS),
          *(["", note] if (note := dice_test_note(t["weapons"])) else []),
          _figure("hit_rates", figs, out, "Observed against expected hit rate", prov)]
    for rid, d in dice.items():
        p += ["", f"### Dice maths, {rid}: expected attacks to destroy", "",
              "Exact: P(2d6 + ACC ≥ DEF), damage (STR − ARM) × RPT, Warmechs through their hit-location chart "
              "(see `tables/dice_" + rid + ".csv` for every target, P(hit) and expected damage). — = cannot "
              "damage it.", "", markdown_table(_dice_summary(d), _dice_cols(_dice_summary(d))),
              _figure(f"dice_{rid}", figs, out, f"Expected attacks to destroy each target, {rid}", prov)]
    comps = t["compositions"]
    shown = comps.filter(pl.col("games") >= MIN_GAMES)
    hidden = comps.height - shown.height
    p += ["", "## Compositions", "", markdown_table(shown, COMP_COLS, MAX_ROWS)]
    if hidden:
        p += [f"_{hidden} compositions with fewer than {MIN_GAMES} games (one-off armies) are in "
              "`tables/compositions.csv` only._", ""]
    p += [
          _figure("win_rates", figs, out, "Win rate by composition", prov)]
    for rid in ids:
        p.append(_figure(f"matchups_{rid}", figs, out, f"Matchup matrix, {rid}", prov))
    p += ["", "### Side and first-player advantage", "", markdown_table(t["sides"], SIDE_COLS)]
    for key in [k for k in t if k.startswith("impact_compositions_")]:
        a, b = _pair(key, ids)
        p += ["", f"## Rules impact: {a} → {b}", "", "Only games played under both rules ids with the same lists "
              "(by content), the same bots and the same sides; 95% intervals clustered by game, * when they "
              "exclude no change.", "", markdown_table(t[f"impact_pairing_{a}_{b}"], PAIRING_COLS), "",
              markdown_table(t[key], IMPACT_COMP_COLS, MAX_ROWS), "",
              markdown_table(t[f"impact_units_{a}_{b}"], IMPACT_UNIT_COLS, MAX_ROWS), "", _rules_diff(a, b)]
    p += ["", "## Implied point costs", "",
          f"Each type's value is fitted jointly on the VP margin (Huber loss), per rules id; the scale is the "
          f"value of an average fielded point, so no type is fixed at its price. 95% intervals from "
          f"{implied_costs.RESAMPLES} bootstrap samples of army pairs (drawn with replacement for values and the "
          f"scale; a wild bootstrap, the armies held fixed, for implied costs). A type is mis-priced when its test is "
          f"significant after Benjamini-Hochberg over every priced type of the table (q <= {FDR:g}). Nothing is "
          f"priced from fewer than {cost_model.MIN_GAMES} games, or for a type the sides field differently in "
          f"fewer than {cost_model.MIN_GAMES_PER_TYPE} games.", ""]
    p += [f"- {r['rules_id']}: {r['message']}." for r in t["costs_summary"].iter_rows(named=True)]
    p += ["", markdown_table(t["costs"], COST_COLS, MAX_ROWS)]
    tested = int(t["costs"]["p"].is_not_null().sum()) if "p" in t["costs"].columns else 0
    if tested:
        p += ["", family_note(tested, "unit types")]
    p += ["", "## Luck", "", "Each side's damage against its exact expectation given the attacks it made "
          "(z-score); how often the side with the better dice won.", "",
          markdown_table(t["luck_summary"], LUCK_COLS)]
    if "optional_overheat" in t:
        p += ["", "## Optional rules", "", "What the optional rules did in the games of variants that switch them "
              "on: overheat rates by excess beside the exact odds, weapons lost to heat, initiative wins, rushes.", ""]
        for key, cols in (("optional_overheat", OVERHEAT_COLS), ("optional_weapons_lost", WEAPONS_LOST_COLS),
                          ("optional_initiative", INITIATIVE_COLS), ("optional_rushes", RUSH_COLS)):
            if t[key].height:
                p += [markdown_table(t[key], cols), ""]
    p += ["", "## Game quality", "", markdown_table(t["quality_outcomes"], OUTCOME_COLS), "",
          markdown_table(t["quality_leads"], LEAD_COLS),
          _figure("vp_by_round", figs, out, "Mean VP after each round", prov), ""]
    return "\n".join(p)


def _pair(key: str, ids: Sequence[str]) -> tuple[str, str]:
    rest = key.removeprefix("impact_compositions_")
    for a in ids:
        for b in ids:
            if rest == f"{a}_{b}":
                return a, b
    raise ValueError(f"cannot split {key!r} into two of {ids}")
