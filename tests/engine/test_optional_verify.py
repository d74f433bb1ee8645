"""Games under the optional rules: same seed, same games; verify replays their dice and rejects
replays whose initiative or overheat rolls contradict the rules."""

from __future__ import annotations

import dataclasses
import random
from typing import Any

import pytest

from pmim_analytics.engine.bots import make_bot, parse_bot_spec
from pmim_analytics.engine.checks import OVER
from pmim_analytics.engine.dice import game_streams
from pmim_analytics.engine.driver import play_game
from pmim_analytics.engine.spec import GameSpec
from pmim_analytics.engine.state import GameState
from pmim_analytics.engine.verify import verify_game
from pmim_analytics.model.events import Event, InitiativeRoll, OverheatRoll
from pmim_analytics.model.record import GameRecord
from pmim_analytics.model.vocab import BLUE
from pmim_analytics.replay.format import format_game, read_game, write_game
from pmim_analytics.rules import validate_army
from pmim_analytics.rules.generate import random_army
from pmim_analytics.rules.optional import OptionalRules
from tests.support.cli import pmim_in_process


def armies(seed: int) -> tuple[Any, Any]:
    rng = random.Random(f"optional/{seed}")
    return validate_army(random_army("v3", rng), "v3"), validate_army(random_army("v3", rng), "v3")


def spec_with(seed: int, optional: dict[str, Any] | None = None, rules: str = "v3") -> GameSpec:
    a, b = armies(seed)
    opt = None if optional is None else OptionalRules.model_validate(optional)
    return GameSpec.create(rules, "take-and-hold", a, b, optional_rules=opt)


def renumbered(events: list[Event] | tuple[Event, ...], drop: str | None = None) -> list[Event]:
    kept = [e for e in events if e.type != drop]
    return [dataclasses.replace(e, seq=i + 1) for i, e in enumerate(kept)]


@pytest.mark.parametrize("bot", ["random", "greedy", "tactician"])
def test_heat_ratings_above_any_loadout_and_unreachable_catch_up_play_the_base_games(bot: str) -> None:
    high = {"heavy": 99, "medium": 99, "light": 99, "ultralight": 99}
    for seed in range(3):
        base = play_game(spec_with(seed), bot, bot, seed=seed, played="2026-01-01")
        for optional in ({"heat": {"ratings": high}}, {"catch_up": {"ratio": 100}}):
            game = play_game(spec_with(seed, optional), bot, bot, seed=seed, played="2026-01-01")
            assert game.events == base.events, optional


@pytest.mark.parametrize("bot", ["random", "greedy"])
def test_rolled_initiative_forced_to_the_base_order_plays_the_base_games(bot: str) -> None:
    for seed in range(3):
        base = play_game(spec_with(seed), bot, bot, seed=seed, played="2026-01-01")
        spec = spec_with(seed, {"rolled_initiative": {}})
        dice, blue_rng, red_rng = game_streams(seed, 0)
        bots = (make_bot(parse_bot_spec(bot), blue_rng), make_bot(parse_bot_spec(bot), red_rng))
        st = GameState(spec)
        while st.phase != OVER:
            need = st.roll_needed()
            if need and st.is_optional_roll():
                st.apply_roll((6, 1) if spec.first_side(st.round) == BLUE else (1, 6))
            elif need:
                st.apply_roll(dice.roll(need))
            else:
                st.apply(bots[st.to_act].choose(st))
        assert sum(e.type == "initiative_roll" for e in st.events) == base.events[-1].rounds  # type: ignore[attr-defined]
        assert renumbered(st.events, drop="initiative_roll") == list(base.events)


def test_the_header_records_the_optional_rules_and_a_base_game_is_unchanged(tmp_path: Any) -> None:
    a, b = armies(1)
    heat = play_game(GameSpec.create("v3-heat", "take-and-hold", a, b), "greedy", "greedy", seed=1, played="x")
    assert heat.header.version == 2
    assert heat.header.optional_rules == {"heat": {"ratings": {"heavy": 5, "medium": 4, "light": 3, "ultralight": 2},
                                                   "warmechs": {}, "tonnage_heat": {"5": 1, "10": 2, "15": 3,
                                                                                    "20": 4}, "weapons": {}}}
    text = format_game(heat)
    assert '"optional_rules":{"heat"' in text.splitlines()[0]
    back = read_game(write_game(heat, tmp_path / "heat.jsonl"))
    assert back.header == heat.header and back.events == heat.events
    base = play_game(GameSpec.create("v3", "take-and-hold", a, b), "greedy", "greedy", seed=1, played="x")
    first = format_game(base).splitlines()[0]
    assert '"version":1' in first and "optional_rules" not in first


def _game_with(rules: str, kind: type[Event], want: Any = None) -> GameRecord:
    for seed in range(60):
        a, b = armies(seed)
        game = play_game(GameSpec.create(rules, "take-and-hold", a, b), "greedy", "greedy", seed=seed, played="x")
        if any(isinstance(e, kind) and (want is None or want(e)) for e in game.events):
            return game
    raise AssertionError(f"no {rules} game with a {kind.type} event")


def _tamper(game: GameRecord, pick: Any, **changes: Any) -> GameRecord:
    i = next(i for i, e in enumerate(game.events) if pick(e))
    events = list(game.events)
    events[i] = dataclasses.replace(events[i], **changes)
    return GameRecord(game.header, tuple(events))


def test_verify_passes_games_of_every_optional_rule() -> None:
    for rules in ("v3-heat", "v3-rolled-initiative", "v3-catch-up", "v3-rush"):
        for seed in range(2):
            a, b = armies(seed)
            for bot in ("random", "greedy", "search:budget=20"):
                game = play_game(GameSpec.create(rules, "take-and-hold", a, b), bot, bot, seed=seed, played="x")
                assert verify_game(game) == [], (rules, bot)
                if rules == "v3-rush" and bot != "random":
                    assert any(e.type == "rush" for e in game.events), bot  # the bots use the rule


def test_verify_rejects_an_initiative_that_contradicts_the_rolls() -> None:
    game = _game_with("v3-rolled-initiative", InitiativeRoll, lambda e: e.first is not None)
    roll = next(e for e in game.events if isinstance(e, InitiativeRoll) and e.first is not None)
    wrong = "red" if roll.first == "blue" else "blue"
    bad = _tamper(game, lambda e: e is roll, first=wrong)
    found = [v.message for v in verify_game(bad)]
    assert any(f"first is {wrong!r}, the rules give {roll.first!r}" in m for m in found), found
    # swapping the two dice makes the recorded order contradict them
    swapped = _tamper(game, lambda e: e is roll, blue_roll=roll.red_roll, red_roll=roll.blue_roll)
    assert any("first is" in v.message for v in verify_game(swapped))


def test_verify_rejects_a_missing_or_impossible_initiative_roll() -> None:
    game = _game_with("v3-rolled-initiative", InitiativeRoll)
    i = next(i for i, e in enumerate(game.events) if isinstance(e, InitiativeRoll))
    dropped = GameRecord(game.header, tuple(renumbered(game.events[:i] + game.events[i + 1:])))
    assert any("need an initiative_roll event first" in v.message for v in verify_game(dropped))
    seven = _tamper(game, lambda e: isinstance(e, InitiativeRoll), blue_roll=7)
    assert any("expected 2 d6" in v.message for v in verify_game(seven))


def test_verify_rejects_an_overheat_roll_that_contradicts_the_rule() -> None:
    game = _game_with("v3-heat", OverheatRoll, lambda e: not e.overheated)
    roll = next(e for e in game.events if isinstance(e, OverheatRoll) and not e.overheated)
    lying = _tamper(game, lambda e: e is roll, overheated=True)
    found = [v.message for v in verify_game(lying)]
    assert any("overheated is True, the rules give False" in m for m in found), found
    excess = _tamper(game, lambda e: e is roll, excess=roll.excess + 1)
    assert any("excess is" in v.message for v in verify_game(excess))
    # a roll that would have overheated, recorded as a pass: the engine then waits for the weapon's loss
    if roll.excess >= 1:
        low = _tamper(game, lambda e: e is roll, result=1)
        assert verify_game(low)


def test_verify_rejects_a_replay_whose_header_drops_the_optional_rules() -> None:
    game = _game_with("v3-heat", OverheatRoll)
    header = game.header.model_copy(update={"optional_rules": None})
    found = [v.message for v in verify_game(GameRecord(header, game.events))]
    assert any("the header records optional rules none, but rules v3-heat has" in m for m in found), found


def test_pmim_replay_verify_passes_a_played_game_and_rejects_a_forged_initiative(tmp_path: Any) -> None:
    import json
    import subprocess
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    replay = tmp_path / "g.jsonl"

    def pmim(*args: str) -> subprocess.CompletedProcess[str]:
        return pmim_in_process(*args)  # tests/support/cli.py: the output is the point, not the process

    played = pmim("play", "--rules", "v3-rolled-initiative", "--blue", str(root / "data/armies/v3-balanced.yaml"),
                  "--red", str(root / "data/armies/v3-mech-heavy.yaml"), "--seed", "3", "--out", str(replay))
    assert played.returncode == 0, played.stderr
    assert pmim("replay", "verify", str(replay)).returncode == 0
    lines = replay.read_text().splitlines()
    for i, line in enumerate(lines):
        ev = json.loads(line)
        if ev.get("type") == "initiative_roll" and ev["first"] is not None:
            ev["first"] = "red" if ev["first"] == "blue" else "blue"
            lines[i] = json.dumps(ev, separators=(",", ":"))
            break
    replay.write_text("\n".join(lines) + "\n")
    forged = pmim("replay", "verify", str(replay))
    assert forged.returncode == 1 and "initiative_roll" in forged.stdout + forged.stderr


def test_optional_rule_batches_are_the_same_games_whatever_the_workers(tmp_path: Any) -> None:
    from pmim_analytics.rules import load_army
    from pmim_analytics.sim.batch import BatchSpec
    from pmim_analytics.sim.runner import run_batch

    root = __import__("pathlib").Path(__file__).resolve().parents[2] / "data" / "armies"
    for rules in ("v3-heat", "v3-rolled-initiative"):
        a = validate_army(load_army(root / "v3-mech-heavy.yaml"), rules)
        b = validate_army(load_army(root / "v3-balanced.yaml"), rules)
        spec = BatchSpec(rules, "take-and-hold", a, b, "random", "greedy", 11, 6, name="opt", played="x")
        run_batch(spec, workers=1, out=tmp_path / f"{rules}-1", fmt="jsonl", part_size=2)
        run_batch(spec, workers=2, out=tmp_path / f"{rules}-2", fmt="jsonl", part_size=2)
        for i in range(6):
            name = f"game-{i:06d}.jsonl"
            one = (tmp_path / f"{rules}-1" / name).read_bytes()
            assert one == (tmp_path / f"{rules}-2" / name).read_bytes()
            assert b'"version":2' in one.split(b"\n")[0]


def test_optional_rule_games_survive_a_parquet_batch(tmp_path: Any) -> None:
    from pmim_analytics.replay.parquet import read_batch
    from pmim_analytics.rules import load_army
    from pmim_analytics.sim.batch import BatchSpec, play_batch_game
    from pmim_analytics.sim.runner import run_batch

    root = __import__("pathlib").Path(__file__).resolve().parents[2] / "data" / "armies"
    a = validate_army(load_army(root / "v3-mech-heavy.yaml"), "v3-heat")
    b = validate_army(load_army(root / "v3-balanced.yaml"), "v3-heat")
    spec = BatchSpec("v3-heat", "take-and-hold", a, b, "random", "random", 4, 6, name="pq", played="x")
    run_batch(spec, workers=1, out=tmp_path, fmt="parquet", part_size=3)
    back = list(read_batch(tmp_path))
    assert [format_game(g) for g in back] == [format_game(play_batch_game(spec, i)) for i in range(6)]
    assert any(e.type == "overheat_roll" for g in back for e in g.events)
