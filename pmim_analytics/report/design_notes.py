"""The design notes of a ``pmim balance propose`` run: what changed, why, what it did, what it did not fix.

Built from what the run stored (:mod:`pmim_analytics.store.balance`): every candidate table it
evaluated (one row per round and item, with the implied cost, its 95% interval and the test's
Benjamini-Hochberg q) and the held-out check of the start table and the proposal at each bot
level, with the verdict on each criterion of "balanced" (docs/balance.md). ``pmim export`` puts
them in the note beside the other sections, and the dashboard's Rules A → B page shows them when B
is the variant a run wrote. Every figure names the bot level and skill it rests on; levels are
never pooled.
"""

from __future__ import annotations

import math
import shlex
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pmim_analytics.analytics.levels import level_name
from pmim_analytics.errors import PmimError
from pmim_analytics.report.inert import md_text
from pmim_analytics.report.markdown import table_lines
from pmim_analytics.rules import load_rules
from pmim_analytics.rules.models import RulesVersion

#: The band a run stored before migration 12 was judged against (the command's default).
DEFAULT_BAND = (0.45, 0.55)
#: Why a run stopped, in words.
STOPPED = {"converged": "it converged (a round repriced nothing)",
           "cycle": "a table it had tried came back (a cycle)",
           "budget": "its budget of games ran out"}
#: Runs whose notes an export shows at most (the newest).
MAX_RUNS = 3


@dataclass(frozen=True)
class DesignNotes:
    """One run's design notes: a heading, a line on how the run was made, and the four sections
    (each a list of Markdown blocks: sentences and tables)."""

    run_id: str
    rules_id: str
    variant: str
    bot: str  # the search's bot level, skill included (a level key)
    heading: str
    made: str
    changed: tuple[str, ...]
    why: tuple[str, ...]
    did: tuple[str, ...]
    not_fixed: tuple[str, ...]

    def sections(self) -> list[tuple[str, tuple[str, ...]]]:
        """(title, blocks) of the four sections, in order."""
        return [("What changed", self.changed), ("Why", self.why), ("What it did", self.did),
                ("What it did not fix", self.not_fixed)]

    def markdown(self, level: int = 2, with_heading: bool = True) -> str:
        """The notes as Markdown, the heading at ``level`` (its sections one level below)."""
        out = [f"{'#' * level} {self.heading}", ""] if with_heading else []
        out += [self.made, ""]
        for title, blocks in self.sections():
            out += [f"{'#' * (level + 1)} {title}", ""]
            for b in blocks:
                out += [b, ""]
        return "\n".join(out)


def _num(v: float | None, digits: int = 1) -> str:
    return "-" if v is None or (isinstance(v, float) and math.isnan(v)) else f"{v:.{digits}f}"


def _pct(v: float | None) -> str:
    return "-" if v is None or (isinstance(v, float) and math.isnan(v)) else f"{100 * v:.0f}%"


def _table(headers: Sequence[str], rows: Sequence[Sequence[str]], left: int = 1) -> str:
    """A Markdown table; the first ``left`` columns align left, the others right."""
    return "\n".join(table_lines(headers, [k >= left for k in range(len(headers))], rows))


def _label(rules: RulesVersion | None, item: str) -> str:
    """``Tyrant (unit)`` as a designer reads it; the stored code when the rules are not known."""
    table, code = item.split(".", 1)
    kind = "weapon" if table == "weapons" else "Warmech" if table == "warmechs" else "unit"
    rows: Sequence[Any] = getattr(rules, table, ()) if rules is not None else ()
    name = next((r.name for r in rows if r.code == code), code)
    return f"{md_text(name)} ({kind})"


def _applied(row: dict[str, Any]) -> bool:
    """Whether a round applied a candidate row's price (runs stored before migration 12: it proposed one)."""
    applied = row.get("applied")
    return bool(row["proposed"] != row["listed"]) if applied is None else bool(applied)


def design_notes(run: dict[str, Any], rules: RulesVersion | None = None) -> DesignNotes:
    """The notes of one stored run (a row of :func:`~pmim_analytics.store.balance.read_balance_runs`,
    with its ``candidates``, ``checks`` and ``verdicts``); ``rules`` names the items (its base rules)."""
    level = level_name(run["bot"])
    every: list[dict[str, Any]] = run.get("candidates", [])
    cands = [c for c in every if c["item"].count(".") == 1]  # prices; a stat step's item is table.CODE.stat
    stat_rows = [c for c in every if c["item"].count(".") == 2]
    rounds = sorted({c["round"] for c in cands})
    first = {c["item"]: c for c in cands if rounds and c["round"] == rounds[0]}
    last = {c["item"]: c for c in cands if rounds and c["round"] == rounds[-1]}
    steps: dict[str, list[dict[str, Any]]] = {}
    for c in cands:
        if _applied(c):
            steps.setdefault(c["item"], []).append(c)
    final = {i: s[-1]["proposed"] for i, s in steps.items()}
    moved = {i: (first[i]["listed"], p) for i, p in final.items() if i in first and p != first[i]["listed"]}
    order = sorted(moved, key=lambda i: (("chassis", "warmechs", "weapons").index(i.split(".")[0]), i))
    net = sum(b - a for a, b in moved.values())
    heading = f"Design notes: the proposal {md_text(run['variant'])} (from {md_text(run['rules_id'])})"
    made = (f"_`pmim balance propose` run {run['run_id']}: the search played {run['games']:,} games at bot level "
            f"**{level}** (both sides), seed {run['seed']}, budget {run['budget']:,} games, in {run['rounds']} "
            f"round{'s' if run['rounds'] != 1 else ''}; {STOPPED.get(run['stopped'], run['stopped'])}. Each figure "
            "below names the bot level and skill it rests on; levels are never pooled._")

    changed: list[str] = []
    if moved:
        changed.append(f"{len(moved)} price{'s' if len(moved) != 1 else ''} changed, net {net:+d} points, "
                       f"{sum(abs(b - a) for a, b in moved.values())} points moved (prices searched at {level}):")
        changed.append(_table(["item", run["rules_id"], run["variant"], "round(s)"],
                              [[_label(rules, i), str(moved[i][0]), str(moved[i][1]),
                                ", ".join(str(s["round"]) for s in steps[i])] for i in order]))
    elif not stat_rows:
        changed.append(f"No price changed: at {level} no item's implied cost was shown to lie more than half a "
                       "point from its listed price, so the proposal is the start table.")
    else:
        changed.append("No price changed.")
    stat_steps: dict[str, list[dict[str, Any]]] = {}
    for c in stat_rows:
        if _applied(c):
            stat_steps.setdefault(c["item"], []).append(c)
    stat_moved = {k: (s[0]["listed"], s[-1]["proposed"]) for k, s in stat_steps.items()
                  if s[-1]["proposed"] != s[0]["listed"]}
    if stat_moved:
        changed.append(f"{len(stat_moved)} stat{'s' if len(stat_moved) != 1 else ''} changed (searched at {level}; "
                       "games with these items play differently under the proposal):")
        changed.append(_table(["item", "stat", run["rules_id"], run["variant"], "round(s)"],
                              [[_label(rules, k.rsplit(".", 1)[0]), k.rsplit(".", 1)[1].upper(), str(a), str(b),
                                ", ".join(str(s["round"]) for s in stat_steps[k])]
                               for k, (a, b) in sorted(stat_moved.items())]))
    elif stat_rows:
        changed.append(f"No stat changed: no stat step tried at {level} was shown to move its item's value towards "
                       "its price.")

    why: list[str] = []
    tested = {r: sum(c["q"] is not None for c in cands if c["round"] == r) for r in rounds}
    for i in order:
        for s in steps[i]:
            why.append(f"- {_label(rules, i)}, {s['listed']} → {s['proposed']} in round {s['round']}: at {level} its "
                       f"implied cost was {_num(s['implied'])} points [{_num(s['lo'])}, {_num(s['hi'])}] (95%), "
                       f"from {s['games']:,} games in which the two sides fielded different numbers of it; the test "
                       f"of |implied - listed| <= 1/2 gave q = {_num(s['q'], 3)} (Benjamini-Hochberg over the "
                       f"{tested[s['round']]} items tested together that round, false discovery rate 5%).")
    why.append("An item is repriced only when that test shows it off; the bots never read prices, so every game of "
               "the run is evidence for every table it tried (docs/balance.md).")
    if not moved:
        why = why[-1:]
    for k in sorted(stat_moved):
        item, stat = k.rsplit(".", 1)
        for s in stat_steps[k]:
            fit = next((c for c in cands if c["round"] == s["round"] and c["item"] == item), None)
            at = ("" if fit is None else f"its implied cost was {_num(fit['implied'])} points [{_num(fit['lo'])}, "
                  f"{_num(fit['hi'])}] against its price of {fit['listed']} (shown off by the half-point test, "
                  "Benjamini-Hochberg over the items with a stat knob), so ")
            why.append(f"- {_label(rules, item)}, {stat.upper()} {s['listed']} → {s['proposed']} in round "
                       f"{s['round']}: at {level} {at}a step of the stat towards the price was tried on "
                       f"{s['games']:,} paired games (the round's games that field it, replayed at the new value "
                       f"with the same lists and dice), where it changed the item's value by {_num(s['implied'], 2)} "
                       f"points [{_num(s['lo'], 2)}, {_num(s['hi'], 2)}] (95%); one-sided p = {_num(s['p'], 3)}, "
                       f"Holm q = {_num(s['q'], 3)}.")
    if stat_moved:
        why.append("A stat cannot be priced by the implied-cost fit, so a stat step is measured on paired games, and "
                   "taken only when they show it moves the item's value towards its price without overshooting it "
                   "(docs/balance.md, \"Stat knobs\").")

    lo_b, hi_b = (run.get("band_low"), run.get("band_high"))
    if lo_b is None or hi_b is None:
        lo_b, hi_b = DEFAULT_BAND
    did: list[str] = []
    not_fixed: list[str] = []
    verdicts: list[dict[str, Any]] = run.get("verdicts", [])
    checks: list[dict[str, Any]] = run.get("checks", [])
    levels = list(dict.fromkeys([v["level"] for v in verdicts] + [c["level"] for c in checks]))
    levels.sort(key=lambda lv: lv != run["bot"])  # the search's own level first
    for lv in levels:
        name = level_name(lv)
        vb = {v["criterion"]: v for v in verdicts if v["level"] == lv and v["tbl"] == "before"}
        va = [v for v in verdicts if v["level"] == lv and v["tbl"] == "after"]
        sb = {c["archetype"]: c for c in checks if c["level"] == lv and c["tbl"] == "before"}
        sa = [c for c in checks if c["level"] == lv and c["tbl"] == "after"]
        games = sum(c["games"] for c in sa) // 2
        did.append(f"Held-out games at **{name}** (fresh seeds and random armies the search never saw; about "
                   f"{games:,} archetype games a table):")
        if va:
            did.append(_table(["criterion", run["rules_id"], run["variant"], "holds after"],
                              [[v["criterion"], md_text(vb[v["criterion"]]["measured"]) if v["criterion"] in vb
                                else "-", md_text(v["measured"]), "yes" if v["holds"] else "no"] for v in va]))
        if sa:
            did.append(_table(["archetype (score against the field, 95% interval)", run["rules_id"],
                               run["variant"]],
                              [[md_text(c["archetype"]),
                                _score(sb.get(c["archetype"])), _score(c)] for c in sa]))
        for v in va:
            if not v["holds"]:
                not_fixed.append(f"- At {name}: {v['criterion']} does not hold ({md_text(v['measured'])}).")
        out_band = [c for c in sa if c["score"] is None or not lo_b <= c["score"] <= hi_b]
        if out_band:
            not_fixed.append(f"- At {name}, outside the band {lo_b:.0%}-{hi_b:.0%}: "
                             + "; ".join(f"{md_text(c['archetype'])} {_score(c)}" for c in out_band) + ".")
    if not levels:
        did.append("No held-out check was stored with this run (it ran with `--verify-games 0`), so what the "
                   "proposal does on games it never saw is not measured.")
        not_fixed.append("- Not measured: the run has no held-out check.")

    still = [c for c in last.values() if c["proposed"] != c["listed"] and not _applied(c)]
    if still:
        not_fixed.append(f"- Still off at the last round at {level}, but not repriced (not among the prices "
                         "`--knobs` allowed to change): "
                         + "; ".join(f"{_label(rules, c['item'])} listed {c['listed']}, implied {_num(c['implied'])} "
                                     f"[{_num(c['lo'])}, {_num(c['hi'])}]" for c in still) + ".")
    untaken = [c for c in stat_rows if rounds and c["round"] == rounds[-1] and not _applied(c)]
    for c in untaken:
        item, stat = c["item"].rsplit(".", 1)
        why_not = (c["note"] or "").split("; ", 1)[1] if "; " in (c["note"] or "") else "not shown"
        not_fixed.append(f"- At {level}, the step of {_label(rules, item)} {stat.upper()} {c['listed']} → "
                         f"{c['proposed']} tried in the last round was not taken ({md_text(why_not)}).")
    if run["stopped"] == "budget" and any(_applied(c) for c in [*last.values(), *stat_rows]
                                          if rounds and c["round"] == rounds[-1]):
        not_fixed.append("- The prices or stats changed in the last round were not re-tested: the budget ran out "
                         "first.")
    unpriced: dict[str, list[str]] = {}
    for c in last.values():
        if c["implied"] is None:
            unpriced.setdefault(c["note"] or "not priced", []).append(_label(rules, c["item"]))
    if unpriced:
        not_fixed.append(f"- Not tested at the last round ({sum(map(len, unpriced.values()))} items), so their "
                         "prices are as listed: " + "; ".join(f"{why_not}: {', '.join(items)}"
                                                              for why_not, items in sorted(unpriced.items())) + ".")
    if not not_fixed:
        not_fixed.append("- Nothing: every criterion holds after, at every bot level checked.")
    return DesignNotes(run["run_id"], run["rules_id"], run["variant"], run["bot"], heading, made, tuple(changed),
                       tuple(why), tuple(did), tuple(not_fixed))


def _score(c: dict[str, Any] | None) -> str:
    if c is None:
        return "-"
    return f"{_pct(c['score'])} [{_pct(c['lo'])}, {_pct(c['hi'])}] ({c['games']:,} games)"


def _rules(rules_id: str) -> RulesVersion | None:
    try:
        return load_rules(rules_id)
    except PmimError:
        return None  # a rules id this catalogue does not know: items are named by code


def stored_design_notes(db: str | Path | None, rules_ids: Sequence[str] | None = None,
                        variant: str | None = None) -> list[DesignNotes]:
    """The notes of the stored runs, newest first: those that wrote ``variant`` when given, else
    those whose proposal or base rules id is one of ``rules_ids`` (every run when ``None``)."""
    from pmim_analytics.store.balance import read_balance_runs

    runs = read_balance_runs(db, variant)
    if rules_ids is not None:
        runs = [r for r in runs if r["variant"] in rules_ids or r["rules_id"] in rules_ids]
    return [design_notes(r, _rules(r["rules_id"])) for r in runs]


def proposal_variants(db: str | Path | None) -> list[tuple[str, str]]:
    """(variant, base rules id) of the proposals stored runs wrote, newest first (played or not)."""
    from pmim_analytics.store.balance import read_balance_variants

    return read_balance_variants(db)


def simulate_command(rules_id: str, bot: str, db: str | Path | None = None, games: int = 100) -> str | None:
    """The exact ``pmim simulate`` command that plays ``rules_id`` (a proposal with no games yet) at bot
    level ``bot`` on both sides: the first two armies of data/armies written for it or its base and
    legal under it (the sample archetypes), the games ingested into ``db``. Paired with the base's
    games of the same lists, bots and sides, they fill the Rules A → B page's paired parts. None
    when its rules do not load here (no variant file) or fewer than two armies are legal under it."""
    from pmim_analytics.errors import display_path
    from pmim_analytics.rules.army import load_army, validate_army
    from pmim_analytics.rules.catalogue import data_dir

    rules = _rules(rules_id)
    if rules is None:
        return None
    written_for = {rules_id, rules.base or rules_id}
    found: list[Path] = []
    for path in sorted((data_dir() / "armies").glob("*.yaml")):
        try:
            army = load_army(path)
            if army.rules in written_for:
                validate_army(army, rules_id)
                found.append(path)
        except PmimError:
            continue
        if len(found) == 2:
            break
    if len(found) < 2:
        return None
    a, b = found
    args = ["pmim", "simulate", "--rules", rules_id, "--blue", display_path(a), "--red", display_path(b),
            "--blue-bot", bot, "--red-bot", bot, "--games", str(games), "--out",
            f"replays/{rules_id}-{a.stem}-vs-{b.stem}", "--ingest"]
    return shlex.join(args + (["--db", display_path(db)] if db is not None else []))
