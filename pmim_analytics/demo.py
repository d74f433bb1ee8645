"""The demo database: the designer's two real playtests, the sample logs and a simulated
round-robin, so that every report and dashboard page has something to show out of the box.

Deterministic: the same call builds the same games (the batch seeds are fixed), and ingest
is idempotent, so building it again adds nothing.
"""

from __future__ import annotations

import multiprocessing
import random
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from itertools import combinations
from math import comb
from pathlib import Path

from pmim_analytics.replay.parquet import write_part
from pmim_analytics.rules import DEFAULT_SCENARIO, Roster, data_dir, load_army, load_scenario, validate_army
from pmim_analytics.rules.generate import random_army
from pmim_analytics.rules.translate import translate_army
from pmim_analytics.sim.batch import BatchSpec, play_batch_game, run_batch
from pmim_analytics.store.ingest import IngestResult, ingest_paths


@dataclass(frozen=True)
class DemoPlan:
    """Which compositions meet under which rules ids, and how many games each pairing plays."""

    rules_ids: tuple[str, ...]
    armies: tuple[str, ...]
    games: int
    bot: str = "tactician"
    seed: int = 2026
    #: Weaker bot levels that play the same batches too (folders ``demo-<bot>-...``), so
    #: ``pmim report robustness`` can compare verdicts across bot strength.
    levels: tuple[str, ...] = ()
    #: The rules ids the levels play (all of ``rules_ids`` when None).
    levels_rules: tuple[str, ...] | None = None
    #: Games per pairing of the levels (``games`` when None).
    level_games: int | None = None
    #: Carry each list to the plan's rules id first (``pmim army translate``).
    translate: bool = False


def demo_bot() -> str:
    """The strongest bot that fits the demo's time budget: the search bot at a small budget
    when it exists, else tactician."""
    from pmim_analytics.engine import bots

    if "search" in bots.bot_names():
        return str(bots.parse_bot_spec(f"search:budget={DEMO_SEARCH_BUDGET}").label())  # type: ignore[attr-defined]
    return "tactician"


#: The search budget of the demo's games, the search bot's default: 3.4 to 4 games a second
#: on one core against itself (docs/bots.md).
DEMO_SEARCH_BUDGET = 100


def demo_games() -> int:
    """Games per pairing of the demo's bot: fewer for the search bot, so the demo builds in a few minutes."""
    return 20 if demo_bot() != "tactician" else 40


#: The scripted levels played beside the demo's bot.
SCRIPTED_LEVELS = ("random", "greedy", "tactician")


V3_ARMIES = ("v3-balanced", "v3-tank-heavy", "v3-infantry-swarm", "v3-mech-heavy", "v3-fast-gev")
V2_ARMIES = ("v2-playtest-balanced", "v2-playtest1-heavy", "v2-playtest2-infantry", "v2-lances-example")

#: The playtest lists that still fit v3 once translated (the infantry list is 74 points there).
V2_LISTS_IN_V3 = ("v2-playtest-balanced", "v2-playtest1-heavy", "v2-lances-example")

#: The sample variants that switch on one optional rule each (docs/rules-notes.md, "Optional rules").
OPTIONAL_RULE_VARIANTS = ("v3-heat", "v3-rolled-initiative", "v3-catch-up", "v3-rush")

#: The default demo: the v3 archetypes under v3 and every v3 variant (the designer's what-ifs,
#: and the four optional-rule variants on v3's seeds, so the impact report pairs their games),
#: the playtest lists under v2 as printed and as played (heavy Warmechs at DEF 6), and the same
#: playtest lists translated to v3, so "the same list under v2 and v3" has games to compare.
DEFAULT_PLANS = (
    DemoPlan(("v3", "v3-llaser-rpt4", "v3-heavy-def6", "v3-mjolnir-16", *OPTIONAL_RULE_VARIANTS), V3_ARMIES,
             demo_games(), bot=demo_bot(),
             levels=tuple(b for b in SCRIPTED_LEVELS if b != demo_bot()), levels_rules=("v3",), level_games=40),
    DemoPlan(("v2", "v2-heavy-def6"), V2_ARMIES, demo_games(), bot=demo_bot(),
             levels=tuple(b for b in SCRIPTED_LEVELS if b != demo_bot()), levels_rules=("v2-heavy-def6",),
             level_games=40),
    DemoPlan(("v3",), V2_LISTS_IN_V3, demo_games(), bot=demo_bot(), translate=True),
)


def _folder_bot(bot: str) -> str:
    return bot.replace(":", "-").replace("=", "").replace(",", "-")


def iter_batches(plans: tuple[DemoPlan, ...] = DEFAULT_PLANS) -> list[tuple[str, BatchSpec]]:
    """Every (folder name, batch) of the plans, in a fixed order with fixed seeds."""
    armies_dir = data_dir() / "armies"
    out: list[tuple[str, BatchSpec]] = []

    def roster(name: str, rules_id: str, translate: bool) -> Roster:
        army = load_army(armies_dir / f"{name}.yaml")
        if translate:
            army = translate_army(army, rules_id).army
            return validate_army(army)
        return validate_army(army, rules_id=rules_id)

    for plan in plans:
        for rules_id in plan.rules_ids:
            for i, (a, b) in enumerate(combinations(plan.armies, 2)):
                army_a, army_b = roster(a, rules_id, plan.translate), roster(b, rules_id, plan.translate)
                levels = plan.levels if plan.levels_rules is None or rules_id in plan.levels_rules else ()
                for bot in (plan.bot, *levels):
                    name = f"demo-{rules_id}-{a}-vs-{b}"
                    if bot != plan.bot:
                        name = f"demo-{_folder_bot(bot)}-{rules_id}-{a}-vs-{b}"
                    games = plan.games if bot == plan.bot else (plan.level_games or plan.games)
                    out.append((name, BatchSpec(rules_id, DEFAULT_SCENARIO, army_a, army_b, bot, bot,
                                                plan.seed + 1000 * i, games, name=name)))
    return out


@dataclass(frozen=True)
class RandomPlan:
    """Random legal armies paired at random: what the implied-cost fit needs."""

    rules_id: str
    pairs: int
    bot: str = "tactician"
    seed: int = 7
    pairs_per_part: int = 50
    min_points: int = 56  # each army spends a random budget from here to the limit


#: Random armies spend 56 to 72 points: a point can only be priced when the sides' totals
#: differ (the cost fit needs a spread of several points; lists that all spend 71-72 cannot).
DEFAULT_RANDOM = (RandomPlan("v3", 600),)
#: Games each random pair plays (one with each army as blue).
GAMES_PER_RANDOM_PAIR = 2


def count_planned_games(plans: tuple[DemoPlan, ...] = DEFAULT_PLANS,
                        random_plans: tuple[RandomPlan, ...] = DEFAULT_RANDOM) -> tuple[int, int]:
    """How many simulated games and batches the plans make (arithmetic only: loads no army)."""
    fixed, batches = 0, len(random_plans)
    for p in plans:
        for rules_id in p.rules_ids:
            levels = len(p.levels) if p.levels_rules is None or rules_id in p.levels_rules else 0
            pairs = comb(len(p.armies), 2)
            fixed += pairs * (p.games + levels * (p.level_games or p.games))
            batches += pairs * (1 + levels)
    return fixed + sum(p.pairs * GAMES_PER_RANDOM_PAIR for p in random_plans), batches


def random_pair_batch(plan: RandomPlan, pair: int) -> BatchSpec:
    """Pair ``pair`` of a random plan: two random armies (seeded by the pair), two games."""
    rng = random.Random(f"{plan.seed}:{plan.rules_id}:{pair}")
    limit = load_scenario(DEFAULT_SCENARIO).points_limit
    budgets = [rng.randint(min(plan.min_points, limit), limit) for _ in range(2)]
    a = validate_army(random_army(plan.rules_id, rng, name=f"random {pair}a", budget=budgets[0]))
    b = validate_army(random_army(plan.rules_id, rng, name=f"random {pair}b", budget=budgets[1]))
    name = f"demo-random-{plan.rules_id}"
    return BatchSpec(plan.rules_id, DEFAULT_SCENARIO, a, b, plan.bot, plan.bot, plan.seed * 100_003 + pair,
                     GAMES_PER_RANDOM_PAIR, name=name)


def _play_random_part(plan: RandomPlan, part: int, folder: Path) -> int:
    start = part * plan.pairs_per_part
    records = []
    for pair in range(start, min(start + plan.pairs_per_part, plan.pairs)):
        batch = random_pair_batch(plan, pair)
        records += [play_batch_game(batch, i) for i in range(batch.games)]
    write_part(folder, part, records)
    return len(records)


def play_random_plan(plan: RandomPlan, folder: Path, workers: int = 2) -> None:
    """Play every pair of a random plan into ``folder`` (one Parquet part per chunk of pairs)."""
    folder.mkdir(parents=True, exist_ok=True)
    parts = range((plan.pairs + plan.pairs_per_part - 1) // plan.pairs_per_part)
    if workers <= 1:
        for part in parts:
            _play_random_part(plan, part, folder)
        return
    with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("fork")) as pool:
        list(pool.map(_play_random_part, [plan] * len(parts), parts, [folder] * len(parts)))


def build_demo(db: str | Path | None, replays_dir: str | Path, plans: tuple[DemoPlan, ...] = DEFAULT_PLANS,
               workers: int = 2, progress: Callable[[str, int, int], None] | None = None,
               random_plans: tuple[RandomPlan, ...] = DEFAULT_RANDOM) -> IngestResult:
    """Simulate the demo batches into ``replays_dir`` (skipping those already there) and
    ingest them with the playtest logs into ``db``. Returns the ingest result."""
    root = Path(replays_dir)
    batches = iter_batches(plans)
    total = len(batches) + len(random_plans)
    folders = []
    for n, (name, batch) in enumerate(batches, start=1):
        folder = root / name
        folders.append(folder)
        if progress:
            progress(name, n, total)
        marker = folder / ".complete"
        if marker.exists():
            continue
        run_batch(batch, workers=workers, out=folder, fmt="parquet")
        marker.write_text(f"{batch.games} games\n")
    for n, plan in enumerate(random_plans, start=len(batches) + 1):
        folder = root / f"demo-random-{plan.rules_id}"
        folders.append(folder)
        if progress:
            progress(folder.name, n, total)
        marker = folder / ".complete"
        if not marker.exists():
            play_random_plan(plan, folder, workers)
            marker.write_text(f"{plan.pairs} random pairs\n")
    logs = sorted((data_dir() / "playtests").glob("*.pmimlog"))
    return ingest_paths([*logs, *folders], db)
