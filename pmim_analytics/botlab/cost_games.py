"""Engine games between random legal armies, as the frames the implied-cost fit reads.

Each pair of random armies (a random budget from ``min_points`` to the scenario's limit, as
the demo's random plan draws them) plays two games, one with each army as blue, both sides
played by the same bot spec. The games are labelled with ``label`` as their rules id, so two
runs under identical rules can be fitted side by side. Everything follows from the seed.
"""

from __future__ import annotations

import random
from collections.abc import Callable

import polars as pl

from pmim_analytics.analytics.frames import SCHEMAS, Frames
from pmim_analytics.model.events import GameEnd
from pmim_analytics.rules import validate_army
from pmim_analytics.rules.catalogue import DEFAULT_SCENARIO, load_scenario
from pmim_analytics.rules.generate import random_army
from pmim_analytics.sim.batch import BatchSpec, play_batch_game

Rows = tuple[list[dict[str, object]], list[dict[str, object]], list[dict[str, object]]]


def random_army_frames(pairs: int, bot: str, seed: int, label: str = "v3", rules_id: str = "v3",
                       min_points: int = 56, progress: Callable[[int], None] | None = None) -> Frames:
    """``2 * pairs`` engine games of random armies under ``rules_id`` at bot level ``bot``."""
    return rows_to_frames([random_army_rows(pairs, bot, seed, label, rules_id, min_points, progress)])


def rows_to_frames(parts: list[Rows]) -> Frames:
    """The games, sides and units tables of the rows of one or more :func:`random_army_rows` calls."""
    games, sides, units = ([r for part in parts for r in part[i]] for i in range(3))
    return Frames.of(games=pl.DataFrame(games, schema_overrides=SCHEMAS["games"]),
                     sides=pl.DataFrame(sides, schema_overrides=SCHEMAS["sides"]),
                     units=pl.DataFrame(units, schema_overrides=SCHEMAS["units"]))


def random_army_rows(pairs: int, bot: str, seed: int, label: str = "v3", rules_id: str = "v3",
                     min_points: int = 56, progress: Callable[[int], None] | None = None,
                     first_pair: int = 0) -> Rows:
    """The rows of :func:`random_army_frames`, for pairs ``first_pair`` on (plain Python, no Polars: a
    forked worker can make them, and a run split into ranges of pairs plays the same games)."""
    limit = load_scenario(DEFAULT_SCENARIO).points_limit
    games: list[dict[str, object]] = []
    sides: list[dict[str, object]] = []
    units: list[dict[str, object]] = []
    for pair in range(first_pair, first_pair + pairs):
        rng = random.Random(f"{seed}:{rules_id}:{pair}")
        a, b = (validate_army(random_army(rules_id, rng, name=f"random {pair}{x}",
                                          budget=rng.randint(min(min_points, limit), limit))) for x in "ab")
        batch = BatchSpec(rules_id, DEFAULT_SCENARIO, a, b, bot, bot, seed * 100_003 + pair, 2, name=label)
        for i in range(2):
            end = play_batch_game(batch, i).events[-1]
            assert isinstance(end, GameEnd)  # an engine game ends with its game_end
            blue, red = batch.sides(i)[:2]
            gid = f"{label}-{seed}-{pair}-{i}"
            games.append({"game_id": gid, "source": "engine", "rules_id": label, "scenario": DEFAULT_SCENARIO,
                          "seed": batch.seed, "game_index": i, "winner": end.winner,
                          "reason": end.reason, "rounds": end.rounds,
                          "blue_vp": end.blue_vp, "red_vp": end.red_vp})
            for side, army in (("blue", blue), ("red", red)):
                result = "draw" if end.winner is None else "win" if end.winner == side else "loss"
                sides.append({"game_id": gid, "side": side, "composition": army.name, "army_hash": army.content_hash(),
                              "points": army.points, "bot": bot, "n_units": len(army.units), "result": result})
                units += [{"game_id": gid, "unit_id": u.id, "side": side, "code": u.code, "type": u.type,
                           "kind": u.kind, "weapons": ",".join(u.weapons), "pts": u.pts} for u in army.units]
        if progress:
            progress(pair + 1 - first_pair)
    return games, sides, units
