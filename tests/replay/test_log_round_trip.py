"""Round trip as a property: any engine game, written in the manual notation and read back,
gives the very same events -- over every rules version (variants and their optional rules
included) and every pair of bots."""

from __future__ import annotations

import itertools
import multiprocessing
import os
import random
from concurrent.futures import ProcessPoolExecutor

import pytest

from pmim_analytics.engine.bots import bot_names
from pmim_analytics.engine.driver import play_game
from pmim_analytics.engine.spec import GameSpec
from pmim_analytics.replay.manual import format_log, parse_log
from pmim_analytics.replay.manual.roundtrip import round_trip_problem
from pmim_analytics.rules import list_rules_ids, validate_army
from pmim_analytics.rules.generate import random_army

GAMES_PER_PAIRING = 3  # 11 rules versions x 16 bot pairings x 3 = 528 games (>= 500), about 30 s on one core


def _game(rules_id: str, blue: str, red: str, seed: int):
    rng = random.Random(f"{rules_id}/{blue}/{red}/{seed}")
    a, b = (validate_army(random_army(rules_id, rng), rules_id) for _ in range(2))
    return play_game(GameSpec.create(rules_id, "take-and-hold", a, b), blue, red, seed=seed, played="2026-01-01")


def _round_trip(config: tuple[str, str, str, int]) -> str | None:
    """What goes wrong when one engine game is written and read back (None: nothing)."""
    return round_trip_problem(_game(*config))


@pytest.mark.slow
def test_every_engine_game_survives_write_then_read() -> None:
    # the optional rules too: rushes, initiative and overheat rolls have lines, catch-up is the order
    rules_ids = list_rules_ids()
    assert {"v3-rush", "v3-heat", "v3-rolled-initiative", "v3-catch-up"} <= set(rules_ids)
    # the search bot without look-ahead plays the same kinds of action (rushes too) 4 times faster
    bots = [name if name != "search" else "search:budget=0" for name in bot_names()]
    assert len(rules_ids) >= 11 and set(bots) >= {"random", "greedy", "tactician", "search:budget=0"}
    configs = [(rules_id, blue, red, seed) for rules_id, blue, red in itertools.product(rules_ids, bots, bots)
               for seed in range(GAMES_PER_PAIRING)]
    # the same games on every machine; only how many of them play at once follows its cores
    workers = max(1, min(2, os.cpu_count() or 1))
    with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn")) as pool:
        problems = list(pool.map(_round_trip, configs, chunksize=16))
    played = len(problems)
    failures = [f"{r} {b} vs {x} seed {s}: {p}" for (r, b, x, s), p in zip(configs, problems, strict=True) if p]
    assert played >= 500
    assert not failures, f"{len(failures)} of {played} games do not round-trip:\n" + "\n".join(failures[:5])


def test_an_activation_that_does_nothing_is_written_hold_and_read_back() -> None:
    game = next(g for seed in range(40) if "hold" in format_log(g := _game("v3", "random", "random", seed)))
    text = format_log(game)
    assert any(line.endswith(" hold") for line in text.splitlines())
    back, errors = parse_log(text, "<test>", strict=False)
    assert not errors and back is not None and back.events == game.events
    assert back.header.source == "manual" and back.header.sides["blue"].name == game.header.sides["blue"].name


def test_hold_cannot_follow_an_action_of_the_same_activation() -> None:
    game = _game("v3", "greedy", "greedy", 1)
    lines = format_log(game).splitlines()
    i = next(i for i, line in enumerate(lines) if " move " in line and line.startswith("B:"))
    unit = lines[i].split()[0]
    lines.insert(i + 1, f"{unit} hold")
    _, errors = parse_log("\n".join(lines) + "\n", "<test>", strict=False)
    assert errors and "cannot also hold" in errors[0].message
    assert errors[0].where is not None and errors[0].where.line == i + 2


def test_verify_gives_every_sample_log_a_clear_result() -> None:
    from pathlib import Path

    from pmim_analytics.engine.verify import verify_game
    from pmim_analytics.errors import ReplayError
    from pmim_analytics.replay.manual import read_log

    logs = sorted((Path(__file__).resolve().parents[2] / "data" / "playtests").glob("*.pmimlog"))
    assert len(logs) >= 4
    outcomes = {}
    for path in logs:
        try:
            outcomes[path.name] = verify_game(read_log(path))
        except ReplayError as e:
            assert "summary-form log" in e.message and "nothing to replay" in e.message
            outcomes[path.name] = "summary"
    # the detailed sample deploys side by side, leaves out units that did nothing, omits no
    # dice and stops early with a logged result: all of which a table log may do
    assert outcomes["sample-detailed-v3.pmimlog"] == []
    assert outcomes["playtest-1.pmimlog"] == outcomes["playtest-2.pmimlog"] == "summary"


def test_verify_feeds_the_logged_outcome_when_a_log_omits_the_dice() -> None:
    from pmim_analytics.engine.verify import verify_game
    from pmim_analytics.replay.manual import parse_log

    game = _game("v3", "greedy", "tactician", 2)
    lines = []
    for line in format_log(game).splitlines():
        words = line.split()
        if len(words) > 2 and ">" in words[1] and "+" in words[2]:
            del words[2]  # drop the attack roll
            line = " ".join(words)
        lines.append(line)
    back, errors = parse_log("\n".join(lines) + "\n", "<no dice>", strict=False)
    assert not errors and back is not None
    assert any(getattr(e, "roll", 0) is None for e in back.events)
    assert verify_game(back) == []
