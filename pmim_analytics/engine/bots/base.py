"""The one interface every bot implements, and how a bot declares its parameters."""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any, ClassVar

from pmim_analytics.engine.actions import Action
from pmim_analytics.engine.state import GameState


@dataclass(frozen=True)
class Param:
    """A whole-number parameter of a bot (``budget=400``): its default and allowed range."""

    default: int
    low: int
    high: int
    help: str = ""


class Bot(ABC):
    """A player: given the state at one of its decisions, it returns one legal action.

    Bots never roll the game's dice and never change the state they are given; their own
    randomness (tie-breaks, the random bot's choices, the dice a search bot imagines when
    it looks ahead on a clone) comes from ``rng``, which the driver seeds per game and side.

    A bot with parameters lists them in :attr:`params` and accepts them as keyword
    arguments; :attr:`takes_persona` says whether it reads a persona (``data/bots/``) and
    :attr:`takes_skill` whether it takes a ``skill`` from 0 to 1 (see
    :mod:`pmim_analytics.engine.bots.skill`).
    """

    name: ClassVar[str] = "bot"
    description: ClassVar[str] = ""
    params: ClassVar[dict[str, Param]] = {}
    takes_persona: ClassVar[bool] = False
    takes_skill: ClassVar[bool] = False

    def __init__(self, rng: random.Random, **options: Any) -> None:
        self.rng = rng

    @abstractmethod
    def choose(self, state: GameState) -> Action:
        """The action to take at ``state`` (whose ``current_side()`` this bot plays)."""
