"""Stat knobs of ``pmim balance propose`` (``--knobs chassis.IN.def``): a stat step measured on paired games.

A variant plants the error: T0's prices (``GREEDY_BALANCED_V3``, docs/balance.md) with infantry at
DEF 12 (v3: 8), so hard to hit that the fit prices them far above their 1 point. With only
``chassis.IN.def`` as a knob the search may not reprice them; it may only step DEF. The command
runs in this process (greedy at skill 1, seed 13, one round of 120 pairs plus the archetypes, 252
games, and the step's paired games, 250; then a token held-out check of 8 games a table and level,
which plays the proposal at DEF 11): about 9 CPU-seconds.

What can be checked by hand: every knob stat is better when higher, so lowering DEF must lower the
infantry's value (the step's paired effect is negative, shown one-sided), and the step is one whole
point within the knob's bounds (the listed 12 +- 2).
"""

from __future__ import annotations

from pathlib import Path

import duckdb
import yaml

from pmim_analytics.botlab.proposal import GREEDY_BALANCED_V3, Pair, paired_effect
from pmim_analytics.report.design_notes import stored_design_notes
from pmim_analytics.rules.army import build_roster, load_army
from pmim_analytics.rules.catalogue import DEFAULT_SCENARIO, REPO_ROOT, load_rules
from pmim_analytics.rules.diff import diff_rules
from pmim_analytics.sim.batch import BatchSpec, GameOutcome, outcome_of, play_batch_game
from tests.support.cli import pmim_in_process

ARMIES = REPO_ROOT / "data" / "armies"


def test_a_planted_stat_is_stepped_back_on_paired_games(data_copy: Path, tmp_path: Path) -> None:
    overrides: dict[str, dict[str, dict[str, int]]] = {}
    for item, pts in GREEDY_BALANCED_V3.items():
        table, code = item.split(".")
        overrides.setdefault(table, {}).setdefault(code, {})["pts"] = pts
    overrides["chassis"]["IN"]["def"] = 12
    variants = data_copy / "rules" / "variants"
    (variants / "v3-infantry-def12.yaml").write_text(yaml.safe_dump(
        {"id": "v3-infantry-def12", "name": "T0 with infantry at DEF 12", "base": "v3", "overrides": overrides}),
        encoding="utf-8")
    db = tmp_path / "knob.duckdb"
    r = pmim_in_process("balance", "propose", "--rules", "v3-infantry-def12", "--knobs", "chassis.IN.def", "--bot",
                        "greedy", "--skill", "1", "--seed", "13", "--budget", "600", "--pairs-per-round", "120",
                        "--resamples", "30", "--verify-games", "8", "--db", str(db))
    assert r.returncode == 0, r.stderr
    print("\n" + next(line for line in r.stdout.splitlines() if line.startswith("Proposal for")))
    assert "0 prices changed, net +0 points, 0 points moved; 1 stat changed (chassis.IN.def 12->11)" in r.stdout
    with duckdb.connect(str(db), read_only=True) as con:
        rows = con.sql("SELECT round, item, listed, proposed, implied, lo, hi, p, q, applied, games FROM "
                       "balance_candidates WHERE item LIKE 'chassis.IN%' ORDER BY item").fetchall()
        changes = con.sql("SELECT changes, net_points FROM balance_runs").fetchall()
        checked = con.sql("SELECT DISTINCT level, tbl FROM balance_checks ORDER BY ALL").fetchall()
    [price, step] = rows
    print(f"fit: {price}\nstep: {step}")
    # the fit: worth more than its price (fixed), so the step goes down
    assert price[1] == "chassis.IN" and price[2] == price[3] == 1 and price[4] > 1.5 and not price[9]
    # the step: DEF 12 -> 11 lowers the value (easier to hit), shown one-sided, and it was taken
    assert step[1:4] == ("chassis.IN.def", 12, 11) and step[4] < 0 and step[7] <= 0.05 and step[9]
    assert step[10] > 100 and changes == [(1, 0)]
    assert checked == [(lv, t) for lv in ("greedy", "greedy:skill=0.75") for t in ("after", "before")]
    [variant] = [p for p in variants.glob("v3-infantry-def12-proposal-*.yaml")]
    assert yaml.safe_load(variant.read_text(encoding="utf-8"))["overrides"] == {"chassis": {"IN": {"def": 11}}}
    [d] = diff_rules(load_rules("v3-infantry-def12"), load_rules(variant.stem))
    assert (d.item, d.what, d.old, d.new) == ("Infantry", "DEF", "12", "11")
    [notes] = stored_design_notes(db, variant=variant.stem)
    text = notes.markdown()
    assert "1 stat changed" in text and "| Infantry (unit) | DEF | 12 | 11 | 1 |" in text
    assert "DEF 12 → 11 in round 1" in text and "paired games" in text
    assert "Held-out games at **greedy, skill 1**" in text
    # a game in which no army fields infantry is the same game at either DEF, so the pool keeps it
    a, b = (build_roster(load_army(ARMIES / f"{n}.yaml"), "v3-infantry-def12") for n in ("v3-tank-heavy",
                                                                                         "v3-mech-heavy"))
    assert not any(u.code == "IN" for u in (*a.units, *b.units))
    specs = [BatchSpec("v3-infantry-def12", DEFAULT_SCENARIO, a, b, "greedy", "greedy", 5, 1, stats=st)
             for st in ((), (("chassis.IN.def", 11),))]
    assert len({outcome_of(s, play_batch_game(s, 0)) for s in specs}) == 1


def test_the_paired_effect_is_the_slope_of_the_margin_change_on_the_copies_fielded() -> None:
    swarm, tanks = (build_roster(load_army(ARMIES / f"{n}.yaml"), "v3") for n in ("v3-infantry-swarm",
                                                                                 "v3-tank-heavy"))
    d = sum(u.code == "IN" for u in swarm.units) - sum(u.code == "IN" for u in tanks.units)
    assert d > 0
    pairs = [Pair(swarm, tanks, 1, "g1"), Pair(tanks, swarm, 2, "g2")]

    def o(i: int, va: int, vb: int) -> GameOutcome:
        return GameOutcome(i, "A" if va > vb else "B", "vp", 6, va, vb)

    # margins seen from army A; game by game, candidate minus base: +2d, +2d (pair 1), -2d, -2d (pair 2)
    base = [(pairs[0], o(0, 10, 10), o(1, 8, 10)), (pairs[1], o(0, 10, 4), o(1, 6, 6))]
    cand = [(pairs[0], o(0, 10 + 2 * d, 10), o(1, 8 + 2 * d, 10)), (pairs[1], o(0, 10, 4 + 2 * d), o(1, 6, 6 + 2 * d))]
    est = paired_effect(base, cand, "chassis.IN")
    assert est is not None
    slope, se, games = est
    assert (round(slope, 9), round(se, 9), games) == (2.0, 0.0, 4)  # every game moved by exactly 2 per copy
    cand[1] = (pairs[1], o(0, 10, 4), o(1, 6, 6))  # pair 2 unchanged: slope 1, residuals +-d per game
    slope, se, _ = paired_effect(base, cand, "chassis.IN") or (0.0, 0.0, 0)
    # SE clustered by pair: sqrt(sum over pairs of (sum of d * residual)^2) / sum of d^2 = sqrt(2 (2 d^2)^2) / (4 d^2)
    assert round(slope, 9) == 1.0 and abs(se - (2 * d * d) * 2**0.5 / (4 * d * d)) < 1e-9
    assert paired_effect(base[:1], cand[:1], "warmechs.SH") is None  # nobody fields a Shrew here
