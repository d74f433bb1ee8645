"""Skill: how well a planning bot plays, from 0 (a uniformly random legal move) to 1 (its best).

A bot of skill ``s`` between 0 and 1 makes near-misses rather than blunders. At the start
of each activation it lists the candidate activations it could play -- every unit it has
not activated yet, each with a small portfolio of destinations -- scored in VP by one
common static evaluation (the search bot's), its own choice carrying the top score. It then
draws one with a softmax at temperature

    T = 0.5 VP x (1 - s) / s

so a candidate ``d`` VP worse than its choice is played with weight ``exp(-d / T)`` against
1 for the choice: at 0.75 a move 0.5 VP worse is about 20 times rarer than the choice, at
0.5 about 2.7 times. The draw comes from the bot's own random stream, so a seed still
fixes the game. Skill 1 draws nothing and is exactly the bot without a skill setting;
skill 0 plays the ``random`` bot's game move for move (every decision a uniformly random
legal action, deployment included). The bot counts its activations, the ones where it
departed from its own choice, and the misplays among those (a departure :data:`MISPLAY`
VP or more worse by its own evaluation; many departures swap moves worth the same), so a
report can say "misplays about 1 activation in N" (:class:`SkillCounter`,
:func:`~pmim_analytics.engine.driver.departure_counts`); the near-miss draw itself is
:func:`pmim_analytics.engine.bots.greedy.scripted_activation` and the search bot's own.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass

from pmim_analytics.errors import BotSpecError

#: VP of temperature at skill 1/2 (T = SCALE x (1 - s) / s).
SCALE = 0.5
#: Decimal places a skill is kept to (its canonical text never has more).
PLACES = 4


def temperature(skill: float) -> float:
    """The softmax temperature in VP of ``skill`` (0 at skill 1, infinite at 0)."""
    if skill >= 1.0:
        return 0.0
    if skill <= 0.0:
        return math.inf
    return SCALE * (1.0 - skill) / skill


def parse_skill(bot: str, text: str) -> float:
    """The skill written ``text`` in bot ``bot``'s spec, checked to lie in [0, 1]."""
    try:
        value = float(text.replace("_", ""))
    except ValueError:
        raise BotSpecError(f"bot {bot!r}: skill={text!r} is not a number; use a number from 0 to 1 "
                           f"(e.g. {bot}:skill=0.75)") from None
    if not math.isfinite(value) or not 0.0 <= value <= 1.0:
        raise BotSpecError(f"bot {bot!r}: skill={text} is out of range; use a number from 0 to 1 "
                           f"(e.g. {bot}:skill=0.75)")
    return round(value, PLACES)


def format_skill(skill: float) -> str:
    """The canonical text of a skill: ``0.75``, ``0``, ``1``."""
    return f"{skill:.{PLACES}f}".rstrip("0").rstrip(".")


def near_miss(rng: random.Random, scores: list[float], best: int, temp: float) -> int:
    """Index drawn from a softmax over ``scores`` at temperature ``temp`` (VP), the choice
    ``best`` weighing as the top score whatever its own (so it stays the likeliest)."""
    top = max(scores)
    weights = [1.0 if i == best else math.exp((min(s, top) - top) / temp) if temp < math.inf else 1.0
               for i, s in enumerate(scores)]
    r = rng.random() * sum(weights)
    for i, w in enumerate(weights):
        r -= w
        if r < 0:
            return i
    return len(weights) - 1


#: A departure that costs at least this many VP by the bot's own evaluation is a misplay
#: (many departures swap moves worth the same: two units that both only hold, say).
MISPLAY = 0.1


@dataclass
class SkillCounter:
    """Activations a skill bot played, how many departed from its own choice, how many of those
    were misplays (:data:`MISPLAY` VP or more worse by its evaluation) and their total cost."""

    activations: int = 0
    departures: int = 0
    misplays: int = 0
    shortfall: float = 0.0

    @property
    def rate(self) -> float:
        """Share of activations played otherwise than the bot's choice (0 when none played)."""
        return self.departures / self.activations if self.activations else 0.0

    @property
    def misplay_rate(self) -> float:
        """Share of activations that were misplays (0 when none played)."""
        return self.misplays / self.activations if self.activations else 0.0

    def count(self, scores: list[float], best: int, pick: int) -> None:
        """Count one activation whose choice was ``best`` and draw ``pick`` among ``scores``."""
        self.activations += 1
        if pick != best:
            self.departures += 1
            cost = max(scores) - scores[pick]
            self.shortfall += cost
            self.misplays += cost >= MISPLAY

    def add(self, other: SkillCounter) -> None:
        """Add ``other``'s counts to these (the counts of several games)."""
        self.activations += other.activations
        self.departures += other.departures
        self.misplays += other.misplays
        self.shortfall += other.shortfall


__all__ = ["MISPLAY", "SCALE", "SkillCounter", "format_skill", "near_miss", "parse_skill",
           "temperature"]
