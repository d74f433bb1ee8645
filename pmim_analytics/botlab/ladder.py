"""The bot ladder: a round robin of bots over the sample armies of a rules version.

Every pair of bots meets over every pairing of the sample armies legal under the rules
(an army against itself included), each bot playing each army of the pairing, and every
such configuration ``games_per_pairing`` times with each bot as blue and as red. Games are
determined by (seed, bots, armies, game number), never by the number of workers. Each
game records how long each side's bot took to decide, and the events the adherence
figures need (reduced to a few counts as soon as the game is played, so a long ladder does
not hold its games' events); ratings (:mod:`pmim_analytics.analytics.ratings`) and adherence
(:mod:`pmim_analytics.analytics.adherence`) are computed from them in Polars and the
whole run is stored in one transaction (:mod:`pmim_analytics.store.ladder`).
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from itertools import combinations, combinations_with_replacement
from pathlib import Path
from typing import Any

import polars as pl

from pmim_analytics.analytics.adherence import adherence_by, side_adherence
from pmim_analytics.analytics.ratings import bradley_terry, head_to_head
from pmim_analytics.analytics.robustness import level_key
from pmim_analytics.botlab.botlist import split_bot_list
from pmim_analytics.engine.actions import Action
from pmim_analytics.engine.bots import Bot, bot_names, check_bot_name, make_bot
from pmim_analytics.engine.dice import game_streams, optional_rule_dice
from pmim_analytics.engine.driver import run
from pmim_analytics.engine.spec import GameSpec
from pmim_analytics.engine.state import GameState
from pmim_analytics.errors import InvalidArmyError, Location, PmimError, display_path
from pmim_analytics.limits import MAX_LADDER_GAMES, check_bootstrap, check_games_per_pairing
from pmim_analytics.model.events import GameEnd
from pmim_analytics.rules import data_dir, load_army, load_rules, validate_army
from pmim_analytics.rules.army import Roster
from pmim_analytics.rules.catalogue import DEFAULT_SCENARIO, load_scenario
from pmim_analytics.sim.backends import LocalBackend
from pmim_analytics.sim.batch import BatchSpec, PartJob, chunks

#: Search budgets the default ladder rates, when the search bot exists.
SEARCH_BUDGETS = (0, 100, 400)


def bot_label(text: str) -> str:
    """The canonical name of a bot spec (``search:budget=400``), or a plain bot's name.

    Raises :class:`UnknownNameError` for an unknown bot and :class:`PmimError` for bad
    parameters (whatever the bot spec parser says).
    """
    try:
        from pmim_analytics.engine.bots import parse_bot_spec
    except ImportError:  # before bot specs exist: plain names only
        return check_bot_name(text.strip())
    return str(parse_bot_spec(text).label())


def default_bots() -> list[str]:
    """Every built-in bot, and the search bot at each of :data:`SEARCH_BUDGETS` when it exists."""
    out = []
    for name in bot_names():
        if name == "search":
            out += [bot_label(f"search:budget={b}") for b in SEARCH_BUDGETS]
        else:
            out.append(name)
    return sorted(out, key=level_key)


def parse_bot_list(text: str | None, min_bots: int = 2) -> list[str]:
    """Bots from a comma-separated list (``random,greedy,search:budget=400``); the default list
    when ``text`` is None. Spec parameters separated by commas stay with their bot.

    Raises :class:`PmimError` for an unknown bot, bad parameters, a repeat or fewer than
    ``min_bots`` bots.
    """
    if text is None:
        return default_bots()
    labels = [bot_label(x) for x in split_bot_list(text)]
    repeats = sorted({x for x in labels if labels.count(x) > 1})
    if repeats:
        raise PmimError(f"--bots names {', '.join(repeats)} more than once; list each bot once")
    if len(labels) < min_bots:
        raise PmimError("--bots needs at least two bots to rate, e.g. --bots random,greedy" if min_bots == 2
                        else f"--bots needs at least {min_bots} bot(s)")
    return labels


def sample_armies(rules_id: str, scenario_id: str = DEFAULT_SCENARIO) -> list[tuple[str, Roster]]:
    """(file stem, roster) of every army in ``data/armies`` written for the rules version
    (a variant's base for a variant) and legal under ``rules_id``.

    Raises :class:`PmimError` when none is (and :class:`UnknownNameError` for an unknown rules id).
    """
    rules = load_rules(rules_id)
    written_for = {rules_id, rules.base or rules_id}
    found = []
    for path in sorted((data_dir() / "armies").glob("*.yaml")):
        try:
            army = load_army(path)
            if army.rules not in written_for:
                continue
            found.append((path.stem, validate_army(army, rules_id, scenario_id)))
        except (InvalidArmyError, PmimError):
            continue
    if not found:
        raise PmimError(f"no army in data/armies is legal under {rules_id}; add one or choose another --rules")
    return found


def _seed(seed: int, *parts: object) -> int:
    text = ":".join(str(p) for p in (seed, *parts))
    return int(hashlib.sha256(text.encode()).hexdigest()[:12], 16)


@dataclass(frozen=True)
class LadderPlan:
    """What a ladder run plays: rules, bots (labels), armies, games per configuration, seed."""

    rules_id: str
    bots: tuple[str, ...]
    armies: tuple[tuple[str, Roster], ...]
    games_per_pairing: int = 1
    seed: int = 0
    scenario_id: str = DEFAULT_SCENARIO

    def run_id(self) -> str:
        """Same plan, same id (a stored run is replaced when the same plan runs again)."""
        text = repr((self.rules_id, self.scenario_id, self.bots, tuple((n, r.content_hash()) for n, r in self.armies),
                     self.games_per_pairing, self.seed))
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    def batches(self) -> list[BatchSpec]:
        """One batch per (bot pair, army pairing, which bot has which army), in a fixed order."""
        if self.games_per_pairing < 1:
            raise PmimError(f"--games-per-pairing must be at least 1, got {self.games_per_pairing}")
        out = []
        for x, y in combinations(self.bots, 2):
            for (na, ra), (nb, rb) in combinations_with_replacement(self.armies, 2):
                configs = [(na, ra, nb, rb)] if na == nb else [(na, ra, nb, rb), (nb, rb, na, ra)]
                for n1, r1, n2, r2 in configs:
                    name = f"ladder:{x}|{y}|{n1}|{n2}"
                    out.append(BatchSpec(self.rules_id, self.scenario_id, r1, r2, x, y,
                                         _seed(self.seed, x, y, n1, n2), 2 * self.games_per_pairing, name=name))
        return out

    @property
    def games(self) -> int:
        """Total number of games."""
        return len(self.batches()) * 2 * self.games_per_pairing


class _TimedBot(Bot):
    """Passes decisions through to a bot, adding up the time it takes."""

    name = "timed"

    def __init__(self, inner: Bot) -> None:
        super().__init__(inner.rng)
        self.inner = inner
        self.seconds = 0.0
        self.decisions = 0

    def choose(self, state: GameState) -> Action:
        t0 = time.perf_counter()
        action = self.inner.choose(state)
        self.seconds += time.perf_counter() - t0
        self.decisions += 1
        return action


_KEEP = ("deploy", "move", "unit_destroyed")


@dataclass
class LadderGame:
    """One ladder game: who played what, the result, the bots' thinking time, the events adherence needs."""

    batch: str
    game_index: int
    bots: tuple[str, str]
    armies: tuple[str, str]
    winner: str | None
    reason: str
    rounds: int
    vp: tuple[int, int]
    seconds: tuple[float, float]
    decisions: tuple[int, int]
    engine_seconds: float
    events: list[tuple[Any, ...]] = field(default_factory=list)
    units: list[tuple[Any, ...]] = field(default_factory=list)
    #: blue reachable, blue contested, red reachable, red contested (:func:`side_adherence`), once
    #: :func:`compact` has reduced the events to them
    adherence: tuple[int, int, int, int] | None = None


def compact(game: LadderGame, objectives: Sequence[tuple[int, int]], radius: int) -> LadderGame:
    """``game`` with its events reduced to the adherence counts they give and dropped: a played
    game is kept as a few numbers, so a ladder's memory does not grow with its games' events."""
    if game.adherence is not None:
        return game
    events, units = events_frames([game])
    gf = pl.DataFrame({"game_id": [0], "rounds": [game.rounds], "blue_vp": [game.vp[0]], "red_vp": [game.vp[1]]})
    sides = {row["side"]: (row["reachable"], row["contested"])
             for row in side_adherence(events, units, gf, objectives, radius).iter_rows(named=True)}
    return replace(game, events=[], units=[], adherence=(*sides["blue"], *sides["red"]))


def play_ladder_game(batch: BatchSpec, i: int) -> LadderGame:
    """Game ``i`` of ``batch`` with timed bots (the same game as :func:`~pmim_analytics.engine.driver.play_game`)."""
    blue, red, blue_bot, red_bot, _swapped = batch.sides(i)
    spec = GameSpec.create(batch.rules_id, batch.scenario_id, blue, red)
    dice, blue_rng, red_rng = game_streams(batch.seed, i)
    bots = (_TimedBot(make_bot(blue_bot, blue_rng)), _TimedBot(make_bot(red_bot, red_rng)))
    t0 = time.perf_counter()
    extra = optional_rule_dice(batch.seed, i) if not spec.rules.optional.is_empty() else None
    state = run(spec, bots[0], bots[1], dice, extra)
    total = time.perf_counter() - t0
    end = state.events[-1]
    # an engine game ends with its game_end, which knows the rounds and both VP totals
    assert isinstance(end, GameEnd) and end.rounds is not None and end.blue_vp is not None and end.red_vp is not None
    names = batch.name.split("|") if batch.name else ["", "", "", ""]
    army_a, army_b = names[2], names[3]
    armies = (army_b, army_a) if i % 2 else (army_a, army_b)
    events = [(e.seq, e.round, e.type, getattr(e, "unit", None),
               *(getattr(e, "hex", None) or getattr(e, "to_hex", None) or (None, None)))
              for e in state.events if e.type in _KEEP]
    units = [(p.id, "blue" if p.side == 0 else "red", p.mov) for p in spec.profiles]
    return LadderGame(batch.name or "", i, (blue_bot, red_bot), armies, end.winner, end.reason,
                      end.rounds, (end.blue_vp, end.red_vp),
                      (bots[0].seconds, bots[1].seconds), (bots[0].decisions, bots[1].decisions),
                      max(0.0, total - bots[0].seconds - bots[1].seconds), events, units)


@dataclass(frozen=True)
class LadderJob(PartJob):
    """A chunk of a ladder batch as one backend job; its result is a list of :class:`LadderGame`.

    A worker only plays: it may be a forked process, where Polars (which :func:`compact` uses)
    hangs, so the games are reduced in the parent as each chunk comes back.
    """

    # why the ignore below: a PartJob returns GameOutcomes; a ladder chunk returns its games as LadderGames
    def play(self, should_stop: Callable[[], bool] | None = None) -> list[LadderGame]:  # type: ignore[override]
        """Play the chunk's games in order (stopping between games when asked)."""
        from pmim_analytics.sim.batch import PartStopped

        games = []
        for i in range(self.start, self.stop):
            if should_stop is not None and should_stop():
                raise PartStopped(f"ladder batch stopped before game {i}")
            games.append(play_ladder_game(self.batch, i))
        return games


def play_ladder(plan: LadderPlan, workers: int = 1,
                progress: Callable[[int, int], None] | None = None) -> list[LadderGame]:
    """Play every game of the plan on ``workers`` processes; games come back in plan order.

    ``progress(done, total)`` is called as batches finish. Ctrl-C stops the workers after
    their current game and propagates. Raises :class:`PmimError` for a bad worker count.
    """
    # chunks of a batch: a worker hands back at most PART_SIZE games with their events at a time
    jobs = [LadderJob(b, part, start, stop, None) for b in plan.batches() for part, start, stop in chunks(b.games)]
    scen = load_scenario(plan.scenario_id)
    objectives = [(c, r) for c, r in scen.objectives.hexes]
    order = {id(j): k for k, j in enumerate(jobs)}
    results: dict[int, list[LadderGame]] = {}
    done = 0
    total = sum(j.games for j in jobs)
    backend = LocalBackend(workers)
    gen = backend.run(jobs)
    try:
        for job, games in gen:
            key = order.get(id(job))
            if key is None:  # a job that came back from another process: find it by value
                key = jobs.index(job)  # type: ignore[arg-type]  # the backend types jobs as PartJob: these are LadderJobs
            # why the ignore below: the backend types a job's results as GameOutcomes; a LadderJob's are LadderGames
            results[key] = [compact(g, objectives, scen.objectives.radius) for g in games]  # type: ignore[arg-type]
            done += len(games)
            if progress:
                progress(done, total)
    finally:
        gen.close()
    return [g for k in range(len(jobs)) for g in results[k]]


def games_frame(games: Sequence[LadderGame]) -> pl.DataFrame:
    """One row per game: game_no, batch, game_index, blue/red bot and army, result, VP, timings."""
    return pl.DataFrame([{
        "game_no": n, "batch": g.batch, "game_index": g.game_index, "blue_bot": g.bots[0], "red_bot": g.bots[1],
        "blue_army": g.armies[0], "red_army": g.armies[1], "winner": g.winner, "reason": g.reason,
        "rounds": g.rounds, "blue_vp": g.vp[0], "red_vp": g.vp[1], "blue_seconds": g.seconds[0],
        "red_seconds": g.seconds[1], "blue_decisions": g.decisions[0], "red_decisions": g.decisions[1],
        "engine_seconds": g.engine_seconds} for n, g in enumerate(games)],
        schema_overrides={"winner": pl.String})


def events_frames(games: Sequence[LadderGame]) -> tuple[pl.DataFrame, pl.DataFrame]:
    """The kept events (game_id, seq, round, type, unit, to_col, to_row) and the units (game_id,
    unit_id, side, mov) of the games, game_id being the game's number in the run."""
    ev = [(n, *e) for n, g in enumerate(games) for e in g.events]
    un = [(n, *u) for n, g in enumerate(games) for u in g.units]
    events = pl.DataFrame(ev, schema={"game_id": pl.Int64, "seq": pl.Int64, "round": pl.Int64, "type": pl.String,
                                      "unit": pl.String, "to_col": pl.Int64, "to_row": pl.Int64}, orient="row")
    units = pl.DataFrame(un, schema={"game_id": pl.Int64, "unit_id": pl.String, "side": pl.String,
                                     "mov": pl.Int64}, orient="row")
    return events, units


@dataclass(frozen=True)
class LadderResult:
    """A finished run: its plan, id, one row per game, and the table of ratings."""

    plan: LadderPlan
    run_id: str
    games: pl.DataFrame
    ratings: pl.DataFrame
    seconds: float

    def head_to_head(self) -> pl.DataFrame:
        """Points per game of each bot against each other bot."""
        return head_to_head(results_frame(self.games))


def results_frame(games: pl.DataFrame) -> pl.DataFrame:
    """``bot_a, bot_b, score_a`` (blue's bot, red's bot, blue's points: 1, ½ or 0) of a games frame."""
    return games.select(
        pl.col("blue_bot").alias("bot_a"), pl.col("red_bot").alias("bot_b"),
        score_a=pl.when(pl.col("winner") == "blue").then(1.0).when(pl.col("winner") == "red").then(0.0).otherwise(0.5))


def rate(plan: LadderPlan, games: Sequence[LadderGame], bootstrap: int = 200) -> tuple[pl.DataFrame, pl.DataFrame]:
    """(games frame, ratings frame) of a played ladder.

    Ratings: bot, rating, lo, hi, games, score, decisions, ms_per_decision, games_per_s,
    adherence, vp_per_round. ``games_per_s`` estimates the rate of a game where both sides
    are this bot on one core: 1 / (2 x its thinking time per game + the engine's time per game).
    """
    gf = games_frame(games)
    results = results_frame(gf)
    ratings = bradley_terry(results, list(plan.bots), bootstrap=bootstrap, seed=plan.seed)
    per_side = gf.select(
        pl.concat_list("blue_bot", "red_bot").alias("bot"),
        pl.concat_list("blue_seconds", "red_seconds").alias("sec"),
        pl.concat_list("blue_decisions", "red_decisions").alias("dec"), "engine_seconds").explode("bot", "sec", "dec")
    speed = (per_side.group_by("bot").agg(decisions=pl.col("dec").sum(), sec=pl.col("sec").sum(), n=pl.len(),
                                          engine=pl.col("engine_seconds").mean())
             .with_columns(ms_per_decision=1000 * pl.col("sec") / pl.col("decisions"),
                           games_per_s=1.0 / (2 * pl.col("sec") / pl.col("n") + pl.col("engine")))
             .select("bot", "decisions", "ms_per_decision", "games_per_s"))
    scen = load_scenario(plan.scenario_id)
    objectives = [(c, r) for c, r in scen.objectives.hexes]
    counts = [compact(g, objectives, scen.objectives.radius).adherence for g in games]
    sides = pl.DataFrame(
        [(n, side, c[k], c[k + 1], g.vp[j], g.rounds)
         for n, (g, c) in enumerate(zip(games, counts, strict=True)) if c is not None
         for j, (side, k) in enumerate((("blue", 0), ("red", 2)))],
        schema={"game_id": pl.Int64, "side": pl.String, "reachable": pl.Int64, "contested": pl.Int64,
                "vp": pl.Int64, "rounds": pl.Int64}, orient="row")
    bots_by_side = gf.select(pl.col("game_no").alias("game_id"), "blue_bot", "red_bot")
    sides = sides.join(bots_by_side, on="game_id").with_columns(
        bot=pl.when(pl.col("side") == "blue").then(pl.col("blue_bot")).otherwise(pl.col("red_bot")))
    adherence = adherence_by(sides, "bot")
    table = ratings.join(speed, on="bot", how="left").join(adherence, on="bot", how="left").sort(
        "rating", descending=True)
    return gf, table


def run_ladder(plan: LadderPlan, workers: int = 1, progress: Callable[[int, int], None] | None = None,
               bootstrap: int = 200) -> LadderResult:
    """Play and rate a ladder (nothing is stored: see :func:`pmim_analytics.store.ladder.save_ladder`)."""
    check_bootstrap(bootstrap)
    t0 = time.perf_counter()
    games = play_ladder(plan, workers, progress)
    gf, table = rate(plan, games, bootstrap)
    return LadderResult(plan, plan.run_id(), gf, table, time.perf_counter() - t0)


def ladder_plan(rules_id: str, bots: str | None = None, games_per_pairing: int = 1, seed: int = 0,
                armies: Sequence[Path] | None = None) -> LadderPlan:
    """The plan for ``pmim bots ladder``: the bots listed (or the default ones) over the sample
    armies legal under ``rules_id`` (or the given army files). Raises :class:`PmimError` for
    bad input."""
    labels = parse_bot_list(bots)
    if armies:
        rosters = []
        load_rules(rules_id)
        for p in armies:
            try:
                rosters.append((p.stem, validate_army(load_army(p), rules_id)))
            except InvalidArmyError as e:
                raise PmimError(f"the army is not legal under {rules_id}: " + "; ".join(e.violations),
                                Location(display_path(p))) from None
        stems = [n for n, _ in rosters]
        if len(set(stems)) < len(stems):
            raise PmimError("--army names the same file name twice; give each army once")
    else:
        rosters = sample_armies(rules_id)
    check_games_per_pairing(games_per_pairing)
    plan = LadderPlan(rules_id, tuple(labels), tuple(rosters), games_per_pairing, seed)
    if plan.games > MAX_LADDER_GAMES:
        raise PmimError(f"this ladder would play {plan.games:,} games, over the ceiling of {MAX_LADDER_GAMES:,} "
                        "(MAX_LADDER_GAMES, docs/limits.md); give fewer bots, armies or games per pairing")
    return plan
