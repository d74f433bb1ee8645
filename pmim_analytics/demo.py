"""The demo database: the designer's two real playtests, the sample logs and a simulated
round-robin, so that every report and dashboard page has something to show out of the box.

Deterministic: the same call builds the same games (the batch seeds are fixed), and ingest
is idempotent, so building it again adds nothing.
"""

from __future__ import annotations

import fcntl
import json
import multiprocessing
import os
import random
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from itertools import combinations, takewhile
from math import comb
from pathlib import Path
from typing import Any, Protocol

from pmim_analytics.errors import PmimError, display_path
from pmim_analytics.pipeline import COMPLETE_MARKER, SimRun, simulate_and_ingest
from pmim_analytics.replay.parquet import write_part
from pmim_analytics.rules import DEFAULT_SCENARIO, Roster, data_dir, load_army, load_scenario, validate_army
from pmim_analytics.rules.generate import random_army
from pmim_analytics.rules.translate import translate_army
from pmim_analytics.sim.batch import BatchSpec, play_batch_game
from pmim_analytics.store.connection import process_alive, read_frame, resolve_db_path
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
    #: Skill levels of the bot (``search:skill=0.75``, issue #29) that play the same batches
    #: under the levels' rules ids, ``skill_games`` a pairing, so the robustness report has
    #: its skill columns.
    skill_levels: tuple[str, ...] = ()
    skill_games: int = 0


def demo_bot() -> str:
    """The strongest bot that fits the demo's time budget: the search bot at a small budget
    when it exists, else tactician."""
    from pmim_analytics.engine import bots

    if "search" in bots.bot_names():
        return str(bots.parse_bot_spec(f"search:budget={DEMO_SEARCH_BUDGET}").label())
    return "tactician"


#: The search budget of the demo's games, the search bot's default: 3.4 to 4 games a second
#: on one core against itself (docs/bots.md).
DEMO_SEARCH_BUDGET = 100


def demo_games() -> int:
    """Games per pairing of the demo's bot: fewer for the search bot, so the demo builds in a few minutes."""
    return 20 if demo_bot() != "tactician" else 40


#: The skills of the demo's bot played beside its best play (v3 only), and their games a pairing:
#: 10 pairings x 3 skills x 12 games, about two minutes of one core.
DEMO_SKILLS = (0.5, 0.75, 0.9)
SKILL_GAMES = 12


def skill_levels() -> tuple[str, ...]:
    """The demo bot at :data:`DEMO_SKILLS` as bot specs (none when the bot has no skill setting)."""
    from pmim_analytics.engine import bots

    bot = demo_bot()
    try:
        return tuple(str(bots.parse_bot_spec(f"{bot}{',' if ':' in bot else ':'}skill={s}").label())
                     for s in DEMO_SKILLS)
    except PmimError:
        return ()


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
             levels=tuple(b for b in SCRIPTED_LEVELS if b != demo_bot()), levels_rules=("v3",), level_games=40,
             skill_levels=skill_levels(), skill_games=SKILL_GAMES),
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
                skills = plan.skill_levels if plan.levels_rules is None or rules_id in plan.levels_rules else ()
                for bot in (plan.bot, *levels, *skills):
                    name = f"demo-{rules_id}-{a}-vs-{b}"
                    if bot != plan.bot:
                        name = f"demo-{_folder_bot(bot)}-{rules_id}-{a}-vs-{b}"
                    games = plan.games if bot == plan.bot else (plan.level_games or plan.games)
                    games = plan.skill_games if bot in skills else games
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
            skills = len(p.skill_levels) if p.levels_rules is None or rules_id in p.levels_rules else 0
            pairs = comb(len(p.armies), 2)
            fixed += pairs * (p.games + levels * (p.level_games or p.games) + skills * p.skill_games)
            batches += pairs * (1 + levels + skills)
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
    ingest them with the playtest logs into ``db``, batch by batch. Returns the ingest result
    (the sum of the batches'). The scripted ladder is the command line's to add
    (:func:`build_steps` with a ``ladder``)."""
    spec = DemoSpec("custom", plans, random_plans, ladder_bots=())

    def step(p: BuildProgress) -> None:
        if progress and p.phase == "start":
            progress(p.current, p.steps_done + 1, p.steps_total)

    return build_steps(demo_steps(spec), db, replays_dir, workers=workers, progress=step).ingest


# --- Building in steps: a quick core first, the rest batch by batch (in the background) ----------

#: Files the builder keeps in the demo's replays folder.
STATUS_FILE = "status.json"
LOG_FILE = "builder.log"
LOCK_FILE = ".builder.lock"
#: A batch is simulated under this prefix and renamed to its own name once whole.
PARTIAL_PREFIX = ".partial-"
#: Whole batches are stored together, in one ingest (one transaction): the core's at once, the
#: others up to this many games or until the first of them was simulated this many seconds ago
#: (each ingest costs a second or two however small).
GROUP_GAMES = 600
GROUP_SECONDS = 30.0


@dataclass(frozen=True)
class DemoSpec:
    """Everything one demo builds: its round robins and random armies, which of them make the
    quick core (``core_bot`` under ``core_rules``, so the first answers rest on one named bot
    level), and the scripted ladder the core also stores (the Bots page's ratings)."""

    name: str
    plans: tuple[DemoPlan, ...]
    random_plans: tuple[RandomPlan, ...]
    core_rules: str = "v3"
    core_bot: str = "tactician"
    ladder_bots: tuple[str, ...] = SCRIPTED_LEVELS
    ladder_armies: tuple[str, ...] = V3_ARMIES
    ladder_seed: int = 2026

    @property
    def ladder_games(self) -> int:
        """Games of the ladder: every bot pair over every ordered army pairing, twice (blue and red)."""
        return comb(len(self.ladder_bots), 2) * len(self.ladder_armies) ** 2 * 2


#: The demo ``make run`` builds.
FULL_DEMO = DemoSpec("full", DEFAULT_PLANS, DEFAULT_RANDOM)
#: A demo of under a hundred games in seconds: three v3 lists, four games a pairing, the
#: scripted bots only (to try the tool, or to test the builder).
SMALL_DEMO = DemoSpec(
    "small",
    (DemoPlan(("v3",), ("v3-balanced", "v3-tank-heavy", "v3-fast-gev"), 4, bot="tactician",
              levels=("random", "greedy"), levels_rules=("v3",), level_games=4),),
    (RandomPlan("v3", 4, pairs_per_part=2),),
    ladder_bots=("random", "greedy"), ladder_armies=("v3-balanced", "v3-tank-heavy"))
DEMOS = {d.name: d for d in (FULL_DEMO, SMALL_DEMO)}


@dataclass(frozen=True)
class DemoStep:
    """One unit of the build, stored whole or not at all: a batch of games (``batch``), the
    random armies (``random_plan``) or the scripted ladder (neither)."""

    name: str
    games: int
    bot: str
    core: bool
    batch: BatchSpec | None = None
    random_plan: RandomPlan | None = None

    @property
    def is_ladder(self) -> bool:
        return self.batch is None and self.random_plan is None


def core_size(spec: DemoSpec = FULL_DEMO) -> tuple[int, int]:
    """Games and steps of the demo's core, counted without loading an army (as
    :func:`count_planned_games`; :func:`demo_steps` marks the same ones)."""
    games, steps = 0, 0
    for p in spec.plans:
        if spec.core_rules not in p.rules_ids:
            continue
        levels = p.levels if p.levels_rules is None or spec.core_rules in p.levels_rules else ()
        for bot in (p.bot, *levels):
            if bot == spec.core_bot:
                pairs = comb(len(p.armies), 2)
                games += pairs * (p.games if bot == p.bot else (p.level_games or p.games))
                steps += pairs
    if spec.ladder_bots:
        games, steps = games + spec.ladder_games, steps + 1
    return games, steps


def demo_steps(spec: DemoSpec = FULL_DEMO) -> list[DemoStep]:
    """The demo's steps in build order: the core (its bot's batches under its rules id, then
    the ladder), then the other batches in plan order, then the random armies."""
    core: list[DemoStep] = []
    rest: list[DemoStep] = []
    for name, b in iter_batches(spec.plans):
        is_core = b.rules_id == spec.core_rules and b.bot_a == spec.core_bot
        (core if is_core else rest).append(DemoStep(name, b.games, b.bot_a, is_core, batch=b))
    if spec.ladder_bots:
        core.append(DemoStep(f"ladder-{spec.core_rules}", spec.ladder_games, spec.core_bot, True))
    for plan in spec.random_plans:
        rest.append(DemoStep(f"demo-random-{plan.rules_id}", plan.pairs * GAMES_PER_RANDOM_PAIR, plan.bot, False,
                             random_plan=plan))
    return core + rest


class LadderStep(Protocol):
    """The scripted ladder of the core, supplied by the caller (the bot lab sits beside this module)."""

    def stored(self, db: str | Path | None) -> bool:
        """True when the database already holds this ladder run."""

    def run(self, db: str | Path | None, workers: int) -> None:
        """Play the ladder and store it in one transaction."""


@dataclass
class BuildProgress:
    """Where a build is, at step ``current``: ``phase`` is begun or resumed (before the first step
    to build), start, simulated (or found: simulated whole by an earlier build), storing (a group
    of simulated steps, ``current`` the last), stored (each step of the group), group stored
    (once after them)."""

    phase: str
    current: str
    steps_done: int
    steps_total: int
    games_done: int
    games_total: int
    seconds: float


@dataclass
class BuildResult:
    """What a build did: the steps and games stored (this run or before), the summed ingest."""

    steps_done: int = 0
    steps_total: int = 0
    games_done: int = 0
    games_total: int = 0
    ingest: IngestResult = field(default_factory=IngestResult)
    interrupted: bool = False

    @property
    def whole(self) -> bool:
        return self.steps_done == self.steps_total


def _add(total: IngestResult, r: IngestResult) -> None:
    total.loaded += r.loaded
    total.events += r.events
    total.duplicates += r.duplicates
    total.rejected += r.rejected
    total.not_attempted += r.not_attempted
    total.notes += r.notes
    total.seconds += r.seconds
    total.inputs += r.inputs
    total.interrupted = total.interrupted or r.interrupted
    total.batches_committed += r.batches_committed


def stored_batches(db: str | Path | None) -> dict[str, int]:
    """Games per batch name already in the database (none when there is no database yet)."""
    if not resolve_db_path(db).exists():
        return {}
    frame = read_frame("SELECT batch, count(*) AS n FROM games WHERE batch IS NOT NULL GROUP BY batch", db=db)
    return dict(zip(frame["batch"].to_list(), frame["n"].to_list(), strict=True))


def _simulate(step: DemoStep, root: Path, workers: int) -> tuple[Path, bool]:
    """Play a random plan's step into a hidden folder and rename it into place once whole; the
    folder, and False when it was whole already (played by an earlier build that stopped before
    storing it). A batch's step is played by :func:`~pmim_analytics.pipeline.simulate_and_ingest`."""
    assert step.random_plan is not None
    folder = root / step.name
    if (folder / COMPLETE_MARKER).exists():
        return folder, False
    partial = root / f"{PARTIAL_PREFIX}{step.name}"
    shutil.rmtree(partial, ignore_errors=True)
    try:
        play_random_plan(step.random_plan, partial, workers)
        (partial / COMPLETE_MARKER).write_text(f"{step.games} games\n")
        shutil.rmtree(folder, ignore_errors=True)  # an older, unfinished layout of the same batch
        os.replace(partial, folder)
    finally:
        shutil.rmtree(partial, ignore_errors=True)
    return folder, True


def build_steps(steps: list[DemoStep], db: str | Path | None, replays_dir: str | Path, *, workers: int = 2,
                ladder: LadderStep | None = None, progress: Callable[[BuildProgress], None] | None = None,
                logs: bool = True, status: StatusWriter | None = None, core_only: bool = False) -> BuildResult:
    """Build the steps the database does not hold whole yet, one by one (only the core ones
    with ``core_only``). Batches are simulated and stored in groups by
    :func:`~pmim_analytics.pipeline.simulate_and_ingest` (the one way a batch goes from the engine
    into the database), each group in one ingest, one transaction. A batch folder is whole once
    it has its ``.complete`` marker; one without it (a killed build's) is played again from
    scratch, so an interrupted build leaves no half batch in the database, and the next build
    goes on where it stopped (a whole folder not yet stored is stored, not played again). The playtest
    logs are ingested with the core (``logs``: when a core step is still to build).

    Ctrl-C (``KeyboardInterrupt``) rolls back the step in flight and returns with ``interrupted``
    set. ``status`` records every step in the folder's status file."""
    root = Path(replays_dir)
    root.mkdir(parents=True, exist_ok=True)
    for stale in root.glob(f"{PARTIAL_PREFIX}*"):  # left by a killed build
        shutil.rmtree(stale, ignore_errors=True)
    result = BuildResult(steps_total=len(steps), games_total=sum(s.games for s in steps))
    started = time.perf_counter()

    def tell(phase: str, step: DemoStep) -> None:
        p = BuildProgress(phase, step.name, result.steps_done, result.steps_total, result.games_done,
                          result.games_total, time.perf_counter() - started)
        if status:
            status.update(p)
        if progress:
            progress(p)

    def finished(step: DemoStep) -> None:
        result.steps_done += 1
        result.games_done += step.games
        if status:
            status.done(step)

    try:
        have = stored_batches(db)
        todo = []
        for step in steps:
            if step.is_ladder:
                done = ladder is None or ladder.stored(db)
            else:
                done = have.get(step.name, 0) >= step.games
            if done:
                finished(step)
            else:
                todo.append(step)
        if todo:
            tell("resumed" if result.steps_done else "begun", todo[0])
        found = sorted((data_dir() / "playtests").glob("*.pmimlog"))
        if logs and found and (any(s.core for s in todo) or not any(s.core for s in steps)):  # with the core
            _add(result.ingest, ingest_paths(list(found), db, workers=1))
        def play_and_store(group: list[DemoStep]) -> int:
            """Simulate a group of batches and store them in one ingest (one transaction): the core's
            together; the others until GROUP_GAMES games or GROUP_SECONDS after the first began.
            Returns how many of ``group`` were stored (the rest make the next group)."""
            core = group[0].core
            played: list[tuple[DemoStep, float | None]] = []  # (step, seconds it took; None: found whole)
            whole: list[bool] = []
            began: list[float] = []
            ingest_began = [0.0]

            def simulated(k: int) -> None:
                s, seconds = group[k], None
                if not whole[k]:
                    seconds = time.perf_counter() - began[k]
                    if status:  # the pace counts from the first batch of each bot, before it is stored
                        status.rate(s.bot, s.games, seconds)
                played.append((s, seconds))
                tell("found" if whole[k] else "simulated", s)

            def starting(k: int, run: SimRun) -> None:
                if k:
                    simulated(k - 1)
                assert run.out is not None
                whole.append((run.out / COMPLETE_MARKER).exists())
                if not whole[k]:
                    shutil.rmtree(run.out, ignore_errors=True)  # half a batch, left by a killed build
                tell("start", group[k])
                began.append(time.perf_counter())

            def enough(k: int) -> bool:
                return not core and (sum(s.games for s in group[:k + 1]) > GROUP_GAMES
                                     or time.perf_counter() - began[0] > GROUP_SECONDS)

            def storing() -> None:
                simulated(len(played))
                tell("storing", played[-1][0])
                ingest_began[0] = time.perf_counter()

            # the core's games are this installation's own output, signed by the pipeline (which
            # signs only the files each run wrote): stored without replaying them through the rules
            # again (as ``pmim ingest --trust-own``), so the first answers come sooner
            done = simulate_and_ingest(
                [SimRun(s.batch, root / s.name) for s in group if s.batch is not None], db, workers=workers,
                skip_complete=True, sign=core, trust_own=core, starting=starting, enough=enough,
                before_ingest=storing, ingest_workers=lambda games: workers if games > 200 and not core else 1)
            assert done.ingest is not None
            _add(result.ingest, done.ingest)
            if done.ingest.interrupted:
                raise KeyboardInterrupt
            share = (time.perf_counter() - ingest_began[0]) / sum(s.games for s, _ in played)
            for s, seconds in played:
                if status and seconds is not None:  # its share of the ingest (its playing time is counted)
                    status.rate(s.bot, 0, share * s.games)
                finished(s)
                tell("stored", s)
            tell("group stored", played[-1][0])
            return len(played)

        pending = [s for s in todo if s.core] if core_only else list(todo)
        while pending:
            step = pending[0]
            if step.is_ladder:
                tell("start", step)
                t0 = time.perf_counter()
                assert ladder is not None
                ladder.run(db, workers)
                if status:
                    status.rate(step.bot, step.games, time.perf_counter() - t0)
                finished(step)
                tell("stored", step)
                pending.pop(0)
            elif step.random_plan is not None:  # random armies, not one batch: played by the plan, then stored
                tell("start", step)
                t0 = time.perf_counter()
                folder, fresh = _simulate(step, root, workers)
                if status and fresh:
                    status.rate(step.bot, step.games, time.perf_counter() - t0)
                tell("simulated" if fresh else "found", step)
                tell("storing", step)
                r = ingest_paths([folder], db, workers=workers if step.games > 200 else 1)
                _add(result.ingest, r)
                if r.interrupted:
                    raise KeyboardInterrupt
                finished(step)
                tell("stored", step)
                tell("group stored", step)
                pending.pop(0)
            else:
                group = list(takewhile(lambda s: s.batch is not None and s.core == pending[0].core, pending))
                del pending[:play_and_store(group)]
    except KeyboardInterrupt:
        result.interrupted = True
    return result


class StatusWriter:
    """Keeps ``status.json`` in the replays folder up to date while a build runs (written whole:
    a reader never meets half a file)."""

    def __init__(self, replays_dir: str | Path, spec: str, steps: list[DemoStep], db: str | Path | None) -> None:
        self.root = Path(replays_dir)
        self.steps = steps
        self.data: dict[str, Any] = {
            "demo": spec, "state": "building", "pid": os.getpid(), "db": str(resolve_db_path(db)),
            "started": _now(), "updated": _now(), "steps_done": 0, "steps_total": len(steps), "core_done": False,
            "games_done": 0, "games_total": sum(s.games for s in steps), "current": None,
            "core_total": sum(1 for s in steps if s.core), "rates": {}, "seconds_left": None, "error": None}
        old = read_status(self.root)
        if old and old.get("demo") == spec:
            self.data["rates"] = old.get("rates") or {}  # a resumed build estimates from the last one's pace
        self._done: set[str] = set()
        self._played: set[str] = set()  # simulated, maybe not yet stored
        self.write()

    def done(self, step: DemoStep) -> None:
        """Count a step stored (now or by an earlier build)."""
        self._done.add(step.name)
        self.data.update(steps_done=len(self._done),
                         games_done=sum(s.games for s in self.steps if s.name in self._done),
                         core_done=all(s.name in self._done for s in self.steps if s.core))

    def update(self, p: BuildProgress) -> None:
        if p.phase in ("simulated", "found"):
            self._played.add(p.current)
        self.data["current"] = p.current if p.phase in ("start", "simulated", "found") else None
        self.data["seconds_left"] = self._left()
        self.write()

    def rate(self, bot: str, games: int, seconds: float) -> None:
        """Record that ``games`` more games of ``bot`` took ``seconds`` more to build (for the
        estimate; the games are counted when played, their share of an ingest when stored)."""
        s, g = self.data["rates"].get(bot, (0.0, 0))
        self.data["rates"][bot] = (s + seconds, g + games)

    def _left(self) -> float | None:
        """Seconds left at each bot's own pace so far; None while a bot still to play has no pace yet."""
        left = 0.0
        for s in self.steps:
            if s.name in self._done or s.name in self._played:
                continue
            seconds, games = self.data["rates"].get(s.bot, (0.0, 0))
            if not games:
                return None
            left += s.games * seconds / games
        return round(left, 1)

    def finish(self, state: str, error: str | None = None) -> None:
        self.data.update(state=state, error=error, current=None, seconds_left=0 if state == "done" else None)
        self.write()

    def write(self) -> None:
        self.data["updated"] = _now()
        self.root.mkdir(parents=True, exist_ok=True)
        tmp = self.root / f".{STATUS_FILE}.{os.getpid()}"
        tmp.write_text(json.dumps(self.data, indent=1) + "\n")
        os.replace(tmp, self.root / STATUS_FILE)


def _now() -> float:
    return round(time.time(), 1)


def read_status(replays_dir: str | Path) -> dict[str, Any] | None:
    """The raw status file of a demo folder, or None."""
    try:
        data = json.loads((Path(replays_dir) / STATUS_FILE).read_text())
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


@contextmanager
def builder_lock(replays_dir: str | Path, wait: bool = False) -> Iterator[bool]:
    """Hold the demo folder's builder lock for the ``with`` block; yields False (holding nothing)
    when another builder has it and ``wait`` is False. Released when the process ends, however."""
    root = Path(replays_dir)
    root.mkdir(parents=True, exist_ok=True)
    fd = os.open(root / LOCK_FILE, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
        except BlockingIOError:
            yield False
            return
        yield True
    finally:
        os.close(fd)


def builder_running(replays_dir: str | Path) -> bool:
    """True while a builder holds the folder's lock."""
    path = Path(replays_dir) / LOCK_FILE
    if not path.exists():
        return False
    fd = os.open(path, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(fd)
    return False


@dataclass(frozen=True)
class DemoStatus:
    """Where the demo build of a folder stands. ``state``: building, stopped (killed or
    interrupted before the end), done or failed."""

    state: str
    demo: str
    steps_done: int
    steps_total: int
    games_done: int
    games_total: int
    core_done: bool
    seconds_left: float | None
    pid: int | None
    error: str | None
    folder: Path
    db: str | None = None

    @property
    def building(self) -> bool:
        return self.state == "building"

    def sentence(self) -> str:
        """One line for the dashboard's banner and ``pmim demo --status``."""
        if self.state == "building":
            left = f"about {_duration(self.seconds_left)} left" if self.seconds_left is not None else \
                "estimating the time left"
            return (f"demo still building: {self.steps_done} of {self.steps_total} batches "
                    f"({self.games_done:,} of {self.games_total:,} games), {left}")
        if self.state == "done":
            return f"demo complete: {self.steps_total} batches, {self.games_total:,} games"
        where = display_path(self.folder)
        if self.state == "failed":
            return (f"demo build failed after {self.steps_done} of {self.steps_total} batches: {self.error}; "
                    f"see {display_path(self.folder / LOG_FILE)}")
        return (f"demo build stopped at {self.steps_done} of {self.steps_total} batches ({where}); "
                "`make run` or `pmim demo --background` finishes it")


def _duration(seconds: float) -> str:
    if seconds < 90:
        return f"{max(1, round(seconds))} s"
    return f"{round(seconds / 60)} min"


def demo_status(replays_dir: str | Path = Path("replays/demo")) -> DemoStatus | None:
    """The demo build's status in ``replays_dir`` (None when no build ever ran there). A build
    whose process is gone without finishing reads as stopped."""
    root = Path(replays_dir)
    data = read_status(root)
    if data is None:
        return None
    state = str(data.get("state", "stopped"))
    pid = data.get("pid")
    if state == "building" and not builder_running(root):
        state = "stopped"
    elif state == "starting":  # spawned, not yet holding the lock
        state = "building" if isinstance(pid, int) and process_alive(pid) else "stopped"
    left = data.get("seconds_left")
    if state == "building" and isinstance(left, int | float):
        left = max(0.0, left - max(0.0, time.time() - float(data.get("updated") or time.time())))
    return DemoStatus(state, str(data.get("demo", "")), int(data.get("steps_done") or 0),
                      int(data.get("steps_total") or 0), int(data.get("games_done") or 0),
                      int(data.get("games_total") or 0), bool(data.get("core_done")),
                      float(left) if isinstance(left, int | float) and state == "building" else None,
                      pid if isinstance(pid, int) else None, data.get("error"), root,
                      str(data["db"]) if data.get("db") else None)


def start_background(spec: str, replays_dir: str | Path, db: str | Path | None, workers: int = 2) -> int | None:
    """Start a builder of the whole demo as a process of its own (its own session, so it outlives
    the terminal and ``make run``), logging to ``builder.log`` in the folder. Returns its process
    id, or None when a builder already runs there."""
    root = Path(replays_dir).resolve()
    if builder_running(root):
        return None
    root.mkdir(parents=True, exist_ok=True)
    cmd = [sys.executable, "-m", "pmim_analytics", "demo", "--builder", "--plan", spec, "--replays", str(root),
           "--db", str(resolve_db_path(db).resolve()), "--workers", str(workers)]
    with open(root / LOG_FILE, "a") as log:
        log.write(f"--- {time.strftime('%Y-%m-%d %H:%M:%S')} started: {' '.join(cmd)}\n")
        log.flush()
        proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                                start_new_session=True, env={**os.environ, "PYTHONUNBUFFERED": "1"})
    data = read_status(root) or {}
    data.update(state="starting", pid=proc.pid, demo=spec, updated=_now())
    tmp = root / f".{STATUS_FILE}.{os.getpid()}"
    tmp.write_text(json.dumps(data, indent=1) + "\n")
    if not builder_running(root):  # the builder may have taken over (and written) already
        os.replace(tmp, root / STATUS_FILE)
    else:
        tmp.unlink(missing_ok=True)
    return proc.pid
