"""Bot specs, personas, GameState.clone() and the search bot: exact clones, untouched games,
full specs in replay headers, clean verification, and bad input as one sentence."""

from __future__ import annotations

import random
import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pmim_analytics.engine.bots import BotSpec, bot_names, make_bot, parse_bot_spec
from pmim_analytics.engine.bots.persona import load_persona
from pmim_analytics.engine.bots.search import DEFAULT_BUDGET, SearchBot
from pmim_analytics.engine.dice import Dice, game_streams
from pmim_analytics.engine.spec import GameSpec
from pmim_analytics.engine.state import OVER, GameState
from pmim_analytics.engine.verify import verify_game
from pmim_analytics.errors import BotSpecError, DataFileError, UnknownNameError
from pmim_analytics.sim.batch import BatchSpec, play_batch_game
from tests.conftest import ARMIES
from tests.engine.test_verify import MATCHUPS, army
from tests.support.cli import pmim_in_process


# -- bot specs --------------------------------------------------------------------------
def test_a_bot_spec_reads_back_to_its_canonical_label() -> None:
    assert "search" in bot_names()
    assert parse_bot_spec("tactician").label() == "tactician"
    assert str(parse_bot_spec(" search ")) == f"search:budget={DEFAULT_BUDGET}"
    spec = parse_bot_spec("search:persona=aggressive, budget=800")
    assert spec == BotSpec("search", {"budget": 800}, "aggressive")
    assert spec.label() == "search:budget=800,persona=aggressive" and spec.params == {"budget": 800}
    assert parse_bot_spec(spec.label()) == spec and hash(parse_bot_spec(spec.label())) == hash(spec)
    bot = make_bot(spec, random.Random(1))
    assert isinstance(bot, SearchBot) and bot.budget == 800 and bot.persona.name == "aggressive"
    assert make_bot("search:budget=0", random.Random(1)).budget == 0  # type: ignore[attr-defined]


@pytest.mark.parametrize(("text", "error", "message"), [
    ("smart", UnknownNameError, "unknown bot 'smart'; choose one of greedy, random, search, tactician"),
    ("search:budget=lots", BotSpecError, "budget='lots' is not a whole number"),
    ("search:budget=-1", BotSpecError, "budget=-1 is out of range; use 0 to 100000"),
    ("search:depth=3", BotSpecError, "bot 'search' has no setting 'depth'; it takes budget, skill, persona"),
    ("search:budget=1,budget=2", BotSpecError, "budget is given twice"),
    ("search:budget", BotSpecError, "'budget' is not key=value"),
    ("search:", BotSpecError, "nothing after the colon"),
    ("tactician:budget=3", BotSpecError, "bot 'tactician' has no setting 'budget'; it takes skill"),
    ("random:budget=3", BotSpecError, "bot 'random' has no setting 'budget'; it takes no settings"),
    ("random:skill=0.5", BotSpecError, "bot 'random' takes no skill (only greedy, search, tactician do)"),
    ("search:skill=1.5", BotSpecError, "skill=1.5 is out of range; use a number from 0 to 1"),
    ("tactician:skill=-0.1", BotSpecError, "skill=-0.1 is out of range; use a number from 0 to 1"),
    ("greedy:skill=nan", BotSpecError, "skill=nan is out of range"),
    ("search:skill=high", BotSpecError, "skill='high' is not a number"),
    ("greedy:persona=balanced", BotSpecError, "bot 'greedy' takes no persona (only search do)"),
    ("search:persona=reckless", UnknownNameError, "unknown persona 'reckless'; choose one of aggressive, balanced"),
    ("search:persona=../rules/v3", UnknownNameError, "is not a persona name"),
])
def test_bad_bot_specs_are_one_sentence(text: str, error: type[Exception], message: str) -> None:
    with pytest.raises(error) as info:
        parse_bot_spec(text)
    assert message in str(info.value)
    assert "\n" not in str(info.value)
    if error is BotSpecError:
        assert isinstance(info.value, ValueError)


@pytest.fixture
def data_copy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A private copy of data/ that PMIM_DATA points at (to plant a malformed persona)."""
    data = tmp_path / "data"
    shutil.copytree(ARMIES.parent, data)
    monkeypatch.setenv("PMIM_DATA", str(data))
    return data


@pytest.mark.parametrize(("text", "field", "message"), [
    ("objectives: lots\n", "objectives", "valid number"),
    ("objectives: 1\nrecklessness: 2\n", "recklessness", "Extra inputs are not permitted"),
    ("damage: -1\n", "damage", "greater than or equal to 0"),
    ("- 1\n- 2\n", None, "a persona file is a mapping of weights"),
    ("objectives: [1\n", None, "is not valid YAML"),
])
def test_a_malformed_persona_names_the_file_and_field(data_copy: Path, text: str, field: str | None,
                                                      message: str) -> None:
    (data_copy / "bots" / "broken.yaml").write_text(text, encoding="utf-8")
    with pytest.raises(DataFileError) as info:
        parse_bot_spec("search:persona=broken")
    rendered = info.value.render()
    assert "broken.yaml" in rendered and message in rendered
    if field:
        assert f"field {field!r}" in rendered


def test_every_shipped_persona_loads() -> None:
    for name in ("balanced", "aggressive", "objective", "cautious"):
        p = load_persona(name)
        assert p.name == name and p.description


def pmim(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """The command run in this process (:mod:`tests.support.cli`): its sentence, exit code and
    replay are the point, not the process."""
    return pmim_in_process(*args, env=env)


def test_cli_bad_bots_exit_two_with_one_sentence(tmp_path: Path) -> None:
    data = tmp_path / "data"
    shutil.copytree(ARMIES.parent, data)
    (data / "bots" / "broken.yaml").write_text("objectives: 1\ndamage: many\n", encoding="utf-8")
    bal = str(ARMIES / "v3-balanced.yaml")
    sweep = tmp_path / "sweep.yaml"
    sweep.write_text(f"name: s\nseed: 1\nrules: [v3]\ncompositions: [{bal}]\nmirrors: true\n"
                     "bots: [greedy, 'search:budget=x']\ngames_per_pairing: 1\n", encoding="utf-8")
    cases = [
        (["play", "--blue", bal, "--red", bal, "--blue-bot", "smart"], "unknown bot 'smart'"),
        (["play", "--blue", bal, "--red", bal, "--red-bot", "search:budget=-5"], "budget=-5 is out of range"),
        (["simulate", "--blue", bal, "--red", bal, "--games", "2", "--blue-bot", "search:budget=many"],
         "budget='many' is not a whole number"),
        (["play", "--blue", bal, "--red", bal, "--blue-bot", "search:persona=broken"],
         "broken.yaml, field 'damage'"),
        (["sweep", str(sweep), "--out", str(tmp_path / "out"), "--no-ingest"],
         "field 'bots.1': bot 'search': budget='x' is not a whole number"),
    ]
    for args, message in cases:
        r = pmim(*args, env={"PMIM_DATA": str(data)})
        assert r.returncode == 2, (args, r.stdout, r.stderr)
        assert message in " ".join(r.stderr.split()), (args, r.stderr)
        assert "Traceback" not in r.stderr


def test_the_replay_header_records_the_full_bot_spec(tmp_path: Path) -> None:
    import json

    out = tmp_path / "g.jsonl"
    bal = str(ARMIES / "v3-balanced.yaml")
    r = pmim("play", "--blue", bal, "--red", bal, "--blue-bot", "search:persona=objective,budget=10",
             "--red-bot", "search", "--seed", "3", "--out", str(out))
    assert r.returncode == 0, r.stderr
    header = json.loads(out.read_text().splitlines()[0])
    assert header["sides"]["blue"]["bot"] == "search:budget=10,persona=objective"
    assert header["sides"]["red"]["bot"] == f"search:budget={DEFAULT_BUDGET}"


# -- clone ------------------------------------------------------------------------------
def snapshot(state: GameState) -> tuple:
    """Everything about a state that can change, as plain values."""
    units = tuple((u.id, u.hp, tuple(u.loc_hp), u.pos, u.alive, u.placed, u.activated, u.immobilized, u.disarmed)
                  for u in state.units)
    pending = None if state._pending is None else (state._pending[0].id, state._pending[1], state._pending[2].id)
    return (units, tuple(state.occ), tuple(state.events), state.phase, state.round, tuple(state.vp), state.to_act,
            tuple(state.living), tuple(state.waiting), tuple(state.unplaced),
            state.active.id if state.active else None, state.moved, state.attacks, state.fired, pending,
            state._roll, tuple(state._loc_rolls), state._result)


def dice_state(dice: Dice) -> tuple:
    return (dice._gen.bit_generator.state["state"]["state"], tuple(dice._buf), dice._pos)


def game_prefix(matchup: int, seed: int, steps: int) -> tuple[GameState, Dice]:
    """A game between scripted bots, stopped after ``steps`` driver steps (maybe at a chance node)."""
    rules, a, b = MATCHUPS[matchup]
    spec = GameSpec.create(rules, "take-and-hold", army(a, rules), army(b, rules))
    dice, br, rr = game_streams(seed, 0)
    bots = (make_bot("greedy", br), make_bot("tactician", rr))
    state = GameState(spec)
    for _ in range(steps):
        if state.phase == OVER:
            break
        need = state.roll_needed()
        if need:
            state.apply_roll(dice.roll(need))
        else:
            state.apply(bots[state.to_act].choose(state))
    return state, dice


def random_play(state: GameState, rng: random.Random, steps: int) -> None:
    """Legal random actions and the rng's own dice, for ``steps`` steps or to the end."""
    for _ in range(steps):
        if state.phase == OVER:
            return
        need = state.roll_needed()
        if need:
            state.apply_roll(tuple(rng.randint(1, 6) for _ in range(need)))
        else:
            state.apply(rng.choice(state.legal_actions()))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(matchup=st.integers(0, len(MATCHUPS) - 1), seed=st.integers(0, 10_000), steps=st.integers(0, 600),
       play=st.integers(0, 400), play_seed=st.integers(0, 2**32))
def test_whatever_happens_on_a_clone_leaves_the_game_and_its_dice_unchanged(
        matchup: int, seed: int, steps: int, play: int, play_seed: int) -> None:
    state, dice = game_prefix(matchup, seed, steps)
    before, dice_before = snapshot(state), dice_state(dice)
    twin = state.clone()
    assert snapshot(twin) == before  # exact
    random_play(twin, random.Random(play_seed), play)
    assert snapshot(state) == before and dice_state(dice) == dice_before
    # the clone and the original, driven the same way, stay identical
    a, b = state.clone(), state.clone()
    random_play(a, random.Random(play_seed), play)
    random_play(b, random.Random(play_seed), play)
    assert snapshot(a) == snapshot(b)
    assert snapshot(state) == before


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(matchup=st.integers(0, len(MATCHUPS) - 1), seed=st.integers(0, 10_000), steps=st.integers(60, 400),
       budget=st.sampled_from([0, 40, 150]))
def test_a_search_bot_looking_ahead_changes_neither_the_game_nor_its_dice(
        matchup: int, seed: int, steps: int, budget: int) -> None:
    state, dice = game_prefix(matchup, seed, steps)
    while state.roll_needed():
        state.apply_roll(dice.roll(state.roll_needed()))
    if state.phase == OVER:
        return
    before, dice_before = snapshot(state), dice_state(dice)
    bot = make_bot(f"search:budget={budget}", random.Random(seed))
    action = bot.choose(state)
    assert snapshot(state) == before and dice_state(dice) == dice_before
    state.check(action)  # and what it chose is legal


# -- search-bot games -------------------------------------------------------------------
@pytest.mark.parametrize(("rules", "a", "b"), MATCHUPS)
def test_search_bot_games_verify_clean(rules: str, a: str, b: str) -> None:
    pairs = [("search:budget=30", "tactician"), ("random", "search:budget=0,persona=cautious")]
    for n, (bot_a, bot_b) in enumerate(pairs):
        batch = BatchSpec(rules, "take-and-hold", army(a, rules), army(b, rules), bot_a, bot_b, seed=5, games=9)
        record = play_batch_game(batch, n)
        assert verify_game(record) == [], f"{rules} {a} v {b} game {n} ({bot_a} v {bot_b})"
        assert record.events[-1].type == "game_end"


def test_the_same_seed_plays_the_same_search_game() -> None:
    batch = BatchSpec("v3", "take-and-hold", army("v3-balanced", "v3"), army("v3-fast-gev", "v3"),
                      "search:budget=60,persona=aggressive", "search", seed=8, games=2)
    first, again = play_batch_game(batch, 1), play_batch_game(batch, 1)
    assert first.header == again.header and first.events == again.events


def test_look_ahead_candidates_meet_the_same_dice() -> None:
    """Common random numbers: within one pass every candidate's playout takes each attack's dice
    from the same table, so the same candidate played twice on one table ends the same way,
    and the table holds only the bot's own dice (the game's stream is never touched)."""
    state, dice = game_prefix(0, 11, 200)
    script = make_bot("tactician", random.Random(2))
    while state.roll_needed() or state.active is not None:
        if state.roll_needed():
            state.apply_roll(dice.roll(state.roll_needed()))
        else:
            state.apply(script.choose(state))
    assert state.phase != OVER
    before, dice_before = snapshot(state), dice_state(dice)
    bot = SearchBot(random.Random(3), budget=100)
    side = state.to_act
    unit = next(u for u in state.side_units[side] if u.alive and not u.activated)
    table: dict[tuple[int, ...], tuple[int, ...]] = {}
    first = bot._playout(state, side, unit, unit.pos, table)
    drawn = dict(table)
    again = bot._playout(state, side, unit, unit.pos, table)
    assert first == again and table == drawn  # nothing new drawn: the same attacks met the same dice
    assert all(1 <= d <= 6 for roll in table.values() for d in roll)
    assert snapshot(state) == before and dice_state(dice) == dice_before


def test_pending_attack_names_the_attack_waiting_for_dice() -> None:
    state, dice = game_prefix(0, 4, 120)
    while state.roll_needed() == 0 and state.phase != OVER:
        state.apply(make_bot("tactician", random.Random(1)).choose(state))
    assert state.pending_attack() is not None
    att, m, tgt = state.pending_attack()  # type: ignore[misc]
    assert att is state.active and att.side != tgt.side and 0 <= m < len(att.p.mounts)
    while state.roll_needed():
        state.apply_roll(dice.roll(state.roll_needed()))
    assert state.pending_attack() is None
