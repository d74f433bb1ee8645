"""Manual logs with mistakes: each error names the line, the column and the token.

Every case is a few lines of log whose LAST line holds the mistake; ``token`` is the text
the error must point at (its first occurrence on that line) and quote with ``!r``.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from pmim_analytics.errors import ReplayError
from pmim_analytics.model.events import Attack, GameEnd, Move
from pmim_analytics.replay.manual import parse_log
from pmim_analytics.rules.catalogue import REPO_ROOT

HEADER = "rules: v3\nblue army: v3-mech-heavy\nred army: v3-tank-heavy\n"
DEPLOY = ["B:GR1 deploy 0812", "B:NE2 deploy 1412", "R:BA1 deploy 0801", "R:TY1 deploy 0201"]

CASES = {
    # the rules
    "unknown unit": ([], "R1 B:ZZ9 move", "B:ZZ9", "unknown unit"),
    "weapon the unit lacks": ([], "R1 B:NE1 GG>R:TY1 hit", "GG", "has no weapon"),
    "hit with a roll that cannot hit": ([], "R1 B:NE2 SC>R:TY1 2+3 hit 2", "2+3", "cannot hit: 5 + ACC 0 < DEF 7"),
    "miss with a roll that hits": ([], "R1 B:NE2 SC>R:TY1 6+6 miss", "6+6", "hits: 12 + ACC 0 >= DEF 7"),
    "total that cannot hit": ([], "R1 B:NE2 SC>R:TY1 6 hit", "6", "cannot hit"),
    "damage that does not match": ([], "R1 B:NE2 SC>R:TY1 6+6 hit 5", "5", "(STR 4 - ARM 2) x RPT 1 = 2"),
    "damage on a miss": ([], "R1 B:NE2 SC>R:TY1 miss 2", "2", "a miss deals 0"),
    "target out of range": (DEPLOY, "R1 B:NE2 SC>R:TY1 hit", "R:TY1", "beyond its SC's range of 4"),
    "destroyed unit acting": (["R1 R:BE1 destroyed"], "R2 R:BE1 move", "R:BE1", "was destroyed on line 4"),
    "destroyed target": (["R1 R:BE1 destroyed"], "R2 B:NE2 SC>R:BE1 hit", "R:BE1", "was destroyed on line 4"),
    "own side": ([], "R1 B:NE2 SC>B:TY1 hit", "B:TY1", "own side"),
    "hit on a Warmech without location": ([], "R1 B:GR1 GG>R:BA1 hit", "hit", "needs its hit location"),
    "location on a basic unit": ([], "R1 B:GR1 GG>R:TY1 hit LA 3", "LA", "not a Warmech"),
    "location the body lacks": ([], "R1 B:GR1 GG>R:BA1 hit CT 4", "CT", "has no center torso"),
    "location die that gives another location": ([], "R1 B:GR1 GG>R:BA1 hit LA(3) 4", "LA(3)", "gives LL"),
    "re-roll of a location still standing": ([], "R1 B:GR1 GG>R:BA1 hit LA(3,1) 4", "LA(3,1)", "not re-rolled"),
    "hit on a destroyed location": (["R1 R:BA1 LT destroyed"], "R1 B:GR1 GG>R:BA1 hit LT 4", "LT",
                                    "already destroyed; the rules re-roll"),
    "weapon on a lost arm": (["R1 R:BA1 LA destroyed"], "R1 R:BA1 LAC>B:NE2 hit 0", "LAC", "lost its left arm"),
    "activating twice": (["R1 B:NE2 move", "R1 R:TY1 move"], "R1 B:NE2 SC>R:TY1 hit", "B:NE2",
                         "already activated in R1 (line 4)"),
    "moving twice": (["R1 B:NE2 move"], "R1 B:NE2 move", "B:NE2", "already moved"),
    "third attack": (["R1 B:GR1 GG>R:TY1 miss", "R1 B:GR1 ML>R:TY1 miss"], "R1 B:GR1 MAC>R:TY1 miss", "MAC",
                     "at most 2"),
    "second attack of a basic unit": (["R1 B:NE2 SC>R:TY1 miss"], "R1 B:NE2 SC>R:TY2 miss", "SC", "at most 1"),
    "same weapon twice": (["R1 B:GR1 GG>R:TY1 miss"], "R1 B:GR1 GG>R:TY2 miss", "GG", "already fired its 'GG'"),
    "move beyond MOV": (DEPLOY, "R1 B:GR1 move 0812-0808", "0812-0808", "more than its MOV 2"),
    "move from a hex another unit stands on": (DEPLOY, "R1 B:NE1 move 0801-0802", "0801-0802",
                                               "R:BA1 stands there"),
    "move from the wrong hex": (DEPLOY, "R1 B:GR1 move 0811-0810", "0811-0810", "is at 0812"),
    "move without hex from a known hex": (DEPLOY, "R1 B:GR1 move", "B:GR1", "must name the hex it goes to"),
    "move to a hex from an unknown hex": ([], "R1 B:GR1 move 0810", "0810", "needs its starting hex too"),
    "immobilized unit moving": (["R1 B:PA1 LL destroyed", "R1 B:PA1 RL destroyed"], "R2 B:PA1 move", "B:PA1",
                                "immobilized"),
    "deployment outside the zone": ([], "B:GR1 deploy 0805", "0805", "outside blue's deployment zone"),
    "deployment off the map": ([], "B:GR1 deploy 2512", "2512", "off the 20x14 map"),
    "stacking": (["B:GR1 deploy 0812"], "B:NE2 deploy 0812", "0812", "taken by B:GR1"),
    "deployment in a round": ([], "R1 B:GR1 deploy 0812", "R1", "deployment comes before round 1"),
    "round going back": (["R2 R:TY1 move"], "R1 B:GR1 move", "R1", "rounds only go forward"),
    "marker contradicting the attack": (["R1 B:NE2 hold", "R1 R:TY1 HAC>B:NE1 hit"],
                                        "R1 B:NE1 destroyed by R:TY2", "R:TY2", "R:TY1 did it"),
    "destroyed twice": (["R1 B:NE1 destroyed"], "R2 B:NE1 destroyed", "B:NE1", "already destroyed on line 4"),
    # VP
    "VP going down": (["R1 vp 2-1"], "R2 vp 1-1", "1-1", "only grow"),
    "VP beyond the objectives": ([], "R1 vp 5-3", "5-3", "more than 6 objectives"),
    "VP line without a round": ([], "vp 1-0", "1-0", "belongs to a round"),
    "VP line twice": (["R1 vp 1-0"], "R1 vp 2-0", "2-0", "already has its VP line"),
    "acting after the round's VP line": (["R1 vp 1-0"], "R1 B:NE2 move", "B:NE2", "R1 already ended"),
    "acting after a VP win": (["R1 vp 6-0", "R2 vp 11-0"], "R3 B:NE2 move", "R3",
                              "already over at 'R3': blue won by vp"),
    "result VP too low for a VP win": ([], "result: blue vp 10-7", "10-7", "inconsistent with a blue win on VP"),
    "result VP behind for a VP win": ([], "result: red vp 12-11", "12-11", "inconsistent with a red win on VP"),
    "result VP differing from the last VP line": (["R1 vp 1-0"], "result: blue manual 2-0", "2-0",
                                                  "differ from the 1-0 of R1"),
    "wipeout that is not one": ([], "result: blue wipeout", "wipeout", "not wiped out"),
    "winner wiped out": ([f"R:{u} destroyed" for u in ("BA1", "RI1", "TY1", "TY2", "TY3", "TY4", "TY5", "TY6",
                                                          "TY7", "MA1", "MA2", "MA3", "BE1")],
                         "result: red manual", "red", "cannot have won"),
    "round limit not reached": (["R5 vp 1-0"], "result: blue round_limit", "round_limit", "needs the game to last 20"),
    "a win at the round limit": (["R20 vp 5-3"], "result: blue round_limit", "blue",
                                 "cannot win by round_limit"),
    # syntax
    "neither hit nor miss": ([], "R1 B:NE2 SC>R:TY1 6+6 hti", "hti", "expected 'hit' or 'miss'"),
    "roll out of range": ([], "R1 B:NE2 SC>R:TY1 13 hit", "13", "2 to 12"),
    "die out of range": ([], "R1 B:NE2 SC>R:TY1 7+1 hit", "7+1", "1 to 6"),
    "unknown location": ([], "R1 B:GR1 GG>R:BA1 hit XX 4", "XX", "unknown hit location"),
    "bad hex": ([], "B:GR1 deploy 08a2", "08a2", "four digits"),
    "missing target": ([], "R1 B:NE2 SC>", ">", "the line ends"),
    "unknown verb": ([], "R1 B:NE2 jump 0412", "jump", "expected deploy, move"),
    "not a statement": ([], "R1 hello", "hello", "expected a round (R3), a unit id"),
    "trailing junk": ([], "R1 B:NE2 SC>R:TY1 hit 2 extra", "extra", "unexpected"),
    "unknown tag": ([], "colour: red", "colour", "unknown tag"),
    "tag given twice": ([], "rules: v2", "rules", "given twice (first on line 1)"),
    "bad date": ([], "date: 14/06/2025", "14/06/2025", "not an ISO date"),
    "result without winner": ([], "result: blue-ish", "blue-ish", "blue, red or draw"),
    # the game's length and end bound what a log may say happened (issue 32)
    "rounds below a round the log reaches": (["R4 R:BE1 destroyed"], "rounds: 3", "3", "fewer than the R4"),
    "a loss past the logged rounds": (["rounds: 3"], "R4 R:BE1 destroyed", "R:BE1", "is in R4, past the 3 rounds"),
    "a loss after a VP win": (["R1 vp 6-0", "R2 vp 12-0"], "R3 R:BE1 destroyed", "R3", "blue won by vp"),
    "a loss in a round after a wipeout": ([f"R2 R:{u} destroyed" for u in ("BA1", "RI1", "TY1", "TY2", "TY3",
                                          "TY4", "TY5", "TY6", "TY7", "MA1", "MA2", "MA3", "BE1")],
                                          "R3 B:NE2 destroyed", "R3", "blue won by wipeout"),
}


def _case(name: str) -> tuple[str, int, int, str, str]:
    before, bad, token, fragment = CASES[name]
    lines = HEADER.splitlines() + before + [bad]
    text = "\n".join(lines) + "\n"
    if not bad.startswith("result:"):
        text += "result: draw manual\n"
    before = r"(?<![\w:])" if token[0].isalnum() else ""
    after = r"(?!\w)" if token[-1].isalnum() else ""
    column = re.search(before + re.escape(token) + after, bad).start() + 1
    return text, len(lines), column, token, fragment


@pytest.mark.parametrize("name", list(CASES))
def test_each_error_names_line_column_and_token(name: str) -> None:
    text, line, column, token, fragment = _case(name)
    game, errors = parse_log(text, "t.pmimlog", strict=False)
    assert errors, "expected an error"
    e = errors[0]
    assert (e.where.file, e.where.line, e.where.column) == ("t.pmimlog", line, column), e.render()
    assert fragment in e.message
    assert repr(token) in e.message, e.message
    # strict mode raises that same first error
    with pytest.raises(ReplayError) as raised:
        parse_log(text, "t.pmimlog", strict=True)
    assert raised.value.render() == e.render()


# a game between the two units it deploys: blue first in R1, red in R2 (the engine judges it too)
LIGHT_WEAPON_LOG = (HEADER.replace("v3-mech-heavy", "v3-infantry-swarm") + "B:IN1 deploy 0510\nR:TY1 deploy 0501\n"
                    "R1 B:IN1 move 0510-0509\nR1 R:TY1 move 0501-0503\nR1 vp 0-0\nR2 R:TY1 hold\n"
                    "R2 B:IN1 LAC>R:TY1 hit 0\nresult: draw manual\n")


def test_the_light_weapon_penalty_shortens_infantry_range() -> None:
    _, errors = parse_log(LIGHT_WEAPON_LOG, "t.pmimlog", strict=False)
    # 6 hexes apart is beyond the L. Autocannon's RNG 4 less 1 for infantry
    assert len(errors) == 1 and "range of 3" in errors[0].message


MISSING_RESULT_LOG = HEADER + "R1 vp 1-0\n"


def test_missing_result_is_reported_at_the_end() -> None:
    game, errors = parse_log(MISSING_RESULT_LOG, "t.pmimlog", strict=False)
    assert game is None
    assert [(e.where.line, e.where.column) for e in errors] == [(4, 1)]
    assert "no result" in errors[0].message


HEADER_ERRORS = [
    ("rules: v9\nblue army: v3-balanced\nred army: v3-balanced\n", "v9", "unknown rules version"),
    ("rules: v3\nblue army: nope.yaml\nred army: v3-balanced\n", "nope.yaml", "not found"),
    ("rules: v3\nscenario: hold-the-hill\nblue army: v3-balanced\nred army: v3-balanced\n", "hold-the-hill",
     "unknown scenario"),
    ("rules: v3\nblue army: TW(GG ML) 3xIN(LL)\nred army: v3-balanced\n", "TW(GG ML) 3xIN(LL)",
     "requires exactly 2 Warmechs"),
    ("rules: v3\nblue army: TW(GG ML) ??\nred army: v3-balanced\n", "??", "expected an army entry"),
]


@pytest.mark.parametrize("header, token, fragment", HEADER_ERRORS)
def test_header_errors_point_at_the_value(header: str, token: str, fragment: str) -> None:
    _, errors = parse_log(header + "result: draw manual\n", "t.pmimlog", strict=False)
    e = errors[0]
    line = next(n for n, text in enumerate(header.splitlines(), 1) if token in text)
    assert (e.where.line, e.where.column) == (line, header.splitlines()[line - 1].index(token) + 1)
    assert fragment in e.message


MISSING_TAGS_LOG = "date: 2025-01-01\nresult: draw manual\n"


def test_missing_tags_are_all_reported() -> None:
    game, errors = parse_log(MISSING_TAGS_LOG, "t.pmimlog", strict=False)
    assert game is None
    assert ["rules version" in errors[0].message, "blue army" in errors[1].message,
            "red army" in errors[2].message] == [True, True, True]


LENIENT_LOG = HEADER + (
        "R1 B:NE2 SC>R:TY1 6+6 hit 2\n"     # 4: fine
        "R1 R:TY1 HAC>B:NE2 2+2 hit 3\n"    # 5: 4 + 1 < 7 cannot hit
        "R1 B:GR1 GG>R:BA1 hit\n"           # 6: no location
        "R1 R:BA1 bogus\n"                  # 7: syntax
        "R1 B:GR1 move\n"                   # 8: fine (B:GR1's activation was refused on line 6)
        "R1 B:NE9 move\n"                   # 9: unknown unit
        "result: blue manual\n"
    )


def test_lenient_mode_collects_every_error_and_keeps_the_good_lines() -> None:
    text = LENIENT_LOG
    game, errors = parse_log(text, "t.pmimlog", strict=False)
    assert [(e.where.line, e.where.column) for e in errors] == [(5, 20), (6, 19), (7, 10), (9, 4)]
    assert game is not None
    kinds = [(e.type, getattr(e, "unit", None)) for e in game.events]
    assert kinds == [("round_start", None), ("activate", "B:NE2"), ("attack", "B:NE2"), ("activate", "B:GR1"),
                     ("game_end", None)]
    # the refused attack on line 5 did no damage: B:NE2 took none
    assert not any(isinstance(e, Attack) and e.target == "B:NE2" for e in game.events)
    assert isinstance(game.events[-1], GameEnd)
    with pytest.raises(ReplayError) as first:
        parse_log(text, "t.pmimlog", strict=True)
    assert first.value.where.line == 5


REFUSED_LINE_LOG = HEADER + (
        "B:GR1 deploy 0812\n"
        "R1 B:GR1 move 0812-0808\n"   # too far: refused, GR1 stays at 0812
        "R1 B:GR1 move 0812-0810\n"   # so this is a legal move from 0812 (and GR1's activation)
        "result: draw manual\n"
    )


def test_a_refused_line_leaves_the_state_as_it_was() -> None:
    game, errors = parse_log(REFUSED_LINE_LOG, "t.pmimlog", strict=False)
    assert len(errors) == 1 and errors[0].where.line == 5
    moves = [e for e in game.events if isinstance(e, Move)]
    assert [(m.from_hex, m.to_hex) for m in moves] == [((8, 12), (8, 10))]


SAMPLE_DETAILED = REPO_ROOT / "data" / "playtests" / "sample-detailed-v3.pmimlog"
WRONG_VP_LOG = SAMPLE_DETAILED.read_text().replace("vp 1-1", "vp 2-1")  # a whole game: the engine replays it


def test_vp_totals_must_match_the_positions() -> None:
    text = WRONG_VP_LOG
    _, errors = parse_log(text, "s.pmimlog", strict=False, base_dir=SAMPLE_DETAILED.parent)
    line = next(n for n, t in enumerate(text.splitlines(), 1) if t.startswith("vp 2-1"))
    assert (errors[0].where.line, errors[0].where.column) == (line, 4)
    assert "blue scores 1 and red 1 in R1, so 1-1" in errors[0].message


LINE_AFTER_RESULT_LOG = HEADER + "result: draw manual\nR1 B:NE2 move\n"


def test_line_after_the_result_is_refused(tmp_path: Path) -> None:
    _, errors = parse_log(LINE_AFTER_RESULT_LOG, "t.pmimlog", strict=False)
    assert [(e.where.line, e.where.column) for e in errors] == [(5, 1)]
    assert "after the result line (line 4)" in errors[0].message


def test_a_game_that_reaches_the_round_limit_is_logged_as_a_draw() -> None:
    # Take and Hold: no winner under the victory rule by round 20 is a draw, whoever is ahead
    game, errors = parse_log(HEADER + "R20 vp 5-3\nresult: draw round_limit\n", "t.pmimlog", strict=False)
    assert not errors, [e.render() for e in errors]
    end = game.events[-1]
    assert isinstance(end, GameEnd) and (end.winner, end.reason, end.blue_vp, end.red_vp) == (None, "round_limit", 5, 3)


def bad_logs() -> dict[str, str]:
    """Every log this file writes to be refused, whole (for the reader-engine differential test in
    test_reader_engine_differential.py)."""
    logs = {name: _case(name)[0] for name in CASES}
    logs |= {f"header: {token}": header + "result: draw manual\n" for header, token, _ in HEADER_ERRORS}
    return logs | {"light weapon range": LIGHT_WEAPON_LOG, "no result": MISSING_RESULT_LOG,
                   "missing tags": MISSING_TAGS_LOG, "lenient mode": LENIENT_LOG, "refused line": REFUSED_LINE_LOG,
                   "VP not matching the positions": WRONG_VP_LOG, "a line after the result": LINE_AFTER_RESULT_LOG}


def test_the_engine_replaying_the_log_refuses_at_the_line_what_the_readers_own_checks_let_through(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from types import SimpleNamespace

    from pmim_analytics.engine import rulings
    from pmim_analytics.replay.manual import builder

    def no_range(left: int, fired: bool, overheated: bool, lost: bool, same_side: bool, alive: bool,
                 distance: int | None, rng: int) -> str | None:  # the reader's own check, blind to range
        return rulings.fire_refusal(left, fired, overheated, lost, same_side, alive, None, rng)

    text, line, column, token, _ = _case("target out of range")
    monkeypatch.setattr(builder, "rulings", SimpleNamespace(**{**vars(rulings), "fire_refusal": no_range}))
    game, errors = parse_log(text, "t.pmimlog", strict=False)
    assert [(e.where.line, e.where.column) for e in errors] == [(line, 4)]  # the line's unit
    assert errors[0].message.startswith("the rules engine, replaying this log, refuses 'B:NE2': "), errors[0].message
    assert "range" in errors[0].message, errors[0].message
    # and like any refused line it leaves nothing behind: the game is the one without it
    assert game is not None and not any(isinstance(e, Attack) for e in game.events)
    kept = "".join(f"{x}\n" for n, x in enumerate(text.splitlines(), 1) if n != line)
    without, _ = parse_log(kept, "t.pmimlog", strict=True)
    assert without is not None and without.events == game.events
