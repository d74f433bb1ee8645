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

from collections.abc import Sequence
from dataclasses import dataclass

from pmim_analytics.model.events import VP, Event, RoundEnd, UnitDestroyed
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


def timeline(events: Sequence[Event], steps: Sequence[Step]) -> list[Moment]:
    """The kills, objective changes and VP changes of a game, in the order they happened."""
    where = _step_of(steps)
    out: list[Moment] = []
    held: dict[int, str] = {}  # objective -> side that scored it at the last scoring
    scoring: dict[int, str] = {}
    vp = (0, 0)
    for i, ev in enumerate(events):
        if i >= len(where):
            break
        if isinstance(ev, UnitDestroyed):
            out.append(Moment("kill", where[i], ev.seq, ev.round, describe_event(ev)))
        elif isinstance(ev, VP):
            scoring[ev.objective] = ev.side
            if held.get(ev.objective) != ev.side:
                before = held.get(ev.objective)
                text = (f"objective {ev.objective}: {ev.side} takes it" + (f" from {before}" if before else ""))
                out.append(Moment("objective", where[i], ev.seq, ev.round, text))
        elif isinstance(ev, RoundEnd):
            for obj, side in held.items():
                if obj not in scoring:
                    out.append(Moment("objective", where[i], ev.seq, ev.round,
                                      f"objective {obj}: {side} no longer holds it"))
            held, scoring = scoring, {}
            if (ev.blue_vp, ev.red_vp) != vp:
                gain = f"+{ev.blue_vp - vp[0]} blue, +{ev.red_vp - vp[1]} red"
                out.append(Moment("vp", where[i], ev.seq, ev.round,
                                  f"end of round {ev.round}: blue {ev.blue_vp}, red {ev.red_vp} VP ({gain})"))
                vp = (ev.blue_vp, ev.red_vp)
    return out


def next_kill(moments: Sequence[Moment], step: int) -> int | None:
    """The step of the first kill after ``step`` (0-based); None when there is none."""
    return next((m.step for m in moments if m.kind == "kill" and m.step > step), None)


def previous_kill(moments: Sequence[Moment], step: int) -> int | None:
    """The step of the last kill before ``step`` (0-based); None when there is none."""
    return next((m.step for m in reversed(moments) if m.kind == "kill" and m.step < step), None)
