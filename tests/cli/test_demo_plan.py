"""The demo's plan: games for every variant, random armies whose points spread, lists translated."""

from __future__ import annotations

import random
import statistics
import subprocess
from pathlib import Path

import pytest

from pmim_analytics.demo import DEFAULT_PLANS, DEFAULT_RANDOM, iter_batches, random_pair_batch
from pmim_analytics.rules import list_rules_ids, load_rules
from pmim_analytics.rules.generate import random_army

ROOT = Path(__file__).resolve().parents[2]


def _shipped_variants() -> set[str]:
    """The variants committed with the project: a user's own (a `pmim balance propose` proposal, a
    variant saved on the What-if page) sit in the same folder but are not the demo's to play."""
    tracked = subprocess.run(["git", "ls-files", "data/rules/variants"], cwd=ROOT, capture_output=True, text=True)
    if tracked.returncode != 0 or not tracked.stdout.strip():  # not a git checkout: every variant there
        return {r for r in list_rules_ids() if load_rules(r).base is not None}
    return {Path(line).stem for line in tracked.stdout.splitlines() if line.endswith((".yaml", ".yml"))}


def test_every_rules_variant_gets_games() -> None:
    played = {b.rules_id for _, b in iter_batches(DEFAULT_PLANS)}
    variants = _shipped_variants()
    assert variants and variants <= {r for r in list_rules_ids() if load_rules(r).base is not None}
    assert variants <= played, variants - played


def test_random_armies_spread_their_points() -> None:
    plan = DEFAULT_RANDOM[0]
    points = []
    for pair in range(60):
        b = random_pair_batch(plan, pair)
        points += [b.army_a.points, b.army_b.points]
    assert min(points) >= plan.min_points - 7 and max(points) <= 72
    assert statistics.pstdev(points) > 3  # the cost fit needs more than 2


def test_a_random_army_under_a_smaller_budget_is_still_legal() -> None:
    army = random_army("v3", random.Random(1), budget=50)
    from pmim_analytics.rules import validate_army

    assert validate_army(army).points <= 50
    with pytest.raises(ValueError):
        random_army("v3", random.Random(1), budget=5)


def test_the_playtest_lists_are_translated_to_v3() -> None:
    translated = [b for name, b in iter_batches(DEFAULT_PLANS) if name.startswith("demo-v3-v2-")]
    assert translated and all(b.rules_id == "v3" for b in translated)
    names = {b.army_a.name for b in translated} | {b.army_b.name for b in translated}
    assert "Balanced (designer, playtests 1 and 2)" in names
