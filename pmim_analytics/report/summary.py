"""Plain-words findings for the top of a report: the biggest balance signals, and the
designer's open questions from "PMIM Playtest matches 1 and 2" answered from the tables.

Every sentence names its numbers and their interval or sample size; nothing is said about a
rules id the tables hold no games for.
"""

from __future__ import annotations

import polars as pl

from pmim_analytics.analytics.robustness import robustness_signals
from pmim_analytics.analytics.skill_axis import skill_signals
from pmim_analytics.report.inert import md_text
from pmim_analytics.report.markdown import Row, num, pct

#: Fewest unit-games for a unit type to be compared with the others in the summary.
MIN_UNIT_GAMES = 50
#: p-value under which a side or engine signal is reported.
ALPHA = 0.01


def _rows(df: pl.DataFrame | None) -> list[Row]:
    return [] if df is None else list(df.iter_rows(named=True))


def cost_signals(costs: pl.DataFrame) -> list[str]:
    """Types the implied-cost fit calls mis-priced (a BH-adjusted test), with their direction."""
    return [f"**{r['type']}** ({r['rules_id']}) looks {r['direction']}: by the VP margin, it is worth "
            f"{num(r['suggested_pts'], 1)} points [{num(r['suggested_lo'], 1)}, {num(r['suggested_hi'], 1)}] "
            f"against its {num(r['pts'], 0)} ({num(r['games'])} games where the sides differ in it; "
            f"q = {r['q']:.2g} over {r['family']} types)."
            for r in _rows(costs) if r["verdict"] == "mis-priced"]


def cost_caveats(summary: pl.DataFrame) -> list[str]:
    """Why the implied-cost fit priced nothing, once per reason."""
    reasons: dict[str, list[str]] = {}
    for s in _rows(summary):
        if not s["priced"]:
            reasons.setdefault(s["message"].split(";")[0], []).append(s["rules_id"])
    return [f"Implied costs ({', '.join(ids)}): {why}." for why, ids in reasons.items()]


def unit_signals(units: pl.DataFrame) -> list[str]:
    """Unit types far above or below the median VP share per point of their rules id."""
    out = []
    u = units.filter((pl.col("units") >= MIN_UNIT_GAMES) & pl.col("vp_per_pt").is_not_null())
    for (rid, src), grp in u.group_by("rules_id", "source", maintain_order=True):
        med = grp["vp_per_pt"].median()
        if not med:
            continue
        for r in grp.iter_rows(named=True):
            ratio = r["vp_per_pt"] / med
            ci = r["vp_per_pt_ci"] or 0.0
            if (ratio >= 1.5 and r["vp_per_pt"] - ci > med) or (ratio <= 0.67 and r["vp_per_pt"] + ci < med):
                out.append(f"**{r['type']}** ({rid}, {src}) scores {num(r['vp_per_pt'], 3)} VP per point per game, "
                           f"{ratio:.1f}× the median unit type ({num(r['units'])} unit-games).")
    return out


def composition_signals(compositions: pl.DataFrame) -> list[str]:
    """Compositions whose win-rate interval excludes one half, one sentence per composition and source."""
    c = compositions.filter((pl.col("win_lo") > 0.5) | (pl.col("win_hi") < 0.5)).with_columns(
        strong=pl.col("win_rate") > 0.5,
        # strength of evidence: distance from one half in standard errors (from the interval's width)
        evidence=(pl.col("win_rate") - 0.5).abs() / ((pl.col("win_hi") - pl.col("win_lo")) / 3.92))
    out = []
    groups = c.group_by("composition", "source", "strong").agg(pl.col("evidence").max(),
                                                                     pl.struct(pl.all()).alias("rows"))
    for g in groups.sort("evidence", descending=True).iter_rows(named=True):
        parts = [f"{pct(r['win_rate'])} [{pct(r['win_lo'])}, {pct(r['win_hi'])}] under {r['rules_id']} "
                 f"({num(r['games'])} games)" for r in sorted(g["rows"], key=lambda r: r["rules_id"])]
        out.append(f"**{md_text(g['composition'])}** {'wins' if g['strong'] else 'wins only'} " + "; ".join(parts)
                   + f" ({g['source']}, mirrors excluded).")
    return out


def side_signals(sides: pl.DataFrame) -> list[str]:
    """A side or first-player advantage significant at :data:`ALPHA`."""
    out = []
    for r in _rows(sides):
        if r["blue_p"] is not None and r["blue_p"] < ALPHA and r.get("confounded"):
            out.append(f"Blue wins {pct(r['blue_share'])} [{pct(r['blue_lo'])}, {pct(r['blue_hi'])}] of decisive "
                       f"{r['rules_id']} games ({r['source']}, p = {r['blue_p']:.2g}), but {r['confounded_by']} "
                       f"activated first in every one of them: side and first move cannot be told apart "
                       f"(play with first_player: random to separate them).")
        elif r["blue_p"] is not None and r["blue_p"] < ALPHA:
            out.append(f"Blue wins {pct(r['blue_share'])} [{pct(r['blue_lo'])}, {pct(r['blue_hi'])}] of decisive "
                       f"{r['rules_id']} games ({r['source']}, p = {r['blue_p']:.2g}): check map symmetry.")
        if r["first_p"] is not None and r["first_p"] < ALPHA:
            out.append(f"The side activating first wins {pct(r['first_share'])} [{pct(r['first_lo'])}, "
                       f"{pct(r['first_hi'])}] of decisive {r['rules_id']} games (p = {r['first_p']:.2g}).")
    return out


def impact_signals(impact: pl.DataFrame) -> list[str]:
    """Compositions whose win rate changed between two rules ids beyond its interval."""
    c = impact.filter((pl.col("win_diff_lo") > 0) | (pl.col("win_diff_hi") < 0))
    return [f"From {r['rules_a']} to {r['rules_b']}, **{md_text(r['list'])}** goes from {pct(r['win_a'])} to "
            f"{pct(r['win_b'])} wins ({100 * r['win_diff']:+.0f} points [{100 * r['win_diff_lo']:+.0f}, "
            f"{100 * r['win_diff_hi']:+.0f}]; same lists, opponents, bots and sides)." for r in _rows(c)]


def engine_signals(weapons: pl.DataFrame) -> list[str]:
    """Dice that do not behave as the rules say (in engine games this points at a bug)."""
    out = []
    for r in _rows(weapons):
        if r["damage_mismatch"]:
            out.append(f"{num(r['damage_mismatch'])} hits of {r['weapon']} against {r.get('target_kind')} "
                       f"({r['rules_id']}, {r['source']}) dealt damage other than the rules' (STR - ARM) × RPT.")
        elif r["hit_p"] is not None and r["hit_p"] < 0.001 and r["attacks"] >= 100:
            out.append(f"{r['weapon']} against {r.get('target_kind')} ({r['rules_id']}, {r['source']}) hit "
                       f"{pct(r['hit_rate'], 1)} of {num(r['attacks'])} attacks where the dice give "
                       f"{pct(r['expected_hit_rate'], 1)} (p = {r['hit_p']:.2g}).")
    return out


def quality_signals(outcomes: pl.DataFrame, luck: pl.DataFrame | None) -> list[str]:
    """Games that stall at the round limit or end drawn; how much the dice decide."""
    out = []
    for r in _rows(outcomes):
        if r["round_limit_rate"] and r["round_limit_rate"] > 0.1:
            out.append(f"{pct(r['round_limit_rate'])} of {r['rules_id']} games ({r['source']}) reach the round "
                       f"limit; {pct(r['draw_rate'])} are draws.")
    for r in _rows(luck):
        if r["games"] >= 30:
            out.append(f"The side with the better dice won {pct(r['share'])} [{pct(r['share_lo'])}, "
                       f"{pct(r['share_hi'])}] of {num(r['games'])} decisive {r['rules_id']} games "
                       f"({r['source']}).")
    return out


def balance_signals(t: dict[str, pl.DataFrame], max_items: int = 10) -> list[str]:
    """The biggest balance signals across the report tables, strongest kinds first."""
    items = [
        *robustness_signals(t.get("robustness_matchups")),
        *skill_signals(t.get("skill_matchups")),
        *cost_signals(t["costs"]),
        *composition_signals(t["compositions"]),
        *[s for k, v in t.items() if k.startswith("impact_compositions") for s in impact_signals(v)],
        *unit_signals(t["units"]),
        *side_signals(t["sides"]),
        *engine_signals(t["weapons"]),
        *quality_signals(t["quality_outcomes"], t.get("luck_summary")),
    ][:max_items] or ["No signal stands out of the noise in these games."]
    return items + cost_caveats(t["costs_summary"]) + [skill_statement(t.get("skill_matchups"))]


def skill_statement(skill_matchups: pl.DataFrame | None) -> str:
    """At which skill the verdicts were measured (issue #29): skill 1 unless a line names one."""
    if skill_matchups is None or skill_matchups.height == 0:
        return ("Skill: every verdict here rests on bots at skill 1 (their best play); these games hold none "
                "below skill 1, so no verdict is shown at the skill of a table.")
    bots = ", ".join(sorted(set(skill_matchups["bot"])))
    return (f"Skill: the verdicts here rest on bots at skill 1 (their best play) unless a line names a skill; "
            f"the skill tables show {num(skill_matchups.height)} matchups with {bots} at skills 0.5 to 1.")


def _unit(units: pl.DataFrame, rid: str, code: str, source: str | None = None) -> Row | None:
    r = units.filter((pl.col("rules_id") == rid) & (pl.col("code") == code))
    if source is not None:
        r = r.filter(pl.col("source") == source)
    return None if r.height == 0 else r.sort("units", descending=True).row(0, named=True)


def _merge_rules(lines: list[tuple[str, str]]) -> list[str]:
    """Lines that say the same for several rules ids, said once: ``v3, v3-heavy-def6: ...``."""
    ids: dict[str, list[str]] = {}
    for rid, text in lines:
        ids.setdefault(text, []).append(rid)
    return [f"{', '.join(rids)}: {text}" for text, rids in ids.items()]


def designer_questions(t: dict[str, pl.DataFrame], dice: dict[str, pl.DataFrame]) -> list[tuple[str, list[str]]]:
    """The playtest post's open questions, each with what these games and the dice maths say."""
    units, costs = t["units"], t["costs"]
    rids = sorted(set(units["rules_id"].to_list()) | set(dice))
    qs: list[tuple[str, list[str]]] = []

    tw = []
    for rid in rids:
        row = _unit(units, rid, "TW")
        if row is None:
            continue
        peers = units.filter((pl.col("rules_id") == rid) & (pl.col("kind") == "warmech")
                             & (pl.col("source") == row["source"])
                             & (pl.col("pts").round(0) == round(row["pts"])) & (pl.col("code") != "TW"))
        peer_txt = ", ".join(f"{p['type']} {num(p['vp_per_pt'], 3)}" for p in peers.iter_rows(named=True))
        tw.append(f"{rid} ({row['source']}): Timber Wolf {num(row['vp_per_pt'], 3)} VP and "
                  f"{num(row['damage_per_pt'], 2)} damage per point per game"
                  + (f"; other {num(row['pts'], 0)}-point Warmechs: {peer_txt}" if peer_txt
                     else "; no other Warmech at its cost was fielded"))
        c = costs.filter((pl.col("rules_id") == rid) & (pl.col("code") == "TW"))
        if c.height:
            r = c.row(0, named=True)
            tw.append(f"{rid}: implied cost {num(r['suggested_pts'], 1)} [{num(r['suggested_lo'], 1)}, "
                      f"{num(r['suggested_hi'], 1)}] ({r['verdict']})." if r["suggested_pts"] is not None
                      else f"{rid}: implied cost: {r['verdict']} (see Implied point costs).")
    qs.append(("Are Timber Wolves undercosted?", tw or ["No games with Timber Wolves yet."]))

    dice_lines: list[tuple[str, str]] = []
    for rid, d in sorted(dice.items()):
        lasers = d.filter(pl.col("weapon").is_in(["LL", "ML", "HL"]))
        for (_code, name), g in lasers.group_by("weapon", "weapon_name", maintain_order=True):
            blank = g.filter(pl.col("damage_on_hit") == 0)["target"].to_list()
            if blank:
                dice_lines.append((rid, f"a {name} cannot damage {len(blank)} of {g.height} unit types "
                                        f"({', '.join(blank[:4])}{', …' if len(blank) > 4 else ''})."))
        rows = d.filter(pl.col("weapon").is_in(["LL", "LAC"]) & pl.col("target_code").is_in(["IN", "BE", "MA"]))
        if rows.height:
            cells = {(r["weapon"], r["target"]): r for r in rows.iter_rows(named=True)}
            parts = [f"{t}: LL {num(cells[('LL', t)]['expected_damage'], 2)} vs LAC "
                     f"{num(cells[('LAC', t)]['expected_damage'], 2)}"
                     for t in ("Infantry", "Beetle", "Mammoth") if ("LL", t) in cells and ("LAC", t) in cells]
            dice_lines.append((rid, "expected damage per attack: " + "; ".join(parts) + "."))
    ll = _merge_rules(dice_lines)
    w = t["weapons"].filter((pl.col("weapon") == "LL") & (pl.col("target_kind") == "infantry"))
    for r in _rows(w):
        ll.append(f"{r['rules_id']} ({r['source']}), observed against infantry: {num(r['mean_damage'], 2)} "
                  f"damage per attack over {num(r['attacks'])} attacks (expected {num(r['expected_mean_damage'])}).")
    qs.append(("Are Light Lasers too weak?", ll or ["No rules id selected has Light Lasers."]))

    mj = []
    for rid in rids:
        m = _unit(units, rid, "MJ")
        p = _unit(units, rid, "PA", m["source"]) if m else None
        if m and p:
            mj.append(f"{rid} ({m['source']}): Mjolnir ({num(m['pts'], 0)} pts) {num(m['vp_per_pt'], 3)} VP per "
                      f"point, Paladin ({num(p['pts'], 0)} pts) {num(p['vp_per_pt'], 3)}.")
    for k, v in t.items():
        if k.startswith("impact_units") and "v3-mjolnir-16" in k:
            for r in _rows(v.filter(pl.col("code") == "MJ")):
                mj.append(f"{r['rules_a']} → {r['rules_b']}: Mjolnir VP per point {num(r['vp_per_pt_a'], 3)} → "
                          f"{num(r['vp_per_pt_b'], 3)}.")
    qs.append(("Should the Mjolnir cost 18?", mj or ["No games with both a Mjolnir and a Paladin yet."]))

    heavy_lines: list[tuple[str, str]] = []
    for rid, d in sorted(dice.items()):
        hpb = d.filter((pl.col("weapon") == "HPB") & (pl.col("target_code") == "PA"))
        if hpb.height:
            x = hpb.row(0, named=True)
            heavy_lines.append((rid, f"a Paladin (DEF {x['def']}) is hit by a H. Particle Beam {pct(x['p_hit'])} of "
                                     f"the time and needs {num(x['expected_attacks_to_kill'], 1)} such attacks on "
                                     "average."))
    heavy = _merge_rules(heavy_lines)
    qs.append(("Heavy Warmechs at DEF 6 or 7?", heavy or ["Select v3 and v3-heavy-def6 to compare."]))
    return qs
