"""Seeds and dice: the only source of randomness in a game.

A batch is identified by its seed; game ``i`` of the batch gets its own
``numpy.random.SeedSequence(batch_seed, spawn_key=(i,))`` -- exactly the ``i``-th child
``SeedSequence(batch_seed).spawn(n)`` would give -- so a game's dice depend only on
(batch seed, game index), never on how many workers or which backend played it. That
sequence is split in independent streams: the dice, blue's bot, red's bot, and a fourth for
the optional rules' dice (initiative and overheat rolls), so that switching an optional rule
on does not shift the dice of the game's attacks.
"""

from __future__ import annotations

import random

import numpy as np

#: d6 results are drawn from the generator in blocks of this many (part of the stream's
#: definition: changing it changes every game).
DICE_BLOCK = 256


def game_seed_sequence(batch_seed: int, game_index: int) -> np.random.SeedSequence:
    """The seed sequence of game ``game_index`` of the batch seeded ``batch_seed``.

    Raises ``ValueError`` for a negative seed or index.
    """
    if batch_seed < 0 or game_index < 0:
        raise ValueError("seeds and game indices are non-negative whole numbers")
    return np.random.SeedSequence(batch_seed, spawn_key=(game_index,))


class Dice:
    """Seeded d6 for one game; the driver rolls them and hands them to the state."""

    __slots__ = ("_gen", "_buf", "_pos")

    def __init__(self, seq: np.random.SeedSequence) -> None:
        self._gen = np.random.Generator(np.random.PCG64(seq))
        self._buf: list[int] = []
        self._pos = 0

    def roll(self, n: int, sides: int = 6) -> tuple[int, ...]:
        """Roll ``n`` d6 (or ``n`` dice of ``sides`` sides, drawn straight from the generator)."""
        if sides != 6:
            return tuple(self._gen.integers(1, sides + 1, size=n, dtype=np.int64).tolist())
        pos = self._pos
        if pos + n > len(self._buf):
            rest = self._buf[pos:]
            self._buf = rest + self._gen.integers(1, 7, size=DICE_BLOCK, dtype=np.int64).tolist()
            pos = 0
        self._pos = pos + n
        return tuple(self._buf[pos:pos + n])


def game_streams(batch_seed: int, game_index: int) -> tuple[Dice, random.Random, random.Random]:
    """The dice and the two bots' generators (blue, red) of one game."""
    dice_seq, blue_seq, red_seq = game_seed_sequence(batch_seed, game_index).spawn(3)
    return (Dice(dice_seq),
            random.Random(int(blue_seq.generate_state(1, np.uint64)[0])),
            random.Random(int(red_seq.generate_state(1, np.uint64)[0])))


def optional_rule_dice(batch_seed: int, game_index: int) -> Dice:
    """The dice of the optional rules in one game: the fourth child of the game's seed
    sequence (the first three, :func:`game_streams`, are unchanged by asking for it)."""
    return Dice(game_seed_sequence(batch_seed, game_index).spawn(4)[3])
