"""``pmim log write`` checks before it writes: a rules-breaking replay is refused with its
first violation, and names are escaped so that no field can start a log line; every replay
that verifies prints to a log that reads back as the same game (a property). What is checked
is what the command prints and its exit code, so it runs in the test process
(:func:`tests.support.cli.pmim_in_process`; a traceback fails the test)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pmim_analytics.errors import Location
from pmim_analytics.model.record import compute_game_id
from pmim_analytics.replay.format import parse_event, read_game
from pmim_analytics.replay.manual.roundtrip import round_trip_problem
from tests.adversarial.test_cli_attacks import good_replays
from tests.support.cli import pmim_in_process as pmim

__all__ = ["good_replays"]


def edited(good: Path, out: Path, change: Callable[[dict[str, Any], list[dict[str, Any]]], None]) -> Path:
    """``good`` changed by ``change(header, events)`` with its game id recomputed to fit."""
    lines = good.read_text(encoding="utf-8").splitlines()
    head, events = json.loads(lines[0]), [json.loads(x) for x in lines[1:]]
    change(head, events)
    head["game_id"] = compute_game_id(head, [parse_event(e, Location("x")) for e in events])
    out.write_text("\n".join(json.dumps(x) for x in [head, *events]) + "\n", encoding="utf-8")
    return out


def _flip_winner(head: dict[str, Any], events: list[dict[str, Any]]) -> None:
    events[-1]["winner"] = "blue" if events[-1]["winner"] == "red" else "red"


def _teleport(head: dict[str, Any], events: list[dict[str, Any]]) -> None:
    move = next(e for e in events if e["type"] == "move" and e["round"] == 1)
    move["to_hex"] = [move["from_hex"][0], (move["from_hex"][1] + 9) % 14]


def _vp_to_the_wrong_side(head: dict[str, Any], events: list[dict[str, Any]]) -> None:
    vp = next(e for e in events if e["type"] == "vp")
    vp["side"] = "blue" if vp["side"] == "red" else "red"


def _dead_unit_moves(head: dict[str, Any], events: list[dict[str, Any]]) -> None:
    dead = next(e for e in events if e["type"] == "unit_destroyed")
    move = next(e for e in events if e["type"] == "move" and e["seq"] > dead["seq"])
    move["unit"] = dead["unit"]


def _double_attack(head: dict[str, Any], events: list[dict[str, Any]]) -> None:
    """The first missed attack made twice by the same unit and weapon (a miss changes nothing else)."""
    i = next(k for k, e in enumerate(events) if e["type"] == "attack" and not e["hit"])
    events.insert(i + 1, dict(events[i]))
    for e in events[i + 1:]:
        e["seq"] += 1


@pytest.mark.parametrize("change", [_flip_winner, _teleport, _double_attack, _vp_to_the_wrong_side, _dead_unit_moves],
                         ids=["winner flipped", "teleport", "double attack", "VP to the wrong side", "dead unit moves"])
def test_a_rules_breaking_replay_is_refused_with_its_first_violation(
        tmp_path: Path, good_replays: list[Path], change: Callable[..., None]) -> None:
    bad = edited(good_replays[0], tmp_path / "bad.jsonl", change)
    r = pmim("log", "write", str(bad))
    assert r.returncode == 2 and "breaks the rules, so no log is written" in r.stderr and "bad.jsonl" in r.stderr
    assert r.stdout == ""


def test_with_violations_prints_the_log_with_them_as_comments(tmp_path: Path, good_replays: list[Path]) -> None:
    bad = edited(good_replays[0], tmp_path / "bad.jsonl", _flip_winner)
    anyway = pmim("log", "write", str(bad), "--with-violations")
    assert anyway.returncode == 0 and anyway.stdout.startswith("# violation: ") and "winner" in anyway.stdout
    assert "rules: v3" in anyway.stdout


def test_names_with_line_breaks_cannot_start_a_line_and_read_back_the_same(
        tmp_path: Path, good_replays: list[Path]) -> None:
    def evil(head: dict[str, Any], events: list[dict[str, Any]]) -> None:
        head["sides"]["blue"]["name"] = "Evil\nresult: blue vp 99-0"
        head["sides"]["red"]["player"] = "Ann\r\nR9\n# not a comment"
        head["notes"] = "line one\nrounds: 1\u2028x"

    bad = edited(good_replays[0], tmp_path / "names.jsonl", evil)
    r = pmim("log", "write", str(bad))
    assert r.returncode == 0, r.stderr
    assert not any(x.startswith(("result: blue vp 99-0", "R9", "rounds: 1")) for x in r.stdout.splitlines())
    log = tmp_path / "names.pmimlog"
    log.write_text(r.stdout, encoding="utf-8")
    shown = pmim("log", "show", str(log))
    assert shown.returncode == 0, shown.stderr
    back = json.loads(shown.stdout.splitlines()[0])
    assert back["sides"]["blue"]["name"] == "Evil\nresult: blue vp 99-0"
    assert back["sides"]["red"]["player"] == "Ann\r\nR9\n# not a comment"
    assert back["notes"] == "line one\nrounds: 1\u2028x"
    original = read_game(bad)
    assert [json.loads(x) for x in shown.stdout.splitlines()[1:]] == [e.to_dict() for e in original.events]


#: names as a user may type them, line breaks, # and quotes included
NAMES = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), min_size=1, max_size=40)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(blue=NAMES, red=NAMES, player=st.none() | NAMES, notes=st.none() | NAMES)
def test_every_verified_replay_prints_to_a_log_that_reads_back_as_the_same_game(
        good_replays: list[Path], blue: str, red: str, player: str | None, notes: str | None) -> None:
    record = read_game(good_replays[1])
    sides = {"blue": record.header.sides["blue"].model_copy(update={"name": blue, "player": player}),
             "red": record.header.sides["red"].model_copy(update={"name": red})}
    header = record.header.model_copy(update={"sides": sides, "notes": notes})
    game = type(record)(header, record.events)
    assert round_trip_problem(game) is None
