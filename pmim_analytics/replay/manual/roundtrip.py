"""The manual notation's round trip: write a game as a log, read it back, compare the events.

:func:`round_trip_problem` is what the round-trip property test and ``scripts/log_round_trip.py``
check on engine games: reading back :func:`~pmim_analytics.replay.manual.format_log`'s text
gives the very same events (and so the same game id), side names, players and notes.
"""

from __future__ import annotations

from pmim_analytics.errors import ReplayError
from pmim_analytics.model.record import GameRecord
from pmim_analytics.replay.manual import format_log, parse_log


def round_trip_problem(game: GameRecord) -> str | None:
    """``None`` when the game survives write-then-read unchanged, else what differs first."""
    text = format_log(game)
    try:
        back, _ = parse_log(text, "<round trip>")
    except ReplayError as e:
        return f"the written log does not read back: {e.render()}"
    assert back is not None
    for mine, theirs in zip(game.events, back.events, strict=False):
        if mine != theirs:
            return f"event {mine.seq} differs: wrote {mine!r}, read {theirs!r}"
    if len(game.events) != len(back.events):
        return f"wrote {len(game.events)} events, read {len(back.events)}"
    for side, rec in game.header.sides.items():
        read = back.header.sides[side]
        if (rec.name, rec.player) != (read.name, read.player):
            return f"the {side} side's name or player differs: wrote {rec.name!r}/{rec.player!r}, " \
                   f"read {read.name!r}/{read.player!r}"
    if (game.header.notes or None) != (back.header.notes or None):
        return f"the notes differ: wrote {game.header.notes!r}, read {back.header.notes!r}"
    return None
