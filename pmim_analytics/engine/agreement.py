"""Would a bot have made the logged choices? Decision agreement over a detailed game log.

The logged game is replayed through the engine exactly as ``pmim replay verify`` does
(recorded choices and dice). Just before each logged **move** and **attack** of a unit
that is active, every bot is asked what it would do next in that very position (a fresh
bot, its own seeded random stream, the state untouched). It agrees with a move when its
next action moves the same unit to the same hex, and with an attack when its next action
fires at the same target (any weapon). A bot that would first do something else (fire
before moving, end the activation) does not agree: the figure is "the bot's next action
matches the player's", the strictest reading. A log whose attacks record no dice is
followed up to its first such attack (the position after it is unknown).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

from pmim_analytics.engine.actions import FireWeapon, MoveUnit
from pmim_analytics.engine.bots import make_bot
from pmim_analytics.engine.checks import BATTLE
from pmim_analytics.engine.verify import _Checker, _Stop
from pmim_analytics.errors import PmimError
from pmim_analytics.model.events import Attack, Event, Move
from pmim_analytics.model.hexes import Hex
from pmim_analytics.model.record import GameRecord


@dataclass
class Agreement:
    """Counts for one bot over one or more logs."""

    moves: int = 0
    moves_agreed: int = 0
    targets: int = 0
    targets_agreed: int = 0
    skipped: int = 0  # decisions the bot could not be asked about (it raised on the position)

    def add(self, other: Agreement) -> None:
        """Add another count in place."""
        self.moves += other.moves
        self.moves_agreed += other.moves_agreed
        self.targets += other.targets
        self.targets_agreed += other.targets_agreed
        self.skipped += other.skipped


class _Asker(_Checker):
    """The verifier's replay, asking the bots before each logged move and attack."""

    def __init__(self, record: GameRecord, bots: Sequence[str], seed: int) -> None:
        super().__init__(record, list(range(1, len(record.events) + 2)))
        self.bots = bots
        self.seed = seed
        self.counts = {b: Agreement() for b in bots}

    def input_event(self, ev: Event) -> None:
        st = self.state
        if (isinstance(ev, Move | Attack) and st is not None and st.phase == BATTLE and st.active is not None
                and st.active.id == ev.unit and not st.is_chance_node()):
            for bot in self.bots:
                self._ask(bot, ev)
        super().input_event(ev)

    def feed_dice(self, ev: Attack) -> set[str]:
        """The recorded dice; a log without them (rolls are optional at the table) cannot be followed further."""
        if ev.roll is None or None in tuple(ev.roll):
            raise _Stop("the log records no dice for this attack")
        return super().feed_dice(ev)

    def _ask(self, bot: str, ev: Move | Attack) -> None:
        c = self.counts[bot]
        assert self.state is not None
        try:
            action = make_bot(bot, random.Random(f"{self.seed}:{ev.seq}:{bot}")).choose(self.state)
        except (PmimError, ValueError, IndexError, KeyError, AssertionError):
            c.skipped += 1
            return
        if isinstance(ev, Move):
            c.moves += 1
            c.moves_agreed += isinstance(action, MoveUnit) and action.unit == ev.unit and action.to == Hex(*ev.to_hex)
        else:
            c.targets += 1
            c.targets_agreed += isinstance(action, FireWeapon) and action.unit == ev.unit and action.target == ev.target


def decision_agreement(record: GameRecord, bots: Sequence[str], seed: int = 0) -> dict[str, Agreement]:
    """Per bot, how many of the logged moves and attack targets its next action would match.

    A log without moves or attacks gives zero counts. Raises :class:`UnknownNameError` for an
    unknown bot.
    """
    for b in bots:
        make_bot(b, random.Random(0))
    asker = _Asker(record, bots, seed)
    asker.run()
    return asker.counts
