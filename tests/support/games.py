"""Hand-built games for the store tests: short, rules-plausible, with known aggregates.

Each game is built from the event dataclasses exactly as the engine emits them, so a
test can assert what the database must hold for it (damage, kills, VP shares...).
"""

from __future__ import annotations

from collections.abc import Sequence

from pmim_analytics.model.events import (
    VP,
    Activate,
    Attack,
    Deploy,
    Event,
    GameEnd,
    LocationDestroyed,
    Move,
    RoundEnd,
    RoundStart,
    UnitDestroyed,
)
from pmim_analytics.replay.format import GameHeader, GameRecord, game_id_of
from pmim_analytics.rules.army import ArmyEntry, ArmyList, build_roster


def side_record(name: str, rules: str, prefix: str, entries: Sequence[tuple[str, Sequence[str]]],
                bot: str | None = "scripted", player: str | None = None) -> dict:
    """A header side built from (unit type, weapons) entries through the real army code."""
    army = ArmyList(name=name, rules=rules,
                    units=tuple(ArmyEntry(type=t, weapons=tuple(w)) for t, w in entries))
    roster = build_roster(army)
    assert not roster.violations, roster.violations
    units = [{**u.as_dict(), "id": f"{prefix}:{u.id}"} for u in roster.units]
    return {"name": name, "bot": bot, "player": player, "army_hash": roster.content_hash(),
            "points": roster.points, "units": units}


def make_record(header: dict, events: Sequence[Event]) -> GameRecord:
    """Give a header its content id and wrap it with its events."""
    head = GameHeader.model_validate({**header, "game_id": "pending"})
    gid = game_id_of(head, events)
    return GameRecord(head.model_copy(update={"game_id": gid}), tuple(events))


def base_header(rules: str, blue: dict, red: dict, *, seed: int | None = 1, source: str = "engine",
                played: str | None = "2026-11-30") -> dict:
    """The header fields of a Take and Hold game."""
    return {"format": "pmim-replay", "version": 1, "source": source, "rules": rules,
            "scenario": "take-and-hold", "seed": seed, "game_index": 0, "batch": None,
            "map": {"columns": 20, "rows": 14, "layout": "odd-q"},
            "sides": {"blue": blue, "red": red}, "played": played}


def short_game() -> GameRecord:
    """Two rounds, v3: a Timber Wolf and infantry against a Tyrant and a GEV; ends 1-1 at a
    logged stop. Expected per-unit figures are in :data:`SHORT_GAME_STATS`."""
    blue = side_record("Wolfpack", "v3", "B", [("Timber Wolf", ["GG", "ML"]), ("Infantry", ["LAC"])])
    red = side_record("Ironside", "v3", "R", [("Tyrant", ["HAC"]), ("GEV", ["ML"])])
    ev = [
        Deploy(1, 0, "B:TW1", (5, 12)), Deploy(2, 0, "B:IN1", (6, 11)),
        Deploy(3, 0, "R:TY1", (5, 1)), Deploy(4, 0, "R:GE1", (8, 1)),
        RoundStart(5, 1, "blue"),
        Activate(6, 1, "B:TW1"),
        Move(7, 1, "B:TW1", (5, 12), (5, 10), 2),
        Attack(8, 1, "B:TW1", "GG", "LA", "R:GE1", 5, (4, 3), 1, 8, True, None, (), 4, 2),
        UnitDestroyed(9, 1, "R:GE1", "B:TW1"),
        Activate(10, 1, "R:TY1"),
        Attack(11, 1, "R:TY1", "HAC", "HULL", "B:TW1", 4, (5, 2), 1, 7, True, "LT", (5,), 3, 0),
        LocationDestroyed(12, 1, "B:TW1", "LT", "R:TY1"),
        Activate(13, 1, "B:IN1"),
        Attack(14, 1, "B:IN1", "LAC", "HULL", "R:TY1", 3, (1, 2), 1, 7, False, None, (), 0, 0),
        VP(15, 1, 2, "blue", ("B:IN1",), ()),
        RoundEnd(16, 1, 1, 0),
        RoundStart(17, 2, "red"),
        Activate(18, 2, "R:TY1"),
        Move(19, 2, "R:TY1", (5, 1), (5, 3), 2),
        Attack(20, 2, "R:TY1", "HAC", "HULL", "B:IN1", 3, (6, 6), 1, 8, True, None, (), 9, 5),
        UnitDestroyed(21, 2, "B:IN1", "R:TY1"),
        Activate(22, 2, "B:TW1"),
        Attack(23, 2, "B:TW1", "GG", "LA", "R:TY1", 4, (3, 3), 1, 7, True, None, (), 3, 0),
        Attack(24, 2, "B:TW1", "ML", "RA", "R:TY1", 4, (2, 2), 2, 7, False, None, (), 0, 0),
        VP(25, 2, 3, "red", (), ("R:TY1",)),
        RoundEnd(26, 2, 1, 1),
        GameEnd(27, 2, None, "manual", 2, 1, 1),
    ]
    return make_record(base_header("v3", blue, red, seed=11), ev)


#: unit -> (attacks, hits, damage_dealt, overkill, damage_taken, kills, destroyed,
#:          round_destroyed, vp_share, vp_rounds) for :func:`short_game`.
SHORT_GAME_STATS = {
    "B:TW1": (3, 2, 5, 2, 3, 1, False, None, 0.0, 0),
    "B:IN1": (1, 0, 0, 0, 4, 0, True, 2, 1.0, 1),
    "R:TY1": (2, 2, 7, 5, 3, 1, False, None, 1.0, 1),
    "R:GE1": (0, 0, 0, 0, 2, 0, True, 1, 0.0, 0),
}


def wipeout_game() -> GameRecord:
    """v2, two rounds: two blue units share an objective, then wipe out the lone red ODA.
    Expected per-unit figures are in :data:`WIPEOUT_GAME_STATS`."""
    blue = side_record("Pair", "v2", "B", [("Infantry", ["LPC"]), ("Beetle", ["LAC"])])
    red = side_record("Lone", "v2", "R", [("ODA", ["LAC"])])
    ev = [
        Deploy(1, 0, "B:IN1", (9, 10)), Deploy(2, 0, "B:BE1", (10, 12)), Deploy(3, 0, "R:OD1", (10, 2)),
        RoundStart(4, 1, "blue"),
        Activate(5, 1, "B:BE1"),
        Move(6, 1, "B:BE1", (10, 12), (10, 9), 3),
        Attack(7, 1, "B:BE1", "LAC", "HULL", "R:OD1", 4, (6, 2), 1, 8, True, None, (), 1, 0),
        Activate(8, 1, "R:OD1"),
        Move(9, 1, "R:OD1", (10, 2), (10, 3), 1),
        Activate(10, 1, "B:IN1"),
        Attack(11, 1, "B:IN1", "LPC", "HULL", "R:OD1", 1, (5, 5), 0, 8, True, None, (), 2, 0),
        VP(12, 1, 3, "blue", ("B:BE1", "B:IN1"), ()),
        RoundEnd(13, 1, 1, 0),
        RoundStart(14, 2, "red"),
        Activate(15, 2, "R:OD1"),
        Attack(16, 2, "R:OD1", "LAC", "HULL", "B:BE1", 3, (1, 1), 1, 8, False, None, (), 0, 0),
        Activate(17, 2, "B:BE1"),
        Attack(18, 2, "B:BE1", "LAC", "HULL", "R:OD1", 3, (4, 4), 1, 8, True, None, (), 1, 0),
        UnitDestroyed(19, 2, "R:OD1", "B:BE1"),
        GameEnd(20, 2, "blue", "wipeout", 2, 1, 0),
    ]
    return make_record(base_header("v2", blue, red, seed=12), ev)


WIPEOUT_GAME_STATS = {
    "B:IN1": (1, 1, 2, 0, 0, 0, False, None, 0.5, 1),
    "B:BE1": (2, 2, 2, 0, 0, 1, False, None, 0.5, 1),
    "R:OD1": (1, 0, 0, 0, 4, 0, True, 2, 0.0, 0),
}


def hand_built_games() -> list[GameRecord]:
    """Every hand-built game."""
    return [short_game(), wipeout_game()]
