"""``random``: uniformly random legal actions -- the conformance baseline."""

from __future__ import annotations

from pmim_analytics.engine.actions import Action
from pmim_analytics.engine.bots.base import Bot
from pmim_analytics.engine.state import GameState


class RandomBot(Bot):
    """Picks uniformly among ``state.legal_actions()`` at every decision."""

    name = "random"
    description = "uniformly random legal actions (the conformance baseline)"

    def choose(self, state: GameState) -> Action:
        """A uniformly random legal action."""
        return self.rng.choice(state.legal_actions())
