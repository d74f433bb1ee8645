"""A game cut into viewer steps: deployment, each activation, each round's scoring, the end.

The replay viewer's slider moves over these steps; the board at a step is
``fold_events(units, events, upto=step.upto_seq)`` and the events new at that step are
``events[step.first:step.last + 1]``. Works for engine replays and manual logs alike
(a summary log without rounds is one step of logged events and the result; one with rounds,
a step of logged events per round).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from pmim_analytics.model.events import Activate, Event, RoundEnd, dispatch


@dataclass(frozen=True)
class Step:
    """Events ``first..last`` (indexes into the event list, inclusive), shown together."""

    first: int
    last: int
    upto_seq: int
    round: int | None
    label: str


#: The step each event type opens, and the types of the event before it that it joins
#: instead (a deployment after a deployment, the first activation after the round start,
#: the scoring events of one round end); other types join the current step.
_OPENS: dict[str, tuple[str, frozenset[str]]] = {
    "deploy": ("deploy", frozenset({"deploy"})),
    "round_start": ("round", frozenset()),
    "activate": ("activate", frozenset({"round_start"})),
    "vp": ("score", frozenset({"vp", "round_end"})),
    "round_end": ("score", frozenset({"vp", "round_end"})),
    "game_end": ("end", frozenset()),
}


def _kind(ev: Event, prev: Event | None) -> str | None:
    """What step an event opens (``None``: it joins the current step)."""
    opens = _OPENS.get(ev.type)
    if opens is None or (prev is not None and prev.type in opens[1]):
        return None
    return opens[0]


def _round(ev: Event) -> str:
    return f"Round {ev.round}" if ev.round is not None else "No round given"


def _logged(ev: Event) -> str:
    return f"{_round(ev)}: logged events"


#: The label of a step, by the type of the event that opens it.
_LABELS: dict[str, Callable[[Any], str]] = {
    "deploy": lambda ev: "Deployment",
    "round_start": lambda ev: f"{_round(ev)} begins ({ev.first} first)",
    "activate": lambda ev: f"{_round(ev)}: {ev.unit} activates",
    "vp": lambda ev: f"{_round(ev)}: scoring",
    "round_end": lambda ev: f"{_round(ev)}: scoring",
    "game_end": lambda ev: "Game over",
}


def _label(ev: Event, events: Sequence[Event], i: int) -> str:
    nxt = events[i + 1] if i + 1 < len(events) else None
    if ev.type == "round_start" and isinstance(nxt, Activate):  # the round's first activation shares its step
        return f"{_round(ev)}: {nxt.unit} activates"
    return dispatch(_LABELS, ev, default=_logged)


def iter_steps(events: Sequence[Event]) -> list[Step]:
    """The viewer steps of a game, in order; empty for a game without events."""
    starts: list[int] = []
    prev: Event | None = None
    for i, ev in enumerate(events):
        # a step opens where the rules open one, and where the round changes (a summary log's
        # round-4 loss is filed under round 4, not with the losses before it)
        if (not starts or _kind(ev, prev) is not None
                or (ev.round is not None and ev.round != events[starts[-1]].round)):
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
    return any(ev.type == "deploy" for ev in events)
