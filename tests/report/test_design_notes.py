"""The design notes of a ``pmim balance propose`` run (pmim_analytics/report/design_notes.py): built
from the stored run, checkable by hand. ``pmim export`` ends its note with them
(tests/report/test_export_notes.py), the Rules A → B page shows them (tests/app/test_dashboard_rules_ab.py).

The run below is small and written by hand: two rounds over three items and a held-out check of
two archetypes at two skill levels. Round 1 repriced the Tyrant 4 -> 6; round 2 found the L. Laser
off, but the run's knobs did not let it change; the Gauss Gun was never priced. After the change
Tank-heavy is still outside the band at skill 0.75, Infantry swarm outside it at skill 1.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from pmim_analytics.report.design_notes import design_notes, stored_design_notes
from pmim_analytics.rules import load_rules

LEVEL, LEVEL2 = "greedy:skill=0.75", "greedy"


def _cand(rnd: int, item: str, listed: int, games: int, implied: float | None, lo: float | None, hi: float | None,
          q: float | None, proposed: int, applied: bool, note: str | None = None) -> dict[str, Any]:
    return {"round": rnd, "item": item, "listed": listed, "games": games, "implied": implied, "lo": lo, "hi": hi,
            "p": q, "q": q, "proposed": proposed, "note": note, "applied": applied}


def _check(level: str, tbl: str, name: str, score: float, lo: float, hi: float) -> dict[str, Any]:
    return {"level": level, "tbl": tbl, "archetype": name, "score": score, "lo": lo, "hi": hi, "games": 40}


def _verdict(level: str, tbl: str, k: int, name: str, holds: bool, measured: str) -> dict[str, Any]:
    return {"level": level, "tbl": tbl, "criterion": name, "position": k, "holds": holds, "measured": measured}


def small_run(variant: str = "v3-llaser-rpt4") -> dict[str, Any]:
    """A stored run, as :func:`~pmim_analytics.store.balance.read_balance_runs` gives it back."""
    run: dict[str, Any] = {
        "run_id": "abc123", "rules_id": "v3", "bot": LEVEL, "seed": 5, "budget": 400, "pairs_per_round": 100,
        "games": 400, "rounds": 2, "stopped": "budget", "variant": variant, "changes": 1, "net_points": 2,
        "band_low": 0.45, "band_high": 0.55}
    run["candidates"] = [
        _cand(1, "chassis.TY", 4, 132, 6.44, 5.18, 7.70, 0.002, 6, True),
        _cand(1, "weapons.GG", 0, 3, None, None, None, None, 0, False, "the only weapon of its tonnage"),
        _cand(1, "weapons.LL", 1, 90, 0.25, -0.33, 0.82, 0.40, 1, False),
        _cand(2, "chassis.TY", 6, 260, 6.20, 5.50, 6.90, 0.60, 6, False),
        _cand(2, "weapons.GG", 0, 7, None, None, None, None, 0, False, "the only weapon of its tonnage"),
        _cand(2, "weapons.LL", 1, 170, 0.30, -0.10, 0.70, 0.04, 0, False),
    ]
    run["checks"] = [
        _check(LEVEL, "before", "v3-infantry-swarm", 0.08, 0.03, 0.20), _check(LEVEL, "before", "v3-tank-heavy",
                                                                              0.92, 0.80, 0.97),
        _check(LEVEL, "after", "v3-infantry-swarm", 0.45, 0.31, 0.60), _check(LEVEL, "after", "v3-tank-heavy",
                                                                             0.60, 0.45, 0.74),
        _check(LEVEL2, "before", "v3-infantry-swarm", 0.10, 0.04, 0.23), _check(LEVEL2, "before", "v3-tank-heavy",
                                                                               0.90, 0.77, 0.96),
        _check(LEVEL2, "after", "v3-infantry-swarm", 0.30, 0.18, 0.45), _check(LEVEL2, "after", "v3-tank-heavy",
                                                                              0.50, 0.35, 0.65),
    ]
    run["verdicts"] = [
        _verdict(LEVEL, "before", 1, "archetypes in the band", False, "0 of 2 within 45%-55%"),
        _verdict(LEVEL, "before", 2, "largest matchup", False, "v3-tank-heavy vs v3-infantry-swarm 92% [80%, 97%]"),
        _verdict(LEVEL, "after", 1, "archetypes in the band", False, "1 of 2 within 45%-55%"),
        _verdict(LEVEL, "after", 2, "largest matchup", True, "v3-tank-heavy vs v3-infantry-swarm 60% [45%, 74%]"),
        _verdict(LEVEL2, "before", 1, "archetypes in the band", False, "0 of 2 within 45%-55%"),
        _verdict(LEVEL2, "before", 2, "largest matchup", False, "v3-tank-heavy vs v3-infantry-swarm 90% [77%, 96%]"),
        _verdict(LEVEL2, "after", 1, "archetypes in the band", False, "1 of 2 within 45%-55%"),
        _verdict(LEVEL2, "after", 2, "largest matchup", True, "v3-tank-heavy vs v3-infantry-swarm 70% [55%, 82%]"),
    ]
    return run


def store(run: dict[str, Any], db: Path) -> None:
    from pmim_analytics.store.balance import save_balance_run

    head = {k: v for k, v in run.items() if k not in ("candidates", "checks", "verdicts")}
    save_balance_run(head, run["candidates"], run["checks"], db, run["verdicts"])


def test_the_notes_say_what_changed_why_what_it_did_and_what_it_did_not_fix() -> None:
    n = design_notes(small_run(), load_rules("v3"))
    md = n.markdown()
    titles = [line for line in md.splitlines() if line.startswith("### ")]
    assert titles == ["### What changed", "### Why", "### What it did", "### What it did not fix"]
    # the search's bot level and skill, named where the run is described and beside each figure
    assert "at bot level **greedy, skill 0.75**" in n.made and "its budget of games ran out" in n.made
    changed = "\n".join(n.changed)
    assert "1 price changed, net +2 points, 2 points moved" in changed
    assert "| Tyrant (unit) | 4 | 6 | 1 |" in changed
    assert n.why[0].startswith("- Tyrant (unit), 4 → 6 in round 1: at greedy, skill 0.75 its implied cost was "
                               "6.4 points [5.2, 7.7] (95%), from 132 games")
    assert "q = 0.002 (Benjamini-Hochberg over the 2 items tested together that round" in n.why[0]
    did = "\n".join(n.did)
    # the search's own level first, then the second level, each with its before/after
    assert did.index("**greedy, skill 0.75**") < did.index("**greedy, skill 1**")
    assert "| archetypes in the band | 0 of 2 within 45%-55% | 1 of 2 within 45%-55% | no |" in did
    assert "| v3-tank-heavy | 92% [80%, 97%] (40 games) | 60% [45%, 74%] (40 games) |" in did
    nf = "\n".join(n.not_fixed)
    assert "At greedy, skill 0.75: archetypes in the band does not hold (1 of 2 within 45%-55%)" in nf
    assert "At greedy, skill 0.75, outside the band 45%-55%: v3-tank-heavy 60%" in nf
    assert "At greedy, skill 1, outside the band 45%-55%: v3-infantry-swarm 30%" in nf
    assert "L. Laser (weapon) listed 1, implied 0.3 [-0.1, 0.7]" in nf  # off, but the knobs kept it
    assert "the budget ran out first" not in nf  # the last round repriced nothing
    assert "the only weapon of its tonnage: Gauss Gun (weapon)" in nf


def test_a_run_without_a_check_or_a_change_says_so() -> None:
    run = small_run()
    run["candidates"] = [c | {"applied": False, "proposed": c["listed"]} for c in run["candidates"]]
    run["checks"], run["verdicts"] = [], []
    n = design_notes(run, None)
    assert n.changed == ("No price changed: at greedy, skill 0.75 no item's implied cost was shown to lie more than "
                         "half a point from its listed price, so the proposal is the start table.",)
    assert "--verify-games 0" in n.did[0] and "Not measured" in n.not_fixed[0]
    assert "chassis.TY" not in n.markdown()  # named by code only when the rules are unknown: no item to name here


def test_the_notes_read_back_from_the_database(tmp_path: Path) -> None:
    from pmim_analytics.store.connection import open_writer

    db = tmp_path / "pmim.duckdb"
    with open_writer(db):
        pass  # an empty database at the newest schema
    run = small_run()
    store(run, db)
    [back] = stored_design_notes(db, ["v3"])
    assert back.markdown() == design_notes(run, load_rules("v3")).markdown()
    assert stored_design_notes(db, ["v2"]) == [] and stored_design_notes(db, variant="v3-other") == []
    assert stored_design_notes(tmp_path / "none-yet.duckdb") == []


def copy_with_run(db: Path, tmp_path: Path, variant: str) -> Path:
    """A copy of ``db`` holding :func:`small_run` for ``variant`` (for the dashboard's tests)."""
    out = tmp_path / "with-run.duckdb"
    shutil.copy(db, out)
    store(small_run(variant), out)
    return out


def test_a_stat_step_gets_its_own_table_and_reason_and_an_untaken_step_is_not_fixed() -> None:
    from pmim_analytics.botlab.proposal import STAT_NOTE

    run = small_run()
    # round 2 found the L. Laser worth less than its price; its price was no knob, its RPT and RNG were
    run["candidates"] += [
        _cand(2, "weapons.LL.rpt", 3, 120, 0.50, 0.10, 0.90, 0.007, 4, True, f"{STAT_NOTE} (implied cost 0.30)"),
        _cand(2, "weapons.LL.rng", 5, 120, 0.05, -0.30, 0.40, 0.30, 6, False,
              f"{STAT_NOTE} (implied cost 0.30); the step's effect is not shown"),
    ]
    n = design_notes(run, load_rules("v3"))
    changed = "\n".join(n.changed)
    assert "1 price changed, net +2 points" in changed  # prices and stats are counted apart
    assert "1 stat changed" in changed and "| L. Laser (weapon) | RPT | 3 | 4 | 2 |" in changed
    [why] = [w for w in n.why if "RPT 3 → 4" in w]
    assert why.startswith("- L. Laser (weapon), RPT 3 → 4 in round 2: at greedy, skill 0.75 its implied cost was 0.3 "
                          "points [-0.1, 0.7] against its price of 1")
    assert "on 120 paired games" in why and "by 0.50 points [0.10, 0.90] (95%); one-sided p = 0.007" in why
    nf = "\n".join(n.not_fixed)
    assert "the step of L. Laser (weapon) RNG 5 → 6 tried in the last round was not taken (the step's effect is " \
           "not shown)" in nf
    assert "The prices or stats changed in the last round were not re-tested: the budget ran out first." in nf
