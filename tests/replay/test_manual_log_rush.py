"""Rushes in a table log (the optional rushing rule of ``v3-rush``): small logs checkable by hand.

The Grumbler ``B:GR1`` has MOV 2, so under ``v3-rush`` (factor 2) it may rush 4 hexes; it is
deployed on 0812, and column 8 runs straight north through free hexes, so 0808 is 4 hexes
away and 0807 is 5.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from pmim_analytics.engine.verify import verify_game
from pmim_analytics.model.events import Move, Rush
from pmim_analytics.replay.manual import parse_log
from pmim_analytics.rules.catalogue import REPO_ROOT

HEADER = "rules: v3-rush\nblue army: v3-mech-heavy\nred army: v3-tank-heavy\n"
# every unit placed (so the engine can replay the log): the deployment of the sample detailed log
_SAMPLE = (REPO_ROOT / "data" / "playtests" / "sample-detailed-v3.pmimlog").read_text().splitlines()
DEPLOY = "R0\n" + "".join(line.split("#")[0].strip() + "\n" for line in _SAMPLE if " deploy " in line)
RUSH_LINE = HEADER.count("\n") + DEPLOY.count("\n") + 1


def _read(body: str, header: str = HEADER):
    return parse_log(header + DEPLOY + body + "result: draw manual\n", "t.pmimlog", strict=False)


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


@pytest.mark.parametrize(("body", "token", "fragment"), [
    ("R1 B:GR1 rush 0812-0807", "0812-0807", "more than its rush distance 4 (2 x MOV 2)"),
    ("R1 B:GR1 rush 0812-0808\nR1 B:GR1 GG>R:BA1 miss", "GG", f"rushed in this activation (line {RUSH_LINE})"),
    # the Basset (MOV 3) comes to 0804, 4 hexes from 0808: in the Gauss gun's range (6)
    ("R1 B:GR1 rush 0812-0808\nR1 R:BA1 move 0801-0804\nR2 B:GR1 GG>R:BA1 miss\nR2 B:GR1 rush 0808-0810",
     "B:GR1", "already attacked in this activation"),
    ("R1 B:GR1 rush 0812-0810\nR1 B:GR1 move 0810-0809", "B:GR1", "already moved in this activation"),
    ("R1 B:GR1 rush 0812-0812", "0812-0812", "already at 0812"),
    ("R1 B:GR1 rush", "B:GR1", "its rush must name the hex it goes to: 'B:GR1 rush CCRR'"),
])
def test_a_rush_that_breaks_the_rule_is_refused_at_its_token(body: str, token: str, fragment: str) -> None:
    game, errors = _read(body + "\n")
    assert errors, "expected an error"
    e = errors[0]
    last = HEADER.count("\n") + DEPLOY.count("\n") + body.count("\n") + 1
    bad = body.splitlines()[-1]
    assert e.where is not None and e.where.line == last, e.render()
    assert e.where.column == bad.index(token) + 1, e.render()
    assert fragment in e.message and repr(token) in e.message, e.message


def test_a_rush_under_rules_without_the_rushing_rule_is_refused() -> None:
    _, errors = _read("R1 B:GR1 rush 0812-0810\n", header=HEADER.replace("v3-rush", "v3"))
    assert len(errors) == 1
    assert "rushing is an optional rule that 'v3' does not switch on" in errors[0].message
    assert "write 'move'" in errors[0].message


def test_a_plain_move_under_v3_rush_keeps_its_mov_limit() -> None:
    _, errors = _read("R1 B:GR1 move 0812-0809\n")
    assert len(errors) == 1 and "more than its MOV 2" in errors[0].message


def test_log_check_accepts_a_rush_and_still_refuses_heat(tmp_path: Path) -> None:
    ok = tmp_path / "rush.pmimlog"
    ok.write_text(HEADER + DEPLOY + "R1 B:GR1 rush 0812-0808\nresult: draw manual\n")
    heat = tmp_path / "heat.pmimlog"
    heat.write_text(HEADER.replace("v3-rush", "v3-heat") + DEPLOY + "R1 B:GR1 move 0812-0810\nresult: draw manual\n")
    for path, code, words in ((ok, 0, ""), (heat, 1, "switches on optional rules (heat)")):
        proc = subprocess.run([sys.executable, "-m", "pmim_analytics", "log", "check", str(path)],
                              capture_output=True, text=True, cwd=REPO_ROOT)
        out = proc.stdout + proc.stderr
        assert proc.returncode == code, out
        assert words in out and "Traceback" not in out
