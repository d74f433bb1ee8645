"""Conformance (many engine games, each verified) and tampered replays that verify must catch."""

from __future__ import annotations

import json
from collections import Counter
from functools import cache
from pathlib import Path

import pytest

from pmim_analytics.engine.driver import play_game
from pmim_analytics.engine.spec import GameSpec
from pmim_analytics.engine.verify import Violation, verify_game
from pmim_analytics.replay.format import GameRecord, write_game
from pmim_analytics.replay.sources import read_game_with_lines
from pmim_analytics.rules import load_army, validate_army
from pmim_analytics.rules.army import Roster
from pmim_analytics.sim.batch import BatchSpec, play_batch_game
from tests.conftest import ARMIES

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "armies"


@cache
def army(name: str, rules: str) -> Roster:
    path = FIXTURES / f"{name}.yaml" if (FIXTURES / f"{name}.yaml").exists() else ARMIES / f"{name}.yaml"
    return validate_army(load_army(path), rules)


# (rules, army A, army B): every version, a variant, every body type.
MATCHUPS = [
    ("v1", "v1-avian-mix", "v1-heavy"),
    ("v2", "v2-avians", "v2-playtest1-heavy"),
    ("v2-heavy-def6", "v2-playtest-balanced", "v2-playtest2-infantry"),
    ("v3", "v3-beasts", "v3-balanced"),
    ("v3", "v3-tank-heavy", "v3-infantry-swarm"),
    ("v3-llaser-rpt4", "v3-fast-gev", "v3-mech-heavy"),
]
BOT_PAIRS = [("random", "random")] * 30 + [("greedy", "random"), ("tactician", "greedy"), ("random", "tactician")]


@pytest.fixture(scope="module")
def seen() -> Counter:
    """The kinds of event the conformance games hit, shared by the module's tests (a module
    fixture: ``make test`` keeps the tests that use it together on one worker, in file order)."""
    return Counter()


@pytest.mark.parametrize(("rules", "a", "b"), MATCHUPS)
def test_engine_games_verify_clean(rules: str, a: str, b: str, seen: Counter) -> None:
    for n, (bot_a, bot_b) in enumerate(BOT_PAIRS):
        batch = BatchSpec(rules, "take-and-hold", army(a, rules), army(b, rules), bot_a, bot_b, seed=11, games=99)
        record = play_batch_game(batch, n)
        found = verify_game(record)
        assert found == [], f"{rules} {a} v {b} game {n} ({bot_a} v {bot_b}): {found[:3]}"
        seen.update(e.type for e in record.events)
        seen.update(f"end:{e.reason}" for e in record.events if e.type == "game_end")
        seen.update("reroll" for e in record.events if e.type == "attack" and len(e.location_rolls) > 1)


def test_conformance_games_exercised_every_rule(seen: Counter) -> None:
    """Runs after the conformance games: they must have hit every kind of event."""
    if not seen:
        pytest.skip("run together with test_engine_games_verify_clean")
    for kind in ("move", "attack", "location_destroyed", "immobilized", "disarmed", "unit_destroyed", "vp",
                 "round_end", "end:vp", "reroll"):
        assert seen[kind] > 0, f"no {kind} in the conformance games"


# -- tampering -------------------------------------------------------------------------
def _rich_enough(record: GameRecord) -> bool:
    """A game with every situation the tampering tests edit: a lost location hit again, kills, VP."""
    evs = record.events
    for n, lost in enumerate(evs):
        if lost.type == "location_destroyed" and lost.location != "CT" and any(
                e.type == "attack" and e.target == lost.unit and e.hit and e.location != lost.location
                for e in evs[n:]):
            return any(e.type == "unit_destroyed" for e in evs) and any(e.type == "vp" for e in evs)
    return False


@cache
def sample_game() -> GameRecord:
    spec = GameSpec.create("v3", "take-and-hold", army("v3-beasts", "v3"), army("v3-tank-heavy", "v3"))
    for i in range(50):
        record = play_game(spec, "greedy", "tactician", seed=3, game_index=i, played="2026-01-01")
        if _rich_enough(record):
            return record
    raise AssertionError("no sample game with a lost location hit again in 50 games")


def tampered(tmp_path: Path, edit) -> tuple[list[Violation], list[dict]]:  # noqa: ANN001
    """Write the sample game, let ``edit`` change its event dicts (seq renumbered), verify it."""
    path = tmp_path / "game.jsonl"
    write_game(sample_game(), path)
    lines = path.read_text().splitlines()
    events = [json.loads(x) for x in lines[1:]]
    edit(events)
    for n, ev in enumerate(events, start=1):
        ev["seq"] = n
    path.write_text("\n".join([lines[0], *(json.dumps(e) for e in events)]) + "\n")
    loaded = read_game_with_lines(path)
    return verify_game(loaded.record, loaded.lines), events


def line_of(events: list[dict], ev: dict) -> int:
    return events.index(ev) + 2  # the header is line 1


def first(events: list[dict], pred) -> dict:  # noqa: ANN001
    return next(e for e in events if pred(e))


def test_the_untouched_sample_verifies_clean(tmp_path: Path) -> None:
    found, _ = tampered(tmp_path, lambda evs: None)
    assert found == []


def test_catches_a_miss_recorded_as_a_hit(tmp_path: Path) -> None:
    target = {}

    def edit(evs: list[dict]) -> None:
        ev = first(evs, lambda e: e["type"] == "attack" and not e["hit"] and e["needed"] - e["acc"] >= 4)
        ev["roll"] = [1, 1]
        ev["hit"] = True
        target.update(ev)

    found, evs = tampered(tmp_path, edit)
    line = line_of(evs, target)
    assert any(v.line == line and "hit is True, the rules give False" in v.message for v in found), found


def test_catches_wrong_damage(tmp_path: Path) -> None:
    target = {}

    def edit(evs: list[dict]) -> None:
        ev = first(evs, lambda e: e["type"] == "attack" and e["hit"] and e["damage"] > 0)
        ev["damage"] += 1
        target.update(ev)

    found, evs = tampered(tmp_path, edit)
    assert found[0].line == line_of(evs, target)
    assert "damage is" in found[0].message and "(STR - ARM) x RPT" in found[0].message


def test_catches_an_unneeded_location_reroll(tmp_path: Path) -> None:
    target = {}

    def edit(evs: list[dict]) -> None:
        ev = first(evs, lambda e: e["type"] == "attack" and e["location"] is not None)
        ev["location_rolls"] = [*ev["location_rolls"], 6]
        target.update(ev)

    found, evs = tampered(tmp_path, edit)
    assert found and found[0].line == line_of(evs, target)
    assert "location rolls [6] were not needed" in found[0].message


def test_catches_a_missing_reroll(tmp_path: Path) -> None:
    """A location roll that lands on a destroyed location must be followed by another."""
    target = {}

    def edit(evs: list[dict]) -> None:
        lost = first(evs, lambda e: e["type"] == "location_destroyed" and e["location"] != "CT" and any(
            a["type"] == "attack" and a["target"] == e["unit"] and a["hit"] and a["location"] != e["location"]
            for a in evs[evs.index(e):]))
        chart = {"LA": 1, "RA": 2, "LL": 3, "RL": 4, "LT": 5, "RT": 6}
        after = evs.index(lost)
        ev = first(evs[after:], lambda e: e["type"] == "attack" and e["target"] == lost["unit"] and e["hit"]
                   and e["location"] != lost["location"])
        ev["location_rolls"] = [chart[lost["location"]]]
        target.update(ev)

    found, evs = tampered(tmp_path, edit)
    line = line_of(evs, target)
    assert any(v.line == line and "must be re-rolled" in v.message for v in found), found


def test_catches_a_unit_acting_twice_in_a_round(tmp_path: Path) -> None:
    target = {}

    def edit(evs: list[dict]) -> None:
        acts = [e for e in evs if e["type"] == "activate" and e["round"] == 2]
        first_unit = acts[0]["unit"]
        again = first(acts[1:], lambda e: e["unit"][0] == first_unit[0])
        again["unit"] = first_unit
        target.update(again)

    found, evs = tampered(tmp_path, edit)
    assert found[0].line == line_of(evs, target)
    assert "has already activated in round 2" in found[0].message


def test_catches_a_move_beyond_mov(tmp_path: Path) -> None:
    target = {}

    def edit(evs: list[dict]) -> None:
        ev = first(evs, lambda e: e["type"] == "move" and e["round"] == 1 and e["unit"].startswith("B:TY"))
        ev["to_hex"] = [ev["from_hex"][0], ev["from_hex"][1] - 4]
        target.update(ev)

    found, evs = tampered(tmp_path, edit)
    assert found[0].line == line_of(evs, target)
    assert "4 hexes away, MOV 2" in found[0].message


def test_catches_stacking(tmp_path: Path) -> None:
    target = {}

    def edit(evs: list[dict]) -> None:
        ev = first(evs, lambda e: e["type"] == "move")  # the first move: everyone else is where it deployed
        friend = first(evs, lambda e: e["type"] == "deploy" and e["unit"][0] == ev["unit"][0]
                       and e["unit"] != ev["unit"])
        ev["to_hex"] = friend["hex"]
        target.update(ev)

    found, evs = tampered(tmp_path, edit)
    assert found[0].line == line_of(evs, target)
    assert "(no stacking)" in found[0].message


def test_catches_an_attack_out_of_range(tmp_path: Path) -> None:
    target = {}

    def edit(evs: list[dict]) -> None:
        ev = first(evs, lambda e: e["type"] == "attack" and e["round"] == 1)
        far = first(evs, lambda e: e["type"] == "deploy" and e["unit"][0] != ev["unit"][0]
                    and e["unit"] != ev["target"])
        ev["target"] = far["unit"]
        target.update(ev)

    found, evs = tampered(tmp_path, edit)
    assert found[0].line == line_of(evs, target)
    assert "hexes away" in found[0].message and "range" in found[0].message


def test_catches_a_wrong_vp_and_a_wrong_result(tmp_path: Path) -> None:
    target = {}

    def edit(evs: list[dict]) -> None:
        ev = first(evs, lambda e: e["type"] == "vp")
        ev["side"] = "red" if ev["side"] == "blue" else "blue"
        target.update(ev)
        end = evs[-1]
        end["winner"] = "red" if end["winner"] == "blue" else "blue"

    found, evs = tampered(tmp_path, edit)
    assert found[0].line == line_of(evs, target) and "side is" in found[0].message
    assert found[-1].line == len(evs) + 1 and "winner is" in found[-1].message


def test_catches_missing_and_invented_events(tmp_path: Path) -> None:
    def edit(evs: list[dict]) -> None:
        gone = first(evs, lambda e: e["type"] == "unit_destroyed")
        evs.remove(gone)

    found, _ = tampered(tmp_path, edit)
    assert any("missing unit_destroyed" in v.message for v in found), found

    def invent(evs: list[dict]) -> None:
        i = evs.index(first(evs, lambda e: e["type"] == "round_end"))
        evs.insert(i, {"seq": 0, "round": evs[i]["round"], "type": "vp", "objective": 5, "side": "blue",
                       "blue": [], "red": []})

    found, _ = tampered(tmp_path, invent)
    assert any("unexpected vp for blue at objective 5" in v.message for v in found), found


def test_catches_a_truncated_replay(tmp_path: Path) -> None:
    found, evs = tampered(tmp_path, lambda e: e.__delitem__(slice(len(e) // 2, None)))
    assert found[-1].message == "the replay stops before the game is over"


def test_catches_an_illegal_army(tmp_path: Path) -> None:
    path = tmp_path / "game.jsonl"
    write_game(sample_game(), path)
    lines = path.read_text().splitlines()
    header = json.loads(lines[0])
    header["sides"]["blue"]["units"][0]["weapons"] = ["GG", "GG", "GG"]
    path.write_text("\n".join([json.dumps(header), *lines[1:]]) + "\n")
    loaded = read_game_with_lines(path)
    found = verify_game(loaded.record, loaded.lines)
    assert found and found[0].line == 1 and "army rules" in found[0].message


# -- a table log that deploys only some units (verify_game's absent_undeployed) -----------------
PARTIAL = ("rules: v3\nblue army: v3-infantry-swarm\nred army: v3-tank-heavy\nB:IN1 deploy 0510\nR:TY1 deploy 0501\n"
           "R1 B:IN1 move 0510-0509\nR1 R:TY1 move 0501-0503\nR1 vp 0-0\n{r2}result: draw manual\n")


def _partial(r2: str = "") -> GameRecord:
    from pmim_analytics.replay.manual import parse_log

    game, errors = parse_log(PARTIAL.format(r2=r2), "partial.pmimlog", strict=False)
    assert game is not None and not errors, errors
    return game


def test_a_log_deploying_some_units_is_replayed_between_them_when_asked() -> None:
    from pmim_analytics.errors import ReplayError

    game = _partial()
    with pytest.raises(ReplayError, match="never deploys"):
        verify_game(game)  # by default the engine cannot replay it
    assert verify_game(game, absent_undeployed=True) == []
    # the rules still hold between the two: R2 is red's round to begin, not blue's
    bad = _partial("R2 B:IN1 move 0509-0508\n")
    assert [v.message for v in verify_game(bad, absent_undeployed=True)] == [
        "round_start: first is 'blue', the rules give 'red'", "B:IN1 cannot activate: it is red's turn"]
    # unless the log may leave out activations (any_turn_order, a table log's leniency)
    assert verify_game(bad, absent_undeployed=True, any_turn_order=True) == []


def test_a_log_naming_a_unit_it_never_deploys_is_still_not_replayed() -> None:
    from pmim_analytics.errors import ReplayError

    game = _partial("R2 R:TY2 hold\n")
    with pytest.raises(ReplayError, match="never deploys"):
        verify_game(game, absent_undeployed=True)


def test_a_log_that_never_says_where_units_stand_is_judged_when_asked() -> None:
    from pmim_analytics.errors import ReplayError
    from pmim_analytics.replay.manual import parse_log

    head = "rules: v3\nblue army: v3-mech-heavy\nred army: v3-tank-heavy\n"
    game, errors = parse_log(head + "R1 B:NE2 SC>R:TY1 6+6 hit\nresult: draw manual\n", "u.pmimlog", strict=False)
    assert game is not None and not errors
    with pytest.raises(ReplayError, match="summary-form"):
        verify_game(game)
    # no range is measured to a unit whose position nobody knows: the attack stands
    assert verify_game(game, unknown_positions=True) == []
    # the rest of the rules still hold: the same attack made twice
    twice = GameRecord(game.header, (*game.events[:-1], *game.events[-2:]))
    assert verify_game(twice, unknown_positions=True)
    # a round without its VP line ends as the next begins; a loss without its attack is as logged
    later = parse_log(head + "R1 B:NE2 hold\nR1 R:TY1 destroyed\nR2 R:TY2 hold\nR2 vp 0-1\nresult: red 0-1\n",
                      "p.pmimlog", strict=False)[0]
    assert later is not None
    assert verify_game(later, unknown_positions=True) == []
    # and the rules still hold across rounds: R3 is blue's to begin
    wrong = parse_log(head + "R1 B:NE2 hold\nR3 R:TY2 hold\nresult: draw\n", "w.pmimlog", strict=False)[0]
    assert wrong is not None
    assert any("blue" in v.message for v in verify_game(wrong, unknown_positions=True))


def test_a_table_logs_vp_totals_and_result_are_judged_by_the_readers_rules_when_asked() -> None:
    from dataclasses import replace

    from pmim_analytics.model.events import GameEnd, RoundEnd
    from pmim_analytics.replay.manual import parse_log

    head = "rules: v3\nblue army: v3-mech-heavy\nred army: v3-tank-heavy\n"
    summary, errors = parse_log(head + "R:TY1 destroyed\nresult: blue vp 11-7\n", "s.pmimlog", strict=False)
    assert summary is not None and not errors
    # a summary log's result is taken as logged, judged by rulings.result_refusal as the reader judges it
    assert verify_game(summary, unknown_positions=True) == []
    *rest, end = summary.events
    assert isinstance(end, GameEnd)
    for changed, why in ((replace(end, reason="wipeout"), "the loser is not wiped out"),
                         (replace(end, blue_vp=6), "the VP do not give that side a win on VP"),
                         (replace(end, blue_vp=999), "more VP than the objectives give in its rounds")):
        found = verify_game(GameRecord(summary.header, (*rest, changed)), unknown_positions=True)
        assert [v.message.split(": ", 1)[1] for v in found] == [f"the result cannot be: {why}"]
    # a VP line's totals, taken as logged, only grow (rulings.vp_line_refusal)
    game, errors = parse_log(head + "R1 B:NE2 hold\nR1 vp 1-0\nR2 R:TY2 hold\nR2 vp 1-1\nresult: draw\n",
                             "v.pmimlog", strict=False)
    assert game is not None and not errors
    assert verify_game(game, unknown_positions=True) == []
    fell = tuple(replace(e, blue_vp=0) if isinstance(e, RoundEnd) and e.round == 2 else e for e in game.events)
    found = verify_game(GameRecord(game.header, fell), unknown_positions=True)
    assert found[0].message == "round_end: VP 0-1 cannot follow 1-0: VP totals only grow"
