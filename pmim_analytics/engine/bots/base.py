"""The one interface every bot implements."""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from typing import ClassVar

from pmim_analytics.engine.actions import Action
from pmim_analytics.engine.state import GameState


class Bot(ABC):
    """A player: given the state at one of its decisions, it returns one legal action.

    Bots never roll dice and never change the state; their own randomness (tie-breaks,
    the random bot's choices) comes from ``rng``, which the driver seeds per game and side.
    """

    name: ClassVar[str] = "bot"
    description: ClassVar[str] = ""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    @abstractmethod
    def choose(self, state: GameState) -> Action:
        """The action to take at ``state`` (whose ``current_side()`` this bot plays)."""
