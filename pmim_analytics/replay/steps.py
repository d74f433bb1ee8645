"""A game cut into viewer steps: deployment, each activation, each round's scoring, the end.

The replay viewer's slider moves over these steps; the board at a step is
``fold_events(units, events, upto=step.upto_seq)`` and the events new at that step are
``events[step.first:step.last + 1]``. Works for engine replays and manual logs alike
(a summary log without rounds is one step of logged events and the result).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from pmim_analytics.model.events import VP, Activate, Deploy, Event, GameEnd, RoundEnd, RoundStart


@dataclass(frozen=True)
class Step:
    """Events ``first..last`` (indexes into the event list, inclusive), shown together."""

    first: int
    last: int
    upto_seq: int
    round: int | None
    label: str


def _kind(ev: Event, prev: Event | None) -> str | None:
    """What step an event opens (``None``: it joins the current step)."""
    if isinstance(ev, Deploy):
        return None if isinstance(prev, Deploy) else "deploy"
    if isinstance(ev, RoundStart):
        return "round"
    if isinstance(ev, Activate):
        return None if isinstance(prev, RoundStart) else "activate"
    if isinstance(ev, (VP, RoundEnd)):
        return None if isinstance(prev, (VP, RoundEnd)) else "score"
    if isinstance(ev, GameEnd):
        return "end"
    return None


def _label(ev: Event, events: Sequence[Event], i: int) -> str:
    rnd = f"Round {ev.round}" if ev.round is not None else "No round given"
    if isinstance(ev, Deploy):
        return "Deployment"
    if isinstance(ev, RoundStart):
        nxt = events[i + 1] if i + 1 < len(events) else None
        who = f": {nxt.unit} activates" if isinstance(nxt, Activate) else f" begins ({ev.first} first)"
        return f"{rnd}{who}"
    if isinstance(ev, Activate):
        return f"{rnd}: {ev.unit} activates"
    if isinstance(ev, (VP, RoundEnd)):
        return f"{rnd}: scoring"
    if isinstance(ev, GameEnd):
        return "Game over"
    return f"{rnd}: logged events"


def iter_steps(events: Sequence[Event]) -> list[Step]:
    """The viewer steps of a game, in order; empty for a game without events."""
    starts: list[int] = []
    prev: Event | None = None
    for i, ev in enumerate(events):
        if not starts or _kind(ev, prev) is not None:
            starts.append(i)
        prev = ev
    out = []
    for k, first in enumerate(starts):
        last = (starts[k + 1] - 1) if k + 1 < len(starts) else len(events) - 1
        ev = events[first]
        out.append(Step(first, last, events[last].seq, ev.round, _label(ev, events, first)))
    return out


def round_vp(events: Sequence[Event]) -> list[tuple[int, int, int]]:
    """(round, blue VP, red VP) at the end of each logged round."""
    return [(ev.round, ev.blue_vp, ev.red_vp) for ev in events if isinstance(ev, RoundEnd) and ev.round is not None]


def has_positions(events: Sequence[Event]) -> bool:
    """True when the game says where units stand (deployments), so a board can be drawn."""
    return any(isinstance(ev, Deploy) for ev in events)
