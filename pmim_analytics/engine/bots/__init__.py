"""Bots: players outside the game state, chosen by name.

A new bot is one :class:`~pmim_analytics.engine.bots.base.Bot` subclass in its own file,
added to :data:`BOTS`.
"""

from __future__ import annotations

import random

from pmim_analytics.engine.bots.base import Bot
from pmim_analytics.engine.bots.greedy import GreedyBot
from pmim_analytics.engine.bots.random_bot import RandomBot
from pmim_analytics.engine.bots.tactician import TacticianBot
from pmim_analytics.errors import UnknownNameError

#: Every bot by name.
BOTS: dict[str, type[Bot]] = {cls.name: cls for cls in (RandomBot, GreedyBot, TacticianBot)}


def bot_names() -> list[str]:
    """The names of every bot, sorted."""
    return sorted(BOTS)


def check_bot_name(name: str) -> str:
    """Return ``name`` if a bot has it; raise :class:`UnknownNameError` listing the bots otherwise."""
    if name not in BOTS:
        raise UnknownNameError(f"unknown bot {name!r}; choose one of {', '.join(bot_names())}")
    return name


def make_bot(name: str, rng: random.Random) -> Bot:
    """A new bot of the named kind; raises :class:`UnknownNameError` for an unknown name."""
    return BOTS[check_bot_name(name)](rng)


__all__ = ["BOTS", "Bot", "bot_names", "check_bot_name", "make_bot"]
