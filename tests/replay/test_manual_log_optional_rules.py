"""Optional rules in a table log: rushes (``v3-rush``), initiative rolls
(``v3-rolled-initiative``), catch-up activations (``v3-catch-up``) and overheat rolls
(``v3-heat``); small logs checkable by hand.

Rushing: the Grumbler ``B:GR1`` has MOV 2, so under ``v3-rush`` (factor 2) it may rush 4 hexes; it is
deployed on 0812, and column 8 runs straight north through free hexes, so 0808 is 4 hexes
away and 0807 is 5.
"""

from __future__ import annotations

import re
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from pmim_analytics.engine.verify import verify_game
from pmim_analytics.model.events import (
    Activate,
    InitiativeRoll,
    LocationDestroyed,
    Move,
    OverheatRoll,
    RoundStart,
    Rush,
    WeaponLost,
)
from pmim_analytics.model.record import GameRecord
from pmim_analytics.replay.manual import parse_log
from pmim_analytics.rules.catalogue import REPO_ROOT

HEADER = "rules: v3-rush\nblue army: v3-mech-heavy\nred army: v3-tank-heavy\n"
# every unit placed (so the engine can replay the log): the deployment of the sample detailed log
_SAMPLE = (REPO_ROOT / "data" / "playtests" / "sample-detailed-v3.pmimlog").read_text().splitlines()
DEPLOY = "R0\n" + "".join(line.split("#")[0].strip() + "\n" for line in _SAMPLE if " deploy " in line)
RUSH_LINE = HEADER.count("\n") + DEPLOY.count("\n") + 1


def _read(body: str, header: str = HEADER):
    return parse_log(header + DEPLOY + body + "result: draw manual\n", "t.pmimlog", strict=False)


def _refused_at(body: str, token: str, fragment: str, header: str = HEADER) -> None:
    """The log's last line is refused, the error pointing at ``token`` and saying ``fragment``."""
    _, errors = _read(body + "\n", header)
    assert errors, "expected an error"
    e = errors[0]
    bad = body.splitlines()[-1]
    assert e.where is not None and e.where.line == RUSH_LINE + body.count("\n"), e.render()
    at = re.search(r"(?<![\w:])" + re.escape(token) + r"(?!\w)", bad)
    assert at is not None and e.where.column == at.start() + 1, e.render()
    assert fragment in e.message and repr(token) in e.message, e.message


def test_a_rush_of_twice_mov_is_read_as_a_rush_event_the_engine_accepts() -> None:
    game, errors = _read("R1 B:GR1 rush 0812-0808\n")
    assert not errors, [e.render() for e in errors]
    assert game is not None
    rushes = [e for e in game.events if isinstance(e, Rush)]
    assert [(r.unit, r.from_hex, r.to_hex, r.path) for r in rushes] == [("B:GR1", (8, 12), (8, 8), 4)]
    assert not any(isinstance(e, Move) for e in game.events)
    assert verify_game(game) == []


def test_a_rush_from_where_the_log_has_the_unit_needs_only_the_hex_it_goes_to() -> None:
    game, errors = _read("R1 B:GR1 rush 0809\n")
    assert not errors and game is not None
    assert [(e.from_hex, e.to_hex, e.path) for e in game.events if isinstance(e, Rush)] == [((8, 12), (8, 9), 3)]


RUSH_REFUSALS = [
    ("R1 B:GR1 rush 0812-0807", "0812-0807", "more than its rush distance 4 (2 x MOV 2)"),
    ("R1 B:GR1 rush 0812-0808\nR1 B:GR1 GG>R:BA1 miss", "GG", f"rushed in this activation (line {RUSH_LINE})"),
    # the Basset (MOV 3) comes to 0804, 4 hexes from 0808: in the Gauss gun's range (6); red goes
    # first in R2 (the rounds alternate), so the Basset holds before the Grumbler acts
    ("R1 B:GR1 rush 0812-0808\nR1 R:BA1 move 0801-0804\nR1 vp 1-0\nR2 R:BA1 hold\nR2 B:GR1 GG>R:BA1 miss\n"
     "R2 B:GR1 rush 0808-0810",
     "B:GR1", "already attacked in this activation"),
    ("R1 B:GR1 rush 0812-0810\nR1 B:GR1 move 0810-0809", "B:GR1", "already moved in this activation"),
    ("R1 B:GR1 rush 0812-0812", "0812-0812", "already at 0812"),
    ("R1 B:GR1 rush", "B:GR1", "its rush must name the hex it goes to: 'B:GR1 rush CCRR'"),
]


@pytest.mark.parametrize(("body", "token", "fragment"), RUSH_REFUSALS)
def test_a_rush_that_breaks_the_rule_is_refused_at_its_token(body: str, token: str, fragment: str) -> None:
    _refused_at(body, token, fragment)


def test_a_rush_under_rules_without_the_rushing_rule_is_refused() -> None:
    _, errors = _read("R1 B:GR1 rush 0812-0810\n", header=HEADER.replace("v3-rush", "v3"))
    assert len(errors) == 1
    assert "rushing is an optional rule that 'v3' does not switch on" in errors[0].message
    assert "write 'move'" in errors[0].message


def test_a_plain_move_under_v3_rush_keeps_its_mov_limit() -> None:
    _, errors = _read("R1 B:GR1 move 0812-0809\n")
    assert len(errors) == 1 and "more than its MOV 2" in errors[0].message


def test_log_check_accepts_a_rush_and_names_a_missing_overheat_roll(tmp_path: Path) -> None:
    ok = tmp_path / "rush.pmimlog"
    ok.write_text(HEADER + DEPLOY + "R1 B:GR1 rush 0812-0808\nresult: draw manual\n")
    heat = tmp_path / "heat.pmimlog"
    heat.write_text(HEAT + DEPLOY + HEAT_OPENING + "R2 R:TY1 hold\nresult: draw manual\n")
    missing = "its overheat roll comes before 'R:TY1': 'B:GR1 MAC overheat D6'"
    for path, code, words in ((ok, 0, ""), (heat, 1, missing)):
        proc = subprocess.run([sys.executable, "-m", "pmim_analytics", "log", "check", str(path)],
                              capture_output=True, text=True, cwd=REPO_ROOT)
        out = proc.stdout + proc.stderr
        assert proc.returncode == code, out
        assert words in out and "Traceback" not in out


# -- rolled initiative: blue's die first; the higher goes first, a tie is rolled again ------------
INITIATIVE = HEADER.replace("v3-rush", "v3-rolled-initiative")


def test_initiative_lines_become_initiative_roll_events_and_the_engine_agrees() -> None:
    game, errors = _read("R1 initiative 3-3\nR1 initiative 2-5\nR1 R:BA1 move 0801-0804\nR1 B:GR1 move 0812-0810\n"
                         "R1 vp 0-0\nR2 initiative 6-1\nR2 B:GR1 hold\n", INITIATIVE)
    assert not errors, [e.render() for e in errors]
    assert game is not None
    rolls = [(e.round, e.blue_roll, e.red_roll, e.first) for e in game.events if isinstance(e, InitiativeRoll)]
    assert rolls == [(1, 3, 3, None), (1, 2, 5, "red"), (2, 6, 1, "blue")]
    assert [(e.round, e.first) for e in game.events if isinstance(e, RoundStart)] == [(1, "red"), (2, "blue")]
    assert verify_game(game) == []


INITIATIVE_REFUSALS = [
    ("R1 B:GR1 move 0812-0810", "B:GR1", "R1 needs its initiative roll before 'B:GR1' activates"),
    ("R1 initiative 2-5\nR1 B:GR1 move 0812-0810", "B:GR1", "red won R1's initiative"),
    ("R1 initiative 4-4\nR1 R:BA1 move 0801-0804", "R:BA1", "is a tie, so it is rolled again"),
    ("R1 initiative 7-2", "7-2", "each initiative die is 1 to 6"),
    ("R1 initiative 5-2\nR1 initiative 1-6", "1-6", "already won by blue"),
    ("R1 initiative 5-2\nR1 B:GR1 hold\nR1 initiative 1-6", "1-6", "comes too late"),
    ("initiative 5-2", "5-2", "belongs to a round from R1 on"),
    ("R1 initiative 5", "5", "expected the initiative dice as BLUE-RED"),
]


@pytest.mark.parametrize(("body", "token", "fragment"), INITIATIVE_REFUSALS)
def test_an_initiative_line_that_breaks_the_rule_is_refused_at_its_token(body: str, token: str,
                                                                         fragment: str) -> None:
    _refused_at(body, token, fragment, INITIATIVE)


def test_an_initiative_roll_under_rules_without_it_is_refused() -> None:
    _refused_at("R1 initiative 5-2", "5-2", "rolled initiative is an optional rule that 'v3-rush' does not")


# -- catch-up activations: the activation lines in the order played -----------------------------
def test_catch_up_activations_are_judged_by_the_engine() -> None:
    # red's infantry swarm (17 units) has at least twice the Mech-heavy list's 8, so it activates
    # two units at each of its turns; the reader judges the order as the engine does (mechanics.next_turn)
    header = HEADER.replace("v3-rush", "v3-catch-up").replace("v3-tank-heavy", "v3-infantry-swarm")
    blue = [line for line in DEPLOY.splitlines() if line.startswith("B:")]
    foot = [f"IN{k}" for k in range(1, 10)] + [f"OD{k}" for k in range(1, 7)]
    red = ["R:MJ1 deploy 0201", "R:PA1 deploy 0401"] + [f"R:{u} deploy {c:02d}03" for c, u in enumerate(foot)]
    deploy = "R0\n" + "\n".join(blue + red) + "\n"

    def read(body: str):
        return parse_log(header + deploy + body + "result: draw manual\n", "t.pmimlog", strict=False)

    played, errors = read("R1 B:GR1 hold\nR1 R:IN1 hold\nR1 R:IN2 hold\nR1 B:PA1 hold\n")
    assert not errors and played is not None, [e.render() for e in errors]
    assert verify_game(played) == []
    _, errors = read("R1 B:GR1 hold\nR1 R:IN1 hold\nR1 B:PA1 hold\n")
    assert len(errors) == 1 and "it is red's turn, not 'B:PA1''s" in errors[0].message, errors
    # the engine refuses the same order
    events = [e for e in played.events if not (isinstance(e, Activate) and e.unit == "R:IN2")]
    found = verify_game(GameRecord(played.header, tuple(replace(e, seq=i) for i, e in enumerate(events, 1))))
    assert found and "B:PA1" in found[0].message and "red's turn" in found[0].message, found


# -- heat: a Grumbler (heavy: rating 5) fires its Gauss gun (20 t: 4 heat) then its M. Autocannon
# (10 t: 2 heat): 6 heat, 1 over, so an overheat d6 follows the MAC and overheats it on a 1 --------
HEAT = HEADER.replace("v3-rush", "v3-heat")
# round 1: the Grumbler to 0810, the Basset to 0804; round 2 (red first): the Basset to 0806, 4 hexes
# from the Grumbler, in reach of both its Gauss gun (RNG 6) and its M. Autocannon (RNG 4)
HEAT_OPENING = ("R1 B:GR1 move 0812-0810\nR1 R:BA1 move 0801-0804\nR1 vp 0-0\nR2 R:BA1 move 0804-0806\n"
                "R2 B:GR1 GG>R:BA1 1+1 miss\nR2 B:GR1 MAC>R:BA1 1+1 miss\n")


def test_an_overheat_roll_over_the_excess_is_read_and_the_engine_agrees() -> None:
    game, errors = _read(HEAT_OPENING + "R2 B:GR1 MAC overheat 4\n", HEAT)
    assert not errors, [e.render() for e in errors]
    assert game is not None
    rolls = [(e.unit, e.weapon, e.excess, e.result, e.overheated) for e in game.events if isinstance(e, OverheatRoll)]
    assert rolls == [("B:GR1", "MAC", 1, 4, False)]
    assert not any(isinstance(e, WeaponLost) for e in game.events)
    assert verify_game(game) == []


def test_an_overheated_weapon_is_lost_and_hits_its_own_warmech() -> None:
    # the d6 2 gives the right arm (3 HP) on the saurian chart; the MAC's STR 2 x RPT 3 = 6 ignores ARM
    game, errors = _read(HEAT_OPENING + "R2 B:GR1 MAC overheat 1 RA(2) 6\n", HEAT)
    assert not errors, [e.render() for e in errors]
    assert game is not None
    lost = [(e.weapon, e.location, e.location_rolls, e.damage, e.overkill) for e in game.events
            if isinstance(e, WeaponLost)]
    assert lost == [("MAC", "RA", (2,), 6, 3)]
    assert [(e.unit, e.location, e.by) for e in game.events if isinstance(e, LocationDestroyed)] == [
        ("B:GR1", "RA", None)]
    assert verify_game(game) == []
    # the lost weapon cannot fire again (the Basset on 0806 holds the zone of the objective on 0807)
    _refused_at(HEAT_OPENING + "R2 B:GR1 MAC overheat 1 LL(3) 6\nR2 vp 0-1\nR3 B:GR1 MAC>R:BA1 hit 0", "MAC",
                "overheated and was lost on line", HEAT)


OVERHEAT_REFUSALS = [
    ("R2 R:TY1 hold", "R:TY1", "B:GR1's MAC attack on line"),
    ("R2 B:GR1 MAC overheat 1", "1", "the MAC overheats (roll 1 <= 1, the heat over the rating)"),
    ("R2 B:GR1 MAC overheat 2 RA(2)", "RA(2)", "does not overheat (roll 2 > 1"),
    ("R2 B:GR1 MAC overheat 1 RA(2) 4", "4", "STR 2 x RPT 3 = 6, ignoring ARM"),
    ("R2 B:GR1 MAC overheat 1 RA(3)", "RA(3)", "hit-location die 3 gives LL"),
    ("R2 B:GR1 GG overheat 1", "GG", "the overheat roll due is for the MAC"),
    ("R2 B:GR1 MAC overheat 7", "7", "one d6, 1 to 6"),
]


@pytest.mark.parametrize(("body", "token", "fragment"), OVERHEAT_REFUSALS)
def test_an_overheat_line_that_breaks_the_rule_is_refused_at_its_token(body: str, token: str,
                                                                       fragment: str) -> None:
    _refused_at(HEAT_OPENING.rstrip("\n") + "\n" + body, token, fragment, HEAT)


def test_no_overheat_roll_is_due_within_the_rating_or_without_heat() -> None:
    within = "R1 B:GR1 move 0812-0810\nR1 R:BA1 move 0801-0804\nR1 vp 0-0\nR2 R:BA1 move 0804-0806\n"
    _refused_at(within + "R2 B:GR1 GG>R:BA1 miss\nR2 B:GR1 GG overheat 1", "1", "made 4 heat, within its rating 5",
                HEAT)
    _refused_at(within + "R2 B:GR1 GG>R:BA1 miss\nR2 B:GR1 GG overheat 1", "1",
                "heat is an optional rule that 'v3-rush' does not switch on")


def test_a_missing_roll_is_one_error_and_the_log_reads_on() -> None:
    # no initiative line for round 1: one error at its first activation, the others read as logged
    _, errors = _read("R1 R:BA1 move 0801-0804\nR1 B:GR1 move 0812-0810\nR1 R:TY1 hold\n", INITIATIVE)
    assert [e.where.line for e in errors if e.where] == [RUSH_LINE]
    # no overheat line after the MAC: one error, at the next line, which is still read
    game, errors = _read(HEAT_OPENING + "R2 R:TY1 hold\nR2 B:PA1 move 1112-1110\n", HEAT)
    assert len(errors) == 1 and "'B:GR1 MAC overheat D6'" in errors[0].message
    assert game is not None and any(isinstance(e, Move) and e.unit == "B:PA1" for e in game.events)


def bad_logs() -> dict[str, str]:
    """Every log this file writes to be refused, whole (for the reader-engine differential test in
    test_reader_engine_differential.py)."""
    within = "R1 B:GR1 move 0812-0810\nR1 R:BA1 move 0801-0804\nR1 vp 0-0\nR2 R:BA1 move 0804-0806\n"
    bodies = [(f"rush: {b}", HEADER, b) for b, _, _ in RUSH_REFUSALS]
    bodies += [(f"initiative: {b}", INITIATIVE, b) for b, _, _ in INITIATIVE_REFUSALS]
    bodies += [(f"overheat: {b}", HEAT, HEAT_OPENING + b) for b, _, _ in OVERHEAT_REFUSALS]
    bodies += [("rush under v3", HEADER.replace("v3-rush", "v3"), "R1 B:GR1 rush 0812-0810"),
               ("a move over MOV under v3-rush", HEADER, "R1 B:GR1 move 0812-0809"),
               ("initiative under v3-rush", HEADER, "R1 initiative 5-2"),
               ("a lost weapon fires", HEAT, HEAT_OPENING + "R2 B:GR1 MAC overheat 1 LL(3) 6\nR2 vp 0-1\n"
                                                           "R3 B:GR1 MAC>R:BA1 hit 0"),
               ("an overheat roll within the rating", HEAT, within + "R2 B:GR1 GG>R:BA1 miss\nR2 B:GR1 GG overheat 1"),
               ("an overheat roll without heat", HEADER, within + "R2 B:GR1 GG>R:BA1 miss\nR2 B:GR1 GG overheat 1")]
    return {name: header + DEPLOY + body + "\nresult: draw manual\n" for name, header, body in bodies}
