"""A game's timeline: the moments worth jumping to in a replay, each tied to its viewer step.

Three kinds of moment:

- ``kill``: a unit is destroyed (a ``unit_destroyed`` event);
- ``objective``: an objective changes hands at a round's scoring: a side scores it that did
  not score it the round before (it was the other side's, or nobody's);
- ``vp``: a round's scoring changes the VP totals.

Each moment names the step of :func:`~pmim_analytics.replay.steps.iter_steps` that shows it,
so a viewer can jump there; :func:`next_kill` and :func:`previous_kill` step between kills.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from pmim_analytics.model.events import VP, Event, RoundEnd, UnitDestroyed, dispatch
from pmim_analytics.replay.show import describe_event
from pmim_analytics.replay.steps import Step

KINDS = ("kill", "objective", "vp")


@dataclass(frozen=True)
class Moment:
    """One moment: its kind, the step (0-based, into the game's steps) that shows it, the
    event's sequence number and round, and what happened in words."""

    kind: str
    step: int
    seq: int
    round: int | None
    text: str


def _step_of(steps: Sequence[Step]) -> list[int]:
    """For each event index, the step that shows it."""
    out: list[int] = []
    for k, s in enumerate(steps):
        out.extend([k] * (s.last - s.first + 1))
    return out


class _Reader:
    """Walks a game's events once, noting its kills, objective changes and VP changes."""

    def __init__(self, where: list[int]) -> None:
        self.where = where
        self.out: list[Moment] = []
        self.held: dict[int, str] = {}  # objective -> side that scored it at the last scoring
        self.scoring: dict[int, str] = {}
        self.vp = (0, 0)
        self.i = 0

    def note(self, kind: str, ev: Event, text: str) -> None:
        self.out.append(Moment(kind, self.where[self.i], ev.seq, ev.round, text))

    def kill(self, ev: UnitDestroyed) -> None:
        self.note("kill", ev, describe_event(ev))

    def vp_scored(self, ev: VP) -> None:
        self.scoring[ev.objective] = ev.side
        before = self.held.get(ev.objective)
        if before != ev.side:
            self.note("objective", ev,
                      f"objective {ev.objective}: {ev.side} takes it" + (f" from {before}" if before else ""))

    def round_end(self, ev: RoundEnd) -> None:
        for obj, side in self.held.items():
            if obj not in self.scoring:
                self.note("objective", ev, f"objective {obj}: {side} no longer holds it")
        self.held, self.scoring = self.scoring, {}
        if (ev.blue_vp, ev.red_vp) != self.vp:
            gain = f"+{ev.blue_vp - self.vp[0]} blue, +{ev.red_vp - self.vp[1]} red"
            self.note("vp", ev, f"end of round {ev.round}: blue {ev.blue_vp}, red {ev.red_vp} VP ({gain})")
            self.vp = (ev.blue_vp, ev.red_vp)


def timeline(events: Sequence[Event], steps: Sequence[Step]) -> list[Moment]:
    """The kills, objective changes and VP changes of a game, in the order they happened."""
    reader = _Reader(_step_of(steps))
    handlers: dict[str, Callable[[Any], None]] = {
        "unit_destroyed": reader.kill, "vp": reader.vp_scored, "round_end": reader.round_end,
    }
    for i, ev in enumerate(events[: len(reader.where)]):
        reader.i = i
        dispatch(handlers, ev, default=lambda _ev: None)
    return reader.out


def next_kill(moments: Sequence[Moment], step: int) -> int | None:
    """The step of the first kill after ``step`` (0-based); None when there is none."""
    return next((m.step for m in moments if m.kind == "kill" and m.step > step), None)


def previous_kill(moments: Sequence[Moment], step: int) -> int | None:
    """The step of the last kill before ``step`` (0-based); None when there is none."""
    return next((m.step for m in reversed(moments) if m.kind == "kill" and m.step < step), None)
