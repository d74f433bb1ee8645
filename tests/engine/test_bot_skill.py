"""The skill axis: skill 1 is today's bot, skill 0 the random bot move for move, skills in
between draw near-misses from the bot's own stream (reproducible) and count their departures."""

from __future__ import annotations

import json
import math
import random
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pmim_analytics.engine.bots import BOTS, make_bot, parse_bot_spec
from pmim_analytics.engine.bots.skill import SkillCounter, format_skill, near_miss, temperature
from pmim_analytics.engine.dice import game_streams
from pmim_analytics.engine.driver import departure_counts, play_game, run
from pmim_analytics.engine.spec import GameSpec
from tests.engine.test_verify import army

PLANNERS = ["greedy", "tactician", "search:budget=20"]


def _spec(rules: str = "v3", a: str = "v3-fast-gev", b: str = "v3-balanced") -> GameSpec:
    return GameSpec.create(rules, "take-and-hold", army(a, rules), army(b, rules))


def _events(spec: GameSpec, blue: str, red: str, seed: int) -> list[str]:
    return _dump(play_game(spec, blue, red, seed, played="2026-01-01").events)


def _dump(events: Sequence[Any]) -> list[str]:
    return [json.dumps(e.to_dict(), sort_keys=True) for e in events]


# -- the model, by hand ---------------------------------------------------------------------
def test_temperature_follows_the_skill() -> None:
    assert temperature(1.0) == 0.0 and temperature(0.0) == math.inf
    assert temperature(0.5) == pytest.approx(0.5)
    assert temperature(0.75) == pytest.approx(0.5 / 3)
    assert temperature(0.9) < temperature(0.75) < temperature(0.5)


class _Fixed(random.Random):
    """A stream that returns the given numbers."""

    def __init__(self, values: list[float]) -> None:
        super().__init__(0)
        self.values = values

    def random(self) -> float:
        return self.values.pop(0)


def test_near_miss_weighs_each_candidate_by_its_shortfall() -> None:
    # scores 0 (the choice), -0.5 and -1 VP at T = 0.5: weights 1, e^-1, e^-2 (total 1.5032)
    scores, total = [0.0, -0.5, -1.0], 1 + math.exp(-1) + math.exp(-2)
    assert near_miss(_Fixed([0.6]), scores, 0, 0.5) == 0          # 0.6 x 1.503 = 0.90 < 1
    assert near_miss(_Fixed([0.7]), scores, 0, 0.5) == 1          # 1.05: in (1, 1.368)
    assert near_miss(_Fixed([0.95]), scores, 0, 0.5) == 2         # 1.43 > 1.368
    assert 0.6 * total < 1 < 0.7 * total < 1 + math.exp(-1) < 0.95 * total
    # the bot's choice weighs as the top score even when the evaluation scored it lower: 1 and 1
    assert [near_miss(_Fixed([x]), [-1.0, 0.0], 0, 0.5) for x in (0.45, 0.55)] == [0, 1]
    # infinitely hot: uniform
    assert [near_miss(_Fixed([x]), scores, 0, math.inf) for x in (0.1, 0.5, 0.9)] == [0, 1, 2]


def test_the_counter_tells_misplays_from_equal_swaps() -> None:
    c = SkillCounter()
    c.count([0.0, -0.05, -0.5], 0, 0)  # the choice
    c.count([0.0, -0.05, -0.5], 0, 1)  # a swap worth nearly the same: a departure, no misplay
    c.count([0.0, -0.05, -0.5], 0, 2)  # half a VP worse: a misplay
    assert (c.activations, c.departures, c.misplays) == (3, 2, 1)
    assert c.shortfall == pytest.approx(0.55) and c.rate == pytest.approx(2 / 3)
    assert c.misplay_rate == pytest.approx(1 / 3)


def test_skill_text_is_canonical() -> None:
    assert format_skill(0.75) == "0.75" and format_skill(0.0) == "0" and format_skill(0.5) == "0.5"
    assert parse_bot_spec("search:skill=0.750").label() == "search:budget=100,skill=0.75"
    assert parse_bot_spec("tactician:skill=1.0").label() == "tactician"
    assert parse_bot_spec("greedy:skill=0").label() == "greedy:skill=0"
    assert (parse_bot_spec("search:persona=aggressive,skill=.5").label()
            == "search:budget=100,skill=0.5,persona=aggressive")
    assert make_bot("tactician:skill=0.25", random.Random(1)).skill == 0.25  # type: ignore[attr-defined]


# -- skill 1 is today's bot ---------------------------------------------------------------
@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), which=st.sampled_from(PLANNERS))
def test_skill_one_plays_exactly_the_bot_without_a_skill(seed: int, which: str) -> None:
    spec = _spec()
    name, _, rest = which.partition(":")
    cls = BOTS[name]
    options = {"budget": 20} if rest else {}
    dice, br, rr = game_streams(seed, 0)
    plain = run(spec, cls(br, **options), make_bot("tactician", rr), dice)
    dice, br, rr = game_streams(seed, 0)
    skilled = run(spec, cls(br, skill=1.0, **options), make_bot("tactician", rr), dice)
    assert _dump(plain.events) == _dump(skilled.events)
    text = f"{which},skill=1" if rest else f"{which}:skill=1"
    assert _events(spec, text, "greedy", seed) == _events(spec, which, "greedy", seed)


# -- skill 0 is the random bot ------------------------------------------------------------
@pytest.mark.parametrize("which", PLANNERS)
def test_skill_zero_plays_the_random_bot_move_for_move(which: str) -> None:
    spec = _spec()
    text = f"{which},skill=0" if ":" in which else f"{which}:skill=0"
    for seed in (1, 2):
        assert _events(spec, text, "tactician", seed) == _events(spec, "random", "tactician", seed)
        assert _events(spec, "greedy", text, seed) == _events(spec, "greedy", "random", seed)


# -- in between ---------------------------------------------------------------------------
@pytest.mark.parametrize("which", ["greedy", "tactician", "search:budget=20"])
def test_a_skill_bot_departs_sometimes_reproducibly(which: str) -> None:
    spec = _spec()
    sep = "," if ":" in which else ":"
    half = f"{which}{sep}skill=0.5"
    assert _events(spec, half, "tactician", 5) == _events(spec, half, "tactician", 5)
    assert _events(spec, half, "tactician", 5) != _events(spec, which, "tactician", 5)
    low = departure_counts(spec, f"{which}{sep}skill=0.3", "tactician", 3, 2)
    high = departure_counts(spec, f"{which}{sep}skill=0.9", "tactician", 3, 2)
    top = departure_counts(spec, which, "tactician", 3, 2)
    assert low.activations > 0 and high.activations > 0
    assert 0 < low.departures < low.activations and 0 < low.misplays <= low.departures
    assert high.rate < low.rate and high.misplay_rate < low.misplay_rate
    assert top.activations == 0 and top.rate == 0.0  # skill 1 draws nothing


# -- bots read no listed cost ---------------------------------------------------------------
@pytest.mark.parametrize("which", ["random", "greedy", "tactician", "search:budget=20", "search:budget=20,skill=0.5"])
def test_a_price_only_variant_plays_the_games_of_its_base(which: str, data_copy: Path) -> None:
    from pmim_analytics.rules import load_army, validate_army

    (data_copy / "rules" / "variants" / "v3-tyrant-4.yaml").write_text(
        "id: v3-tyrant-4\nname: v3 with the Tyrant at 4 points\nbase: v3\n"
        "description: a price-only variant\noverrides:\n  chassis:\n    TY: {pts: 4}\n", encoding="utf-8")
    for rules in ("v3", "v3-tyrant-4"):
        a = validate_army(load_army(data_copy / "armies" / "v3-balanced.yaml"), rules)
        b = validate_army(load_army(data_copy / "armies" / "v3-mech-heavy.yaml"), rules)
        spec = GameSpec.create(rules, "take-and-hold", a, b)
        if rules == "v3":
            base, pts = _events(spec, which, "tactician", 4), [p.pts for p in spec.profiles]
        else:
            assert [p.pts for p in spec.profiles] != pts  # the variant does reprice the Tyrants
            assert _events(spec, which, "tactician", 4) == base


# -- deployment: the order is free, and the search bot uses it -------------------------------
def test_the_search_bot_places_a_fast_unit_first_where_it_takes_a_zone_in_round_1() -> None:
    from pmim_analytics.engine.state import GameState

    spec = _spec("v2", "v2-playtest-balanced", "v2-playtest1-heavy")
    st = GameState(spec)
    assert st.units_to_place()[0].p.type == "Timber Wolf"  # roster order would place the Warmech first
    action = make_bot("search", random.Random(1)).choose(st)
    u = st.unit(action.unit)
    h = st.grid.index(action.hex)  # type: ignore[attr-defined]
    radius = spec.scenario.objectives.radius
    assert u.p.type == "GEV" and min(od[h] for od in st.board.objective_dist) - radius <= u.p.mov
