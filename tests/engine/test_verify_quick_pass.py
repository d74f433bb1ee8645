"""The verifier's quick pass (replay the recorded choices, compare the whole event stream at
once) passes every clean engine game and never passes a game the full check faults.

The quick pass is what makes the ingest's rules check cheap; the full check is the judge
that names findings. If the quick pass ever said "clean" where the full check finds a
broken rule, ingest would store that game: the hypothesis test below edits engine games of
every optional rule (events dropped, doubled, swapped, fields changed) and holds the quick
pass to the full check's verdict.
"""

from __future__ import annotations

import json
import random
from functools import cache

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from pmim_analytics.engine.verify import _Checker, _replays_exactly, verify_game
from pmim_analytics.errors import ReplayError
from pmim_analytics.model.events import event_from_dict
from pmim_analytics.model.record import GameRecord
from pmim_analytics.replay.format import format_game
from pmim_analytics.rules import validate_army
from pmim_analytics.rules.generate import random_army
from pmim_analytics.sim.batch import BatchSpec, play_batch_game

#: Rules versions whose engine games the tests edit: each optional rule, and the base ones.
RULES = ["v1", "v2", "v3", "v3-catch-up", "v3-heat", "v3-rolled-initiative", "v3-rush"]
BOTS = [("greedy", "tactician"), ("random", "greedy"), ("tactician", "random")]


@cache
def games() -> tuple[GameRecord, ...]:
    out = []
    for rules in RULES:
        rng = random.Random(f"quick-pass/{rules}")
        a, b = (validate_army(random_army(rules, rng), rules) for _ in range(2))
        for n, (bot_a, bot_b) in enumerate(BOTS):
            out.append(play_batch_game(BatchSpec(rules, "take-and-hold", a, b, bot_a, bot_b, seed=17, games=9), n))
    return tuple(out)


def full_check(record: GameRecord) -> list:
    return _Checker(record, list(range(1, len(record.events) + 2))).run()


@pytest.mark.parametrize("n", range(len(RULES) * len(BOTS)))
def test_every_clean_engine_game_passes_quickly(n: int) -> None:
    record = games()[n]
    assert _replays_exactly(record), f"{record.header.rules} game {n} needs the full check"
    assert full_check(record) == []
    assert verify_game(record) == []


EDITS = {  # (event type, field, a new value from the old)
    "path": ("move", "path", lambda v: v + 1),
    "to_hex": ("move", "to_hex", lambda v: [v[0], (v[1] + 3) % 14]),
    "from_hex": ("move", "from_hex", lambda v: [(v[0] + 1) % 10, v[1]]),
    "roll": ("attack", "roll", lambda v: [7 - v[0], v[1]]),
    "hit": ("attack", "hit", lambda v: not v),
    "damage": ("attack", "damage", lambda v: v + 1),
    "location": ("attack", "location", lambda v: "CT" if v != "CT" else "LA"),
    "location_rolls": ("attack", "location_rolls", lambda v: [*v, 3]),
    "distance": ("attack", "distance", lambda v: v + 1),
    "target": ("attack", "target", lambda v: "B:" + v[2:] if v.startswith("R:") else "R:" + v[2:]),
    "mount": ("attack", "mount", lambda v: "RA" if v != "RA" else "LA"),
    "winner": ("game_end", "winner", lambda v: {"blue": "red", "red": "blue"}.get(v, "blue")),
    "reason": ("game_end", "reason", lambda v: "wipeout" if v != "wipeout" else "vp"),
    "final_vp": ("game_end", "blue_vp", lambda v: v + 1),
    "vp_side": ("vp", "side", lambda v: "red" if v == "blue" else "blue"),
    "round_vp": ("round_end", "red_vp", lambda v: v + 1),
    "first": ("round_start", "first", lambda v: "red" if v == "blue" else "blue"),
    "deploy": ("deploy", "hex", lambda v: [v[0], (v[1] + 1) % 14]),
    "activate": ("activate", "unit", lambda v: v[:-1] + ("2" if v[-1] != "2" else "1")),
    "round": ("move", "round", lambda v: v + 1),
    "initiative": ("initiative_roll", "blue_roll", lambda v: 7 - v),
    "overheat": ("overheat_roll", "result", lambda v: 7 - v),
    "destroyed_by": ("unit_destroyed", "by", lambda v: None),
}
KINDS = ["drop", "duplicate", "swap", "truncate", *EDITS]


def mutant(record: GameRecord, muts: list[tuple[str, int]]) -> GameRecord | None:
    """``record`` with each edit of ``muts`` made to its event dicts (seq renumbered), or
    None when no edit applied or the result is no longer a well-formed event stream."""
    events = [json.loads(x) for x in format_game(record).splitlines()[1:]]
    changed = False
    for kind, k in muts:
        if len(events) < 2:  # truncated to one event: nothing left to pick a pair from
            continue
        i = k % (len(events) - 1)
        if kind == "drop":
            del events[i]
        elif kind == "duplicate":
            events.insert(i, dict(events[i]))
        elif kind == "swap":
            if events[i] == {**events[i + 1], "seq": events[i]["seq"]}:
                continue
            events[i], events[i + 1] = events[i + 1], events[i]
        elif kind == "truncate":
            del events[i + 1:]
        else:
            etype, fld, change = EDITS[kind]
            idx = [n for n, e in enumerate(events) if e["type"] == etype]
            if not idx:
                continue
            e = events[idx[k % len(idx)]]
            new = change(e[fld])
            if new == e[fld]:
                continue
            e[fld] = new
        changed = True
    if not changed:
        return None
    for n, obj in enumerate(events, start=1):
        obj["seq"] = n
    try:
        return GameRecord(record.header, tuple(event_from_dict(o) for o in events))
    except (TypeError, ValueError, KeyError):
        return None


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(n=st.integers(0, len(RULES) * len(BOTS) - 1),
       muts=st.lists(st.tuples(st.sampled_from(KINDS), st.integers(0, 10**6)), min_size=1, max_size=2))
def test_the_quick_pass_never_passes_a_game_the_full_check_faults(n: int, muts: list[tuple[str, int]]) -> None:
    record = mutant(games()[n], muts)
    if record is None:
        event("no edit applied")
        return
    quick = _replays_exactly(record)
    found = full_check(record)
    event("quick pass" if quick else "full check")
    event("faulted" if found else "still clean")
    if quick:
        assert found == [], f"the quick pass passed a game the full check faults: {found[:2]} ({muts})"
    try:
        verdict = verify_game(record)
    except ReplayError:  # a unit never deployed: the engine cannot replay it at all
        assert not quick
        return
    assert verdict == found


def test_a_header_the_checker_remarks_on_is_never_passed_quickly() -> None:
    """Optional rules that differ from the version's, or an army the rules forbid, are findings
    of the header, which the quick pass does not compare: it leaves them to the full check."""
    record = games()[0]  # a v1 game: no optional rules, a v1 army
    rushing = GameRecord(record.header.model_copy(update={"optional_rules": {"rush": {"factor": 2}}}), record.events)
    assert not _replays_exactly(rushing)
    assert any("optional rules" in v.message for v in verify_game(rushing))
    blue = record.header.sides["blue"]
    doubled = blue.model_copy(update={"units": (*blue.units, *blue.units)})  # the same ids twice: never legal
    sides = {**record.header.sides, "blue": doubled}
    illegal = GameRecord(record.header.model_copy(update={"sides": sides}), record.events)
    assert not _replays_exactly(illegal)
    assert verify_game(illegal) != []
