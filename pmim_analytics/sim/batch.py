"""Batches of games: a matchup played many times on a process pool, written as replays.

A batch is (rules, scenario, army A and its bot, army B and its bot, seed, number of
games). Game ``i`` is fully determined by (batch, i): its dice come from
:func:`~pmim_analytics.engine.dice.game_seed_sequence` and army A plays blue in even games,
red in odd games. Games are played in chunks of :data:`PART_SIZE` consecutive indices;
:func:`play_part` plays one chunk and writes it (one Parquet part, or one JSON Lines file a
game), so the output is the same whatever the number of workers or the backend: a
backend (:mod:`pmim_analytics.sim.backends`) only has to run a :class:`PartJob` for
every chunk, and :func:`~pmim_analytics.sim.runner.run_batch` drives one.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Collection, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from pmim_analytics.engine.driver import play_game
from pmim_analytics.engine.spec import GameSpec
from pmim_analytics.errors import PmimError
from pmim_analytics.model.events import GameEnd
from pmim_analytics.replay.format import GameRecord, write_game
from pmim_analytics.rules.army import Roster
from pmim_analytics.rules.catalogue import rules_with_stats
from pmim_analytics.rules.readings import Readings
from pmim_analytics.sim.parts import PART_SIZE as PART_SIZE  # games per chunk and part, re-exported

FORMATS = ("jsonl", "parquet")


@dataclass(frozen=True)
class BatchSpec:
    """Everything that defines a batch's games. ``name`` goes into each header's ``batch``."""

    rules_id: str
    scenario_id: str
    army_a: Roster
    army_b: Roster
    bot_a: str
    bot_b: str
    seed: int
    games: int
    name: str | None = None
    played: str | None = None
    first_player: str | None = None  # overrides the scenario's first_player setting
    readings: Readings | None = None  # the readings in doubt (rules.readings); None = as written
    #: Stats played instead of the rules id's own (``(("weapons.LL.rpt", 4),)``: a candidate of
    #: ``pmim balance propose --knobs``); empty = the rules as written.
    stats: tuple[tuple[str, int], ...] = ()

    def sides(self, game_index: int) -> tuple[Roster, Roster, str, str, bool]:
        """(blue army, red army, blue bot, red bot, swapped) of one game: army A is blue in even games."""
        if game_index % 2 == 0:
            return self.army_a, self.army_b, self.bot_a, self.bot_b, False
        return self.army_b, self.army_a, self.bot_b, self.bot_a, True


@dataclass(frozen=True, slots=True)
class GameOutcome:
    """One game's result from the armies' point of view (``winner`` is ``"A"``, ``"B"`` or None)."""

    game_index: int
    winner: str | None
    reason: str
    rounds: int
    vp_a: int
    vp_b: int


def chunks(games: int, part_size: int = PART_SIZE) -> Iterator[tuple[int, int, int]]:
    """(part, start, stop) of every chunk of a batch of ``games`` games."""
    for part, start in enumerate(range(0, games, part_size)):
        yield part, start, min(games, start + part_size)


def play_batch_game(batch: BatchSpec, game_index: int, specs: dict[bool, GameSpec] | None = None) -> GameRecord:
    """Play game ``game_index`` of ``batch`` (sides swapped in odd games) and return its record."""
    blue, red, blue_bot, red_bot, swapped = batch.sides(game_index)
    spec = specs.get(swapped) if specs is not None else None
    if spec is None:
        rules = rules_with_stats(batch.rules_id, batch.stats) if batch.stats else None
        spec = GameSpec.create(batch.rules_id, batch.scenario_id, blue, red, batch.first_player,
                               readings=batch.readings, rules=rules)
        if specs is not None:
            specs[swapped] = spec
    return play_game(spec, blue_bot, red_bot, batch.seed, game_index, batch.name, batch.played)


def outcome_from_end(game_index: int, winner: str | None, reason: str, rounds: int, blue_vp: int,
                     red_vp: int) -> GameOutcome:
    """A game's result seen from army A and army B, from its ``game_end`` (army A is red in odd games)."""
    swapped = game_index % 2 == 1
    a_side = "red" if swapped else "blue"
    by_army = None if winner is None else ("A" if winner == a_side else "B")
    vp_a, vp_b = (red_vp, blue_vp) if swapped else (blue_vp, red_vp)
    return GameOutcome(game_index, by_army, reason, rounds, vp_a, vp_b)


def outcome_of(batch: BatchSpec, record: GameRecord) -> GameOutcome:
    """The result of a played game, seen from army A and army B."""
    end = record.events[-1]
    # an engine game ends with its game_end, which knows the rounds and both VP totals
    assert isinstance(end, GameEnd) and end.rounds is not None and end.blue_vp is not None and end.red_vp is not None
    return outcome_from_end(record.header.game_index or 0, end.winner, end.reason, end.rounds,
                            end.blue_vp, end.red_vp)


def part_files(out: Path, fmt: str, part: int, start: int, stop: int) -> list[Path]:
    """The files a chunk writes: its Parquet pair, or one JSON Lines file per game."""
    if fmt == "parquet":
        return [out / f"events.{part:05d}.parquet", out / f"games.{part:05d}.parquet"]
    return [out / jsonl_name(i) for i in range(start, stop)]


def jsonl_name(game_index: int) -> str:
    """File name of a game in a JSON Lines batch folder."""
    return f"game-{game_index:06d}.jsonl"


class PartStopped(Exception):
    """A chunk was abandoned before it was written (the batch is being interrupted)."""


def play_part(batch: BatchSpec, part: int, start: int, stop: int, out: str | Path | None,
              fmt: str = "parquet", should_stop: Callable[[], bool] | None = None) -> list[GameOutcome]:
    """Play games ``[start, stop)`` of ``batch`` and write them as part ``part`` under ``out``.

    With ``out=None`` nothing is written (benchmarks). ``should_stop`` is asked between
    games; when it says yes the chunk is dropped unwritten and :class:`PartStopped` is
    raised. Raises :class:`PmimError` for an unknown format.
    """
    if fmt not in FORMATS:
        raise PmimError(f"unknown format {fmt!r}; choose jsonl or parquet")
    specs: dict[bool, GameSpec] = {}
    records = []
    for i in range(start, stop):
        if should_stop is not None and should_stop():
            raise PartStopped(f"part {part} stopped before game {i}")
        records.append(play_batch_game(batch, i, specs))
    if out is not None:
        folder = Path(out)
        if fmt == "parquet":
            from pmim_analytics.replay.parquet import write_part

            write_part(folder, part, records)
        else:
            folder.mkdir(parents=True, exist_ok=True)
            for rec in records:
                write_game(rec, folder / jsonl_name(rec.header.game_index or 0))
    return [outcome_of(batch, r) for r in records]


@dataclass(frozen=True)
class PartJob:
    """One chunk of one batch: games ``[start, stop)`` written as part ``part`` under ``out``.

    The unit of work every backend schedules. The same job always plays the same games and
    writes the same files, so running it twice (a retried task) changes nothing.
    """

    batch: BatchSpec
    part: int
    start: int
    stop: int
    out: Path | None
    fmt: str = "parquet"

    @property
    def games(self) -> int:
        """Number of games in the chunk."""
        return self.stop - self.start

    def play(self, should_stop: Callable[[], bool] | None = None) -> list[GameOutcome]:
        """Play and write the chunk (see :func:`play_part`)."""
        return play_part(self.batch, self.part, self.start, self.stop, self.out, self.fmt, should_stop)

    def files(self) -> list[Path]:
        """The files the chunk writes under ``out`` (events before games for Parquet).

        Raises :class:`PmimError` if the job writes nothing (``out`` is None).
        """
        if self.out is None:
            raise PmimError("this job writes no files")
        return part_files(self.out, self.fmt, self.part, self.start, self.stop)


def batch_jobs(batch: BatchSpec, out: Path | None, fmt: str = "parquet", part_size: int = PART_SIZE,
               skip: Collection[int] = ()) -> list[PartJob]:
    """The jobs of a whole batch, leaving out the parts in ``skip`` (already written)."""
    return [PartJob(batch, part, start, stop, out, fmt)
            for part, start, stop in chunks(batch.games, part_size) if part not in skip]


def wilson_interval(successes: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """Wilson score interval of a proportion (95% with the default z)."""
    if n == 0:
        return (0.0, 1.0)
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


@dataclass
class BatchSummary:
    """Results of a batch: wins per army, draws, rounds and end reasons."""

    games: int = 0
    wins_a: int = 0
    wins_b: int = 0
    draws: int = 0
    total_rounds: int = 0
    reasons: Counter[str] = field(default_factory=Counter)
    outcomes: list[GameOutcome] = field(default_factory=list)
    #: keep each game's outcome in ``outcomes`` (off: only the counts, so a long batch whose
    #: games stream to disk holds no per-game list in memory)
    keep_outcomes: bool = True

    def add(self, outcomes: list[GameOutcome]) -> None:
        """Count more games."""
        for o in outcomes:
            self.games += 1
            self.wins_a += o.winner == "A"
            self.wins_b += o.winner == "B"
            self.draws += o.winner is None
            self.total_rounds += o.rounds
            self.reasons[o.reason] += 1
        if self.keep_outcomes:
            self.outcomes.extend(outcomes)

    @property
    def mean_rounds(self) -> float:
        """Average number of rounds per game."""
        return self.total_rounds / self.games if self.games else 0.0

