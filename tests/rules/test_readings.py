"""Readings in doubt (issue #29): the options, what each changes, and games played under them."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from pmim_analytics.engine.driver import play_game
from pmim_analytics.engine.spec import GameSpec
from pmim_analytics.engine.verify import verify_game
from pmim_analytics.errors import InvalidArmyError, UnknownNameError
from pmim_analytics.model.events import Attack
from pmim_analytics.model.record import GameRecord
from pmim_analytics.rules import load_army, load_scenario, validate_army
from pmim_analytics.rules.army import ArmyEntry, ArmyList, with_weapon_option
from pmim_analytics.rules.mechanics import hit_needed, vp_winner
from pmim_analytics.rules.readings import Readings, apply_readings, objective_rows_of, parse_readings
from tests.conftest import ARMIES
from tests.support.cli import pmim_in_process

BAL, HEAVY = ARMIES / "v2-playtest-balanced.yaml", ARMIES / "v2-playtest1-heavy.yaml"


def pmim(*args: str) -> subprocess.CompletedProcess[str]:
    """The command run in this process (:mod:`tests.support.cli`): what it prints and writes and
    its exit code are the point, not the process."""
    return pmim_in_process(*args)


def test_parse_readings_takes_name_value_and_refuses_the_rest() -> None:
    r = parse_readings(["hit=beat", "vp_to_win=10", "objective_rows=6/7", "weapons=alt1"])
    assert r.settings() == {"objective_rows": "6/7", "vp_to_win": 10, "hit": "beat", "weapons": "alt1"}
    assert parse_readings(None) == Readings()
    for bad in (["bogus=1"], ["hit"], ["hit=over"], ["vp_to_win=ten"], ["objective_rows=6"], ["weapons=alt"],
                ["hit=beat", "hit=at_least"]):
        with pytest.raises(UnknownNameError):
            parse_readings(bad)


def test_objective_rows_swap_the_parity_and_keep_the_half_turn_symmetry() -> None:
    scen = load_scenario("take-and-hold")
    assert objective_rows_of(scen) == "7/6"
    swapped = apply_readings(scen, Readings(objective_rows="6/7"))
    assert swapped.objectives.hexes == ((2, 6), (5, 7), (8, 6), (11, 7), (14, 6), (17, 7))
    assert {(19 - c, 13 - r) for c, r in swapped.objectives.hexes} == set(swapped.objectives.hexes)
    assert apply_readings(scen, Readings(objective_rows="7/6")) == scen
    with pytest.raises(UnknownNameError, match="centre line"):
        apply_readings(scen, Readings(objective_rows="5/8"))


def test_vp_to_win_10_lets_ten_vp_win_and_11_is_the_scenario() -> None:
    scen = load_scenario("take-and-hold")
    assert vp_winner(scen.victory, 10, 4) is None
    assert vp_winner(apply_readings(scen, Readings(vp_to_win=10)).victory, 10, 4) == "blue"
    assert vp_winner(apply_readings(scen, Readings(vp_to_win=11)).victory, 11, 4) == "blue"
    assert Readings(vp_to_win=11, hit="at_least", weapons="listed").relative_to(scen) == Readings()


def test_hit_needed() -> None:
    assert hit_needed(7) == 7 and hit_needed(7, "at_least") == 7 and hit_needed(7, "beat") == 8


def _rosters(weapons: str | None = None) -> tuple:
    blue = validate_army(with_weapon_option(load_army(BAL), weapons), "v2")
    red = validate_army(load_army(HEAVY), "v2")
    return blue, red


def test_a_game_under_readings_records_them_and_verifies_under_them() -> None:
    blue, red = _rosters()
    plain = play_game(GameSpec.create("v2", "take-and-hold", blue, red), "greedy", "greedy", 5, played="2026-01-01")
    same = play_game(GameSpec.create("v2", "take-and-hold", blue, red, readings=Readings(vp_to_win=11)),
                     "greedy", "greedy", 5, played="2026-01-01")
    assert plain.header.readings is None and plain.header.version == 1
    assert same.header == plain.header and same.events == plain.events

    spec = GameSpec.create("v2", "take-and-hold", blue, red, readings=Readings(hit="beat"))
    assert all(p.needed == p.def_ + 1 for p in spec.profiles)
    game = play_game(spec, "greedy", "greedy", 5, played="2026-01-01")
    assert game.header.readings == {"hit": "beat"} and game.header.version == 3
    attacks = [e for e in game.events if isinstance(e, Attack)]
    defence = {p.id: p.def_ for p in spec.profiles}
    assert attacks and all(a.needed == defence[a.target] + 1 for a in attacks)
    assert all(a.hit == (sum(a.roll) + a.acc > defence[a.target]) for a in attacks if a.roll is not None)
    assert verify_game(game) == []
    # the same events read as written: every roll that just reached DEF 7 is now a wrong miss
    edge = [a for a in attacks if a.roll is not None and sum(a.roll) + a.acc == defence[a.target]]
    assert edge, "the seed should give at least one roll exactly at DEF"
    stripped = GameRecord(game.header.model_copy(update={"readings": None, "version": 1}), game.events)
    assert verify_game(stripped)


def test_the_balanced_lists_uncertain_weapons_have_legal_alternatives() -> None:
    army = load_army(BAL)
    uncertain = [(e.type, e.weapons) for e in army.units if e.weapon_options]
    assert uncertain == [("Tyrant", ("HL",)), ("GEV", ("ML",))]
    for choice, tyrant, gev in (("alt1", "HPB", "SC"), ("alt2", "HAC", "LPB")):
        roster = validate_army(with_weapon_option(army, choice), "v2")
        weapons = [u.weapons for u in roster.units]
        assert (tyrant,) in weapons and (gev,) in weapons and ("HL",) not in weapons and ("ML",) not in weapons
    bad = ArmyList(name="x", rules="v2", units=(*army.units[:-1],
                                                ArmyEntry(type="ODA", weapons=("LPC",), count=2,
                                                          weapon_options=(("GG",),))))
    with pytest.raises(InvalidArmyError, match="weapons=alt1"):
        validate_army(bad, "v2")


def test_cli_plays_under_readings_the_replay_verifies_and_ingests(tmp_path: Path) -> None:
    out = tmp_path / "g.jsonl"
    r = pmim("play", "--blue", str(BAL), "--red", str(HEAVY), "--seed", "2", "--reading", "hit=beat",
             "--reading", "objective_rows=6/7", "--reading", "weapons=alt1", "--out", str(out))
    assert r.returncode == 0, r.stderr
    assert "readings objective_rows=6/7, hit=beat, weapons=alt1" in r.stdout
    header = json.loads(out.read_text().splitlines()[0])
    assert header["version"] == 3
    assert header["readings"] == {"objective_rows": "6/7", "hit": "beat", "weapons": "alt1"}
    assert ["SC"] in [u["weapons"] for u in header["sides"]["blue"]["units"]]
    r = pmim("replay", "verify", str(out))
    assert r.returncode == 0 and "0 with violations" in r.stdout + r.stderr
    db = tmp_path / "x.duckdb"
    r = pmim("ingest", str(out), "--db", str(db))
    assert r.returncode == 0, r.stdout + r.stderr
    assert "loaded 1 game" in r.stdout and "rejected 0" in r.stdout
    # the same game without its readings: the store's check finds the needed numbers wrong
    lines = out.read_text().splitlines()
    head = json.loads(lines[0])
    del head["readings"]
    head["version"] = 1
    stripped = tmp_path / "stripped.jsonl"
    stripped.write_text("\n".join([json.dumps(head), *lines[1:]]) + "\n")
    r = pmim("ingest", str(stripped), "--db", str(tmp_path / "y.duckdb"))
    assert "rejected 1" in r.stdout + r.stderr


def test_cli_refuses_an_unknown_reading_in_one_sentence() -> None:
    r = pmim("simulate", "--blue", str(BAL), "--red", str(HEAVY), "--games", "2", "--reading", "parity=odd")
    assert r.returncode == 2
    assert "unknown reading 'parity=odd'" in r.stderr and "Traceback" not in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1
