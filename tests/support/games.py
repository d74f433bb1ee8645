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
        Deploy(seq=1, round=0, unit="B:TW1", hex=(5, 12)), Deploy(seq=2, round=0, unit="B:IN1", hex=(6, 11)),
        Deploy(seq=3, round=0, unit="R:TY1", hex=(5, 1)), Deploy(seq=4, round=0, unit="R:GE1", hex=(8, 1)),
        RoundStart(seq=5, round=1, first="blue"),
        Activate(seq=6, round=1, unit="B:TW1"),
        Move(seq=7, round=1, unit="B:TW1", from_hex=(5, 12), to_hex=(5, 10), path=2),
        Attack(seq=8, round=1, unit="B:TW1", weapon="GG", mount="LA", target="R:GE1", distance=5, roll=(4, 3),
               acc=1, needed=8, hit=True, location=None, location_rolls=(), damage=4, overkill=2),
        UnitDestroyed(seq=9, round=1, unit="R:GE1", by="B:TW1"),
        Activate(seq=10, round=1, unit="R:TY1"),
        Attack(seq=11, round=1, unit="R:TY1", weapon="HAC", mount="HULL", target="B:TW1", distance=4, roll=(5, 2),
               acc=1, needed=7, hit=True, location="LT", location_rolls=(5,), damage=3, overkill=0),
        LocationDestroyed(seq=12, round=1, unit="B:TW1", location="LT", by="R:TY1"),
        Activate(seq=13, round=1, unit="B:IN1"),
        Attack(seq=14, round=1, unit="B:IN1", weapon="LAC", mount="HULL", target="R:TY1", distance=3, roll=(1, 2),
               acc=1, needed=7, hit=False, location=None, location_rolls=(), damage=0, overkill=0),
        VP(seq=15, round=1, objective=2, side="blue", blue=("B:IN1",), red=()),
        RoundEnd(seq=16, round=1, blue_vp=1, red_vp=0),
        RoundStart(seq=17, round=2, first="red"),
        Activate(seq=18, round=2, unit="R:TY1"),
        Move(seq=19, round=2, unit="R:TY1", from_hex=(5, 1), to_hex=(5, 3), path=2),
        Attack(seq=20, round=2, unit="R:TY1", weapon="HAC", mount="HULL", target="B:IN1", distance=3, roll=(6, 6),
               acc=1, needed=8, hit=True, location=None, location_rolls=(), damage=9, overkill=5),
        UnitDestroyed(seq=21, round=2, unit="B:IN1", by="R:TY1"),
        Activate(seq=22, round=2, unit="B:TW1"),
        Attack(seq=23, round=2, unit="B:TW1", weapon="GG", mount="LA", target="R:TY1", distance=4, roll=(3, 3),
               acc=1, needed=7, hit=True, location=None, location_rolls=(), damage=3, overkill=0),
        Attack(seq=24, round=2, unit="B:TW1", weapon="ML", mount="RA", target="R:TY1", distance=4, roll=(2, 2),
               acc=2, needed=7, hit=False, location=None, location_rolls=(), damage=0, overkill=0),
        VP(seq=25, round=2, objective=3, side="red", blue=(), red=("R:TY1",)),
        RoundEnd(seq=26, round=2, blue_vp=1, red_vp=1),
        GameEnd(seq=27, round=2, winner=None, reason="manual", rounds=2, blue_vp=1, red_vp=1),
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
        Deploy(seq=1, round=0, unit="B:IN1", hex=(9, 10)), Deploy(seq=2, round=0, unit="B:BE1", hex=(10, 12)),
        Deploy(seq=3, round=0, unit="R:OD1", hex=(10, 2)),
        RoundStart(seq=4, round=1, first="blue"),
        Activate(seq=5, round=1, unit="B:BE1"),
        Move(seq=6, round=1, unit="B:BE1", from_hex=(10, 12), to_hex=(10, 9), path=3),
        Attack(seq=7, round=1, unit="B:BE1", weapon="LAC", mount="HULL", target="R:OD1", distance=4, roll=(6, 2),
               acc=1, needed=8, hit=True, location=None, location_rolls=(), damage=1, overkill=0),
        Activate(seq=8, round=1, unit="R:OD1"),
        Move(seq=9, round=1, unit="R:OD1", from_hex=(10, 2), to_hex=(10, 3), path=1),
        Activate(seq=10, round=1, unit="B:IN1"),
        Attack(seq=11, round=1, unit="B:IN1", weapon="LPC", mount="HULL", target="R:OD1", distance=1, roll=(5, 5),
               acc=0, needed=8, hit=True, location=None, location_rolls=(), damage=2, overkill=0),
        VP(seq=12, round=1, objective=3, side="blue", blue=("B:BE1", "B:IN1"), red=()),
        RoundEnd(seq=13, round=1, blue_vp=1, red_vp=0),
        RoundStart(seq=14, round=2, first="red"),
        Activate(seq=15, round=2, unit="R:OD1"),
        Attack(seq=16, round=2, unit="R:OD1", weapon="LAC", mount="HULL", target="B:BE1", distance=3, roll=(1, 1),
               acc=1, needed=8, hit=False, location=None, location_rolls=(), damage=0, overkill=0),
        Activate(seq=17, round=2, unit="B:BE1"),
        Attack(seq=18, round=2, unit="B:BE1", weapon="LAC", mount="HULL", target="R:OD1", distance=3, roll=(4, 4),
               acc=1, needed=8, hit=True, location=None, location_rolls=(), damage=1, overkill=0),
        UnitDestroyed(seq=19, round=2, unit="R:OD1", by="B:BE1"),
        GameEnd(seq=20, round=2, winner="blue", reason="wipeout", rounds=2, blue_vp=1, red_vp=0),
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
