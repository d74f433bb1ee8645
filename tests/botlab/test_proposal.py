"""``pmim balance propose`` (pmim_analytics/botlab/proposal.py): bad input, the archetype rebuild, weapon
prices, reproducibility over worker counts, and the command end to end on a private data folder.

Games: bot level greedy (the fastest), small counts; the planted-price test is tests/engine/test_balance_planted.py.
"""

from __future__ import annotations

import os
import random
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from pmim_analytics.botlab.proposal import (
    Settings,
    army_items,
    army_points,
    listed_costs,
    priced,
    propose,
    rebuild_archetype,
)
from pmim_analytics.rules.army import build_roster, load_army, unit_points
from pmim_analytics.rules.catalogue import REPO_ROOT, load_rules
from pmim_analytics.rules.generate import random_army

ARMIES = REPO_ROOT / "data" / "armies"


def pmim(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "pmim_analytics", *args], capture_output=True, text=True,
                          env={**os.environ, **(env or {})}, timeout=900)


@pytest.mark.parametrize(("args", "words"), [
    (["--knobs", "chassis.ZZ.pts"], "unknown knob 'chassis.ZZ.pts'"),
    (["--knobs", "weapons.LL.foo"], "unknown knob 'weapons.LL.foo'"),
    (["--knobs", "weapons.LL.name"], "is not a numeric stat"),
    (["--knobs", "chassis.TY.spt"], "cannot be searched"),
    (["--knobs", "weapons.LL.rpt=0..4"], "outside the valid range of rpt (1 to 1000"),
    (["--knobs", "chassis.TY.hp=1..4"], "leave out chassis.TY's listed hp of 5"),
    (["--knobs", "weapons.LL.rpt=3-5"], "write bounds as LOW..HIGH"),
    (["--knobs", "weapons.LL.rpt,weapons.LL.pts"], "both the price and a stat of weapons.LL"),
    (["--band", "0.45,1.2"], "--band must lie inside (0, 1)"),
    (["--budget", "50"], "needs 200 games"),
    (["--budget", "300", "--pairs-per-round", "200"], "needs 400 games"),
    (["--bot", "random"], "takes no skill"),
    (["--address", "auto"], "needs --backend ray"),
])
def test_bad_input_is_one_sentence_and_exit_2(args: list[str], words: str) -> None:
    from tests.support.cli import pmim_in_process

    r = pmim_in_process("balance", "propose", "--rules", "v3", "--bot", "greedy", *args)
    assert r.returncode == 2, r.stderr
    assert words in r.stderr
    assert "Traceback" not in r.stderr and len(r.stderr.strip().splitlines()) == 1


def test_an_archetype_keeps_its_list_at_the_start_table_and_refills_when_a_unit_gets_cheaper() -> None:
    army = load_army(ARMIES / "v3-infantry-swarm.yaml")
    start = listed_costs(load_rules("v3"))
    assert rebuild_archetype(army, "v3", start, start) == army
    cheaper = {**start, "chassis.IN": start["chassis.IN"] - 1}
    rebuilt = rebuild_archetype(army, "v3", start, cheaper)
    assert rebuilt is not None
    spent = army_points(army_items(build_roster(army, "v3")), start)
    after = army_points(army_items(build_roster(rebuilt, "v3")), cheaper)
    # the list spends no more than it did, and no basic unit of its own fits in what is left
    assert after <= spent
    assert spent - after < min(cheaper["chassis.IN"], cheaper["chassis.OD"], cheaper["chassis.BE"]) + 1
    assert sum(e.count for e in rebuilt.units) > sum(e.count for e in army.units)
    dearer = {**start, "warmechs.PA": 60, "warmechs.MJ": 60, "warmechs.LA": 60, "warmechs.GR": 60}
    heavy = load_army(ARMIES / "v3-mech-heavy.yaml")
    rebuilt_heavy = rebuild_archetype(heavy, "v3", start, dearer)
    assert rebuilt_heavy is None or army_points(army_items(build_roster(rebuilt_heavy, "v3")), dearer) <= 72


def test_random_armies_are_legal_at_priced_weapons() -> None:
    rules = load_rules("v3")
    costs = {**listed_costs(rules), "weapons.LL": 2, "weapons.GG": 3, "warmechs.PA": 20}
    table = priced(rules, costs)
    for k in range(40):
        army = random_army("v3", random.Random(k), rules=table)
        roster = build_roster(army, "v3")
        pts = sum(unit_points(table, next(u for u in (*table.chassis, *table.warmechs) if u.code == ru.code),
                              [next(w for w in table.weapons if w.code == c) for c in ru.weapons])
                  for ru in roster.units)
        assert pts == army_points(army_items(roster), costs) <= 72
        assert roster.warmech_count == 2 and not roster.violations


def test_the_same_seed_and_budget_give_the_same_proposal_on_one_and_two_workers() -> None:
    runs = [propose(Settings("v3", "greedy", seed=5, budget=200, pairs_per_round=100, resamples=20, workers=w))
            for w in (1, 2)]
    a, b = runs
    print(f"\nreproducibility (greedy, seed 5, 200 games): {len(a.rounds)} round(s), changes {a.changes()}")
    assert a.costs == b.costs and a.games_played == b.games_played == 200
    fa, fb = a.rounds[-1].fit, b.rounds[-1].fit
    assert [(f.item, f.est, f.lo, f.hi, f.q) for f in fa.items] == [(f.item, f.est, f.lo, f.hi, f.q) for f in fb.items]
    assert sum(f.est is not None for f in fa.items) >= 20


#: One round of 200 games, no held-out verification: the command runs of this module.
PROPOSE = ["balance", "propose", "--rules", "v3", "--bot", "greedy", "--budget", "200", "--verify-games", "0",
           "--resamples", "20", "--seed", "5"]


@pytest.fixture(scope="module")
def uninterrupted(tmp_path_factory: pytest.TempPathFactory) -> tuple[subprocess.CompletedProcess[str], Path, Path]:
    """``pmim balance propose PROPOSE`` run once, whole, on a private data folder and database (its
    output, the folder, the database): the command test reads what it wrote, and the resume test
    compares a resumed run with it (a run of its own would play the same 200 games again)."""
    import shutil

    root = tmp_path_factory.mktemp("proposal")
    data = root / "data"
    shutil.copytree(REPO_ROOT / "data", data, ignore=shutil.ignore_patterns("*.duckdb*"))
    db = root / "b.duckdb"
    return pmim(*PROPOSE, "--db", str(db), env={"PMIM_DATA": str(data)}), data, db


def test_the_command_writes_a_loadable_variant_and_its_diff(
        uninterrupted: tuple[subprocess.CompletedProcess[str], Path, Path]) -> None:
    r, data, db = uninterrupted
    assert r.returncode == 0, r.stderr
    files = list((data / "rules" / "variants").glob("v3-proposal-*.yaml"))
    assert len(files) == 1
    doc = yaml.safe_load(files[0].read_text(encoding="utf-8"))
    assert doc["base"] == "v3" and "greedy:skill=0.75" in doc["description"]
    assert "Balanced (v3, bot level greedy:skill=0.75" in r.stdout and "Rules diff v3 ->" in r.stdout
    shown = pmim("rules", "diff", "v3", files[0].stem, env={"PMIM_DATA": str(data)})
    assert shown.returncode == 0, shown.stderr
    changed = sum(len(rows) for rows in doc.get("overrides", {}).values())
    # one diff line per repriced item, nothing else (no change: `rules diff` prints nothing)
    assert f"{changed} changes" in shown.stdout if changed else not shown.stdout.strip()
    # the run and every candidate it evaluated are kept: one row per round and item of v3's table
    import duckdb

    with duckdb.connect(str(db), read_only=True) as con:
        run = con.sql("SELECT variant, bot, games, rounds, changes FROM balance_runs").fetchall()
        assert run == [(files[0].stem, "greedy:skill=0.75", 200, 1, changed)]
        n, items, priced = con.sql("SELECT count(*), count(DISTINCT item), count(implied) "
                                   "FROM balance_candidates").fetchall()[0]
        assert n == items == len(load_rules("v3").chassis) + len(load_rules("v3").warmechs) + \
            len(load_rules("v3").weapons) and priced >= 20
    # its design notes (pmim export, the Rules A -> B page) are built from what was stored
    from pmim_analytics.report.design_notes import stored_design_notes

    [notes] = stored_design_notes(db, [files[0].stem])
    assert notes.variant == files[0].stem and "at bot level **greedy, skill 0.75**" in notes.made
    assert f"{changed} price" in notes.changed[0] if changed else notes.changed[0].startswith("No price changed")
    assert "--verify-games 0" in notes.did[0]


def test_ctrl_c_leaves_no_variant_file(tmp_path: Path) -> None:
    import shutil
    import signal
    import time

    data = tmp_path / "data"
    shutil.copytree(REPO_ROOT / "data", data, ignore=shutil.ignore_patterns("*.duckdb*"))
    proc = subprocess.Popen([sys.executable, "-m", "pmim_analytics", "balance", "propose", "--rules", "v3", "--bot",
                             "greedy", "--budget", "4000", "--workers", "2"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True,
                            env={**os.environ, "PMIM_DATA": str(data)})
    assert proc.stdout is not None
    first = proc.stdout.readline()  # the definition of balanced is printed before the games start
    assert first.startswith("Balanced"), first
    time.sleep(2)
    os.killpg(proc.pid, signal.SIGINT)
    _, stderr = proc.communicate(timeout=300)
    assert proc.returncode == 130, stderr
    assert not list((data / "rules" / "variants").glob("*proposal*"))


def _first_chunk_kept(db: Path, proc: subprocess.Popen[str], timeout: float = 600) -> bool:
    """Wait until the running command has kept its first chunk of pairs in ``db`` (True), or has
    ended first (False). Each read is short and read-only: the command opens the file per chunk."""
    import time

    import duckdb

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and proc.poll() is None:
        if db.exists():
            try:
                with duckdb.connect(str(db), read_only=True) as con:
                    kept = con.execute("SELECT count(*) FROM balance_games").fetchall()[0][0]
                if kept > 0:
                    return True
            except duckdb.Error:
                pass  # being created, or held by the command's write: look again
        time.sleep(0.2)
    return False


def test_a_run_interrupted_then_run_again_resumes_and_proposes_what_an_uninterrupted_run_does(
        tmp_path: Path, uninterrupted: tuple[subprocess.CompletedProcess[str], Path, Path]) -> None:
    import shutil
    import signal

    data = tmp_path / "data"
    shutil.copytree(REPO_ROOT / "data", data, ignore=shutil.ignore_patterns("*.duckdb*"))
    db = tmp_path / "r.duckdb"
    env = {**os.environ, "PMIM_DATA": str(data)}
    # one round of 200 games: the first run is stopped once its first chunk of 10 pairs is kept
    args = PROPOSE
    proc = subprocess.Popen([sys.executable, "-m", "pmim_analytics", *args, "--db", str(db)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True, env=env)
    assert proc.stdout is not None
    try:
        assert proc.stdout.readline().startswith("Balanced")
        interrupted = _first_chunk_kept(db, proc)
        os.killpg(proc.pid, signal.SIGINT)
        proc.communicate(timeout=300)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    assert proc.returncode == 130 if interrupted else proc.returncode in (0, 130)
    again = pmim(*args, "--db", str(db), env={"PMIM_DATA": str(data)})
    assert again.returncode == 0, again.stderr
    assert "resuming run" in again.stderr
    fresh, fresh_data, _ = uninterrupted  # the same arguments, run whole
    assert fresh.returncode == 0, fresh.stderr

    def proposal_line(text: str) -> str:
        return next(line for line in text.splitlines() if line.startswith("Proposal for v3"))

    assert proposal_line(again.stdout) == proposal_line(fresh.stdout)
    files = [max(folder.glob("v3-proposal-*.yaml"), key=lambda p: p.stat().st_mtime)
             for folder in (data / "rules" / "variants", fresh_data / "rules" / "variants")]
    docs = [yaml.safe_load(p.read_text(encoding="utf-8")) for p in files]
    assert docs[0].get("overrides") == docs[1].get("overrides")
