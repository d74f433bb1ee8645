"""Manual logs that are valid: the events and header they read into."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from pmim_analytics.errors import ReplayError
from pmim_analytics.model.events import (
    VP,
    Activate,
    Attack,
    Deploy,
    GameEnd,
    LocationDestroyed,
    Move,
    RoundEnd,
    RoundStart,
    UnitDestroyed,
)
from pmim_analytics.replay.format import compute_game_id, read_game, write_game
from pmim_analytics.replay.manual import LOG_SUFFIX, format_log, parse_log, read_log
from pmim_analytics.rules import build_roster, load_army
from pmim_analytics.rules.catalogue import REPO_ROOT

DATA = REPO_ROOT / "data"
PLAYTESTS = DATA / "playtests"

HEADER = """\
rules: v3
date: 2025-06-14
blue player: Ann
red player: Bob
blue army: v3-mech-heavy
red army: v3-tank-heavy
"""


def parse(body: str, header: str = HEADER):
    game, errors = parse_log(header + body, "t.pmimlog", strict=False)
    assert errors == [], [e.render() for e in errors]
    assert game is not None
    return game


def test_header_is_a_manual_replay_header_with_prefixed_units_and_content_ids() -> None:
    game = parse("result: draw manual\n")
    h = game.header
    assert (h.source, h.rules, h.scenario, h.played) == ("manual", "v3", "take-and-hold", "2025-06-14")
    assert (h.map.columns, h.map.rows) == (20, 14)
    blue = build_roster(load_army(DATA / "armies" / "v3-mech-heavy.yaml"), "v3")
    assert h.sides["blue"].player == "Ann"
    assert h.sides["blue"].name == "Mech-heavy"
    assert h.sides["blue"].army_hash == blue.content_hash()
    assert h.sides["blue"].points == blue.points
    assert [u.id for u in h.sides["blue"].units] == [f"B:{u.id}" for u in blue.units]
    assert h.sides["red"].units[0].id == "R:BA1"
    assert h.game_id == compute_game_id(h.model_dump(mode="json"), game.events)


def test_same_text_same_id_and_comments_do_not_count() -> None:
    a = parse("result: draw manual\n")
    b = parse("# a comment\n\nresult: draw manual   # why\n")
    c = parse("result: blue manual\n")
    assert a.header.game_id == b.header.game_id != c.header.game_id


def test_detailed_attack_line_becomes_an_attack_with_known_fields() -> None:
    game = parse(
        "R0\nB:GR1 deploy 0812\nR:BA1 deploy 0801\n"
        "R1\nB:GR1 move 0812-0810\nR:BA1 move 0801-0804\n"
        "R2 R:BA1 move 0807\n"
        "R2 B:GR1 GG>R:BA1 5+5 hit LT(5) 4\n"
        "result: draw manual\n"
    )
    ev = game.events
    assert [type(e) for e in ev] == [Deploy, Deploy, RoundStart, Activate, Move, Activate, Move, RoundStart,
                                     Activate, Move, Activate, Attack, LocationDestroyed, GameEnd]
    assert [e.seq for e in ev] == list(range(1, len(ev) + 1))
    assert ev[0] == Deploy(seq=1, round=0, unit="B:GR1", hex=(8, 12))
    assert ev[2] == RoundStart(seq=3, round=1, first="blue")
    assert ev[7] == RoundStart(seq=8, round=2, first="red")
    assert ev[9] == Move(seq=10, round=2, unit="R:BA1", from_hex=(8, 4), to_hex=(8, 7), path=3)
    attack = ev[11]
    assert attack == Attack(seq=12, round=2, unit="B:GR1", weapon="GG", mount="LA", target="R:BA1", distance=3,
                            roll=(5, 5), acc=1, needed=8, hit=True, location="LT", location_rolls=(5,),
                            damage=4, overkill=1)
    assert ev[12] == LocationDestroyed(seq=13, round=2, unit="R:BA1", location="LT", by="B:GR1")
    assert ev[13] == GameEnd(seq=14, round=2, winner=None, reason="manual", rounds=2, blue_vp=None, red_vp=None)


def test_the_issue_example_line_with_a_roll_total() -> None:
    # R2 B:TW1 MAC>R:TY3 9 hit LT 3 -- v3 balanced has a Vinge with MAC; a Tyrant has no location.
    header = HEADER.replace("v3-mech-heavy", "v3-balanced")
    game = parse("R2 B:VI1 MAC>R:TY3 9 hit 0\nresult: draw manual\n", header)
    attack = next(e for e in game.events if isinstance(e, Attack))
    # a total is checked (9 + ACC 1 >= DEF 7) but the dice are not known: roll stays None
    assert (attack.roll, attack.hit, attack.damage, attack.distance, attack.needed) == (None, True, 0, None, 7)


def test_attack_without_dice_records_hit_damage_and_overkill_from_the_rules() -> None:
    game = parse("R1 R:TY1 HAC>B:NE1 hit\nR1 B:NE1 destroyed by R:TY1\nresult: red manual\n")
    attack, destroyed = [e for e in game.events if isinstance(e, (Attack, UnitDestroyed))]
    assert (attack.roll, attack.damage, attack.overkill, attack.location_rolls) == (None, 3, 0, ())
    # the marker confirms the derived event: one unit_destroyed, not two
    assert destroyed == UnitDestroyed(seq=destroyed.seq, round=1, unit="B:NE1", by="R:TY1")


def test_torso_hits_destroy_a_humanoid_and_legs_immobilize() -> None:
    game = parse(
        "R1 B:GR1 GG>R:BA1 hit LT 4\nR2 B:GR1 GG>R:BA1 hit RT 4\n"
        "R2 B:PA1 LL destroyed\nR2 B:PA1 RL destroyed\n"
        "result: draw manual\n"
    )
    kinds = [(e.type, getattr(e, "unit", None)) for e in game.events if e.type not in ("activate", "round_start")]
    assert kinds == [("attack", "B:GR1"), ("location_destroyed", "R:BA1"), ("attack", "B:GR1"),
                     ("location_destroyed", "R:BA1"), ("unit_destroyed", "R:BA1"),
                     ("location_destroyed", "B:PA1"), ("location_destroyed", "B:PA1"), ("immobilized", "B:PA1"),
                     ("game_end", None)]


def test_vp_events_are_worked_out_from_positions_when_every_unit_is_placed() -> None:
    game = read_log(PLAYTESTS / "sample-detailed-v3.pmimlog")
    r1 = [e for e in game.events if e.round == 1 and isinstance(e, (VP, RoundEnd))]
    assert r1[0] == VP(seq=r1[0].seq, round=1, objective=3, side="red", blue=(), red=("R:RI1",))
    assert r1[1] == VP(seq=r1[1].seq, round=1, objective=4, side="blue", blue=("B:NE2",), red=())
    assert r1[2] == RoundEnd(seq=r1[2].seq, round=1, blue_vp=1, red_vp=1)


def test_without_positions_only_the_round_end_totals_are_recorded() -> None:
    game = parse("R1 vp 1-0\nR2 vp 3-1\nresult: blue manual\n")
    assert [e.type for e in game.events] == ["round_end", "round_end", "game_end"]
    assert game.events[-1] == GameEnd(seq=3, round=2, winner="blue", reason="manual", rounds=2, blue_vp=3, red_vp=1)


def test_summary_form_units_destroyed_with_and_without_round() -> None:
    game = parse(
        "rounds: 9\n"
        "R4 B:NE1 destroyed\n"
        "R? R:TY1 destroyed by B:GR1\n"
        "B:PA1 LA destroyed\n"
        "result: red vp 8-11\n"
    )
    assert game.events == (
        UnitDestroyed(seq=1, round=4, unit="B:NE1", by=None),
        UnitDestroyed(seq=2, round=None, unit="R:TY1", by="B:GR1"),
        LocationDestroyed(seq=3, round=None, unit="B:PA1", location="LA", by=None),
        GameEnd(seq=4, round=9, winner="red", reason="vp", rounds=9, blue_vp=8, red_vp=11),
    )


def test_inline_army_reads_like_the_same_army_file() -> None:
    inline = HEADER.replace("blue army: v3-mech-heavy",
                            "blue army name: Mech-heavy\n"
                            "blue army: GR(GG ML MAC) PA(HPB HAC) NE(ML) NE(SC) NE(MPC) TY(HAC) TY(HL) TY(HPB)")
    a = parse("result: draw manual\n")
    b = parse("result: draw manual\n", inline)
    assert a.header.sides["blue"] == b.header.sides["blue"]
    assert a.header.game_id == b.header.game_id


def test_army_path_relative_to_the_log(tmp_path: Path) -> None:
    (tmp_path / "armies").mkdir()
    (tmp_path / "armies" / "mine.yaml").write_text((DATA / "armies" / "v3-balanced.yaml").read_text())
    log = tmp_path / f"game{LOG_SUFFIX}"
    log.write_text(HEADER.replace("v3-mech-heavy", "armies/mine.yaml") + "result: blue manual\n")
    assert read_log(log).header.sides["blue"].name == "Balanced"


def test_playtest_1_matches_the_post() -> None:
    game = read_log(PLAYTESTS / "playtest-1.pmimlog")
    h = game.header
    assert (h.source, h.rules, h.scenario) == ("manual", "v2", "take-and-hold")
    assert (h.sides["blue"].player, h.sides["red"].player) == ("Designer", "Richard")
    balanced = build_roster(load_army(DATA / "armies" / "v2-playtest-balanced.yaml"))
    heavy = build_roster(load_army(DATA / "armies" / "v2-playtest1-heavy.yaml"))
    assert h.sides["blue"].army_hash == balanced.content_hash()
    assert h.sides["red"].army_hash == heavy.content_hash()
    end = game.events[-1]
    assert isinstance(end, GameEnd)
    # the balanced list won on VP: more than 10 and ahead (the totals themselves are reconstructed)
    assert (end.winner, end.reason) == ("blue", "vp")
    assert end.blue_vp > 10 and end.blue_vp > end.red_vp
    assert end.rounds is None


def test_playtest_2_matches_the_post() -> None:
    game = read_log(PLAYTESTS / "playtest-2.pmimlog")
    h = game.header
    assert h.rules == "v2"
    infantry = build_roster(load_army(DATA / "armies" / "v2-playtest2-infantry.yaml"))
    assert h.sides["red"].army_hash == infantry.content_hash()
    tw = next(u for u in h.sides["blue"].units if u.id == "B:TW1")
    assert dict(zip(tw.mounts, tw.weapons, strict=True))["LA"] == "GG"
    assert game.events == (
        LocationDestroyed(seq=1, round=None, unit="B:TW1", location="LA", by=None),
        GameEnd(seq=2, round=None, winner="red", reason="manual", rounds=None, blue_vp=None, red_vp=None),
    )


@pytest.mark.parametrize("path", sorted(PLAYTESTS.glob(f"*{LOG_SUFFIX}")), ids=lambda p: p.name)
def test_every_shipped_log_reads_strictly_and_survives_the_json_lines_format(path: Path, tmp_path: Path) -> None:
    game = read_log(path)
    again = read_game(write_game(game, tmp_path / "g.jsonl"))
    assert again == game
    rewritten, errors = parse_log(format_log(game), "w.pmimlog")
    assert errors == [] and rewritten == game


def test_read_log_reports_unreadable_files(tmp_path: Path) -> None:
    with pytest.raises(ReplayError, match="file not found"):
        read_log(tmp_path / "missing.pmimlog")
    bad = tmp_path / "bad.pmimlog"
    bad.write_bytes(b"rules: v3\n\xff\xfe\n")
    with pytest.raises(ReplayError, match="not UTF-8") as e:
        read_log(bad)
    assert e.value.where.line == 2


def _doc_example(first_line: str) -> str:
    text = (REPO_ROOT / "docs" / "manual-logs.md").read_text()
    return next(b for b in re.findall(r"```\n(.*?)```", text, re.S) if b.startswith(first_line))


@pytest.mark.parametrize("first_line", ["# Sunday game", "rules: v2"])
def test_the_docs_examples_are_valid_logs(first_line: str) -> None:
    game, errors = parse_log(_doc_example(first_line), "doc.pmimlog", base_dir=PLAYTESTS)
    assert errors == [] and game is not None


def test_windows_line_endings_tabs_and_a_byte_order_mark_read_alike(tmp_path: Path) -> None:
    text = "rules: v3\nblue army: v3-balanced\nred army: v3-tank-heavy\nR1 B:GE1 move\nresult: draw\n"
    plain = tmp_path / "plain.pmimlog"
    plain.write_text(text)
    windows = tmp_path / "windows.pmimlog"
    windows.write_bytes(b"\xef\xbb\xbf" + text.replace(" B:GE1", "\tB:GE1").replace("\n", "\r\n").encode())
    assert read_log(windows) == read_log(plain)


def test_case_and_spacing_around_the_arrow_do_not_matter() -> None:
    canonical = parse("R1 B:GR1 GG>R:BA1 5+5 hit LT(5) 4\nR:BA1 LT destroyed by B:GR1\nR1 vp 0-0\n"
                      "result: draw manual\n")
    relaxed = parse("r1 b:gr1 gg > r:ba1 5+5 HIT lt(5) 4\nr:ba1 lt DESTROYED BY b:gr1\nr1 VP 0-0\n"
                    "result: DRAW Manual\n", HEADER.replace("rules:", "Rules:"))
    assert relaxed == canonical
