"""Hand-made games for analytics tests, as frames shaped like the database tables.

A :class:`GameBuilder` records a game in the replay vocabulary (the shared event classes
of :mod:`pmim_analytics.model.events`) and derives every table row from it, including
the per-unit ``unit_game_stats`` aggregates, computed here in plain Python, independently
of the Polars code under test.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

import polars as pl

from pmim_analytics.analytics.frames import Frames
from pmim_analytics.model.events import VP, Attack, Event, GameEnd, RoundEnd, UnitDestroyed, event_to_row
from pmim_analytics.rules import find_unit, find_weapon, load_rules


@dataclass
class _Unit:
    unit_id: str
    side: str
    code: str
    type: str
    kind: str
    weapons: tuple[str, ...]
    pts: int


@dataclass
class GameBuilder:
    """One game, written event by event; ``frames()`` of a list of them gives the tables."""

    game_id: str
    rules_id: str = "v3"
    source: str = "engine"
    first_side: str | None = "blue"
    units: dict[str, _Unit] = field(default_factory=dict)
    sides: dict[str, dict] = field(default_factory=dict)
    events: list[Event] = field(default_factory=list)
    result: GameEnd | None = None
    vp_total: dict[str, int] = field(default_factory=lambda: {"blue": 0, "red": 0})
    not_recorded: tuple[str, ...] = ()  # what the log did not record: combat, losses
    vp_estimated: bool = False  # the final VP are reconstructed

    def side(self, side: str, composition: str, units: list[tuple[str, str, tuple[str, ...]]],
             bot: str | None = "greedy", army_hash: str | None = None) -> GameBuilder:
        """Add a side: ``units`` are ``(roster id, unit code, weapons)``, e.g. ``("TW1", "TW", ("GG", "ML"))``."""
        rules = load_rules(self.rules_id)
        prefix = "B:" if side == "blue" else "R:"
        for rid, code, weapons in units:
            spec = find_unit(rules, code)
            uid = prefix + rid
            self.units[uid] = _Unit(uid, side, code, spec.name, spec.kind, tuple(weapons), spec.pts)
        self.sides[side] = {"composition": composition, "army_hash": army_hash or f"hash-{composition}",
                            "bot": bot}
        return self

    def _next_seq(self) -> int:
        return len(self.events) + 1

    def attack(self, rnd: int, unit: str, weapon: str, target: str, roll: tuple[int, int],
               damage: int | None = None, overkill: int = 0, location: str | None = None) -> GameBuilder:
        """An attack; ACC, DEF and the damage of a hit come from the rules unless given."""
        rules = load_rules(self.rules_id)
        w = find_weapon(rules, weapon)
        t = find_unit(rules, self.units[target].code)
        hit = roll[0] + roll[1] + w.acc >= t.def_
        if damage is None:
            damage = max(0, w.strength - t.arm) * w.rpt if hit else 0
        self.events.append(Attack(seq=self._next_seq(), round=rnd, unit=unit, weapon=w.code, mount="HULL",
                                  target=target, distance=1, roll=roll, acc=w.acc, needed=t.def_, hit=hit,
                                  location=location, location_rolls=(), damage=damage, overkill=overkill))
        return self

    def destroy(self, rnd: int, unit: str, by: str | None = None) -> GameBuilder:
        """``unit`` is destroyed in round ``rnd``."""
        self.events.append(UnitDestroyed(seq=self._next_seq(), round=rnd, unit=unit, by=by))
        return self

    def vp(self, rnd: int, objective: int, side: str, blue: tuple[str, ...] = (), red: tuple[str, ...] = ()
           ) -> GameBuilder:
        """``side`` scores one VP for ``objective`` at the end of round ``rnd``."""
        self.events.append(VP(seq=self._next_seq(), round=rnd, objective=objective, side=side, blue=tuple(blue),
                              red=tuple(red)))
        self.vp_total[side] += 1
        return self

    def final_vp(self, blue: int, red: int) -> GameBuilder:
        """Set the VP totals directly (a summary log that lists no VP events)."""
        self.vp_total = {"blue": blue, "red": red}
        return self

    def end_round(self, rnd: int) -> GameBuilder:
        """A round_end event with the running VP totals."""
        self.events.append(RoundEnd(seq=self._next_seq(), round=rnd, blue_vp=self.vp_total["blue"],
                                    red_vp=self.vp_total["red"]))
        return self

    def end(self, winner: str | None, reason: str, rounds: int) -> GameBuilder:
        """The game ends."""
        self.result = GameEnd(seq=self._next_seq(), round=rounds, winner=winner, reason=reason, rounds=rounds,
                              blue_vp=self.vp_total["blue"], red_vp=self.vp_total["red"])
        self.events.append(self.result)
        return self

    # -- table rows ---------------------------------------------------------------------

    def game_row(self) -> dict:
        r = self.result
        assert r is not None, "call end() first"
        return {"game_id": self.game_id, "source": self.source, "rules_id": self.rules_id,
                "scenario": "take-and-hold", "seed": 1, "game_index": 0, "batch": "test", "played": "2026-11-30",
                "winner": r.winner, "reason": r.reason, "rounds": r.rounds, "blue_vp": r.blue_vp,
                "red_vp": r.red_vp, "first_side": self.first_side, "n_events": len(self.events), "file": None,
                "not_recorded": " ".join(self.not_recorded) or None, "vp_estimated": self.vp_estimated}

    def side_rows(self) -> list[dict]:
        r = self.result
        assert r is not None
        rows = []
        for side, info in self.sides.items():
            mine = [u for u in self.units.values() if u.side == side]
            result = "draw" if r.winner is None else ("win" if r.winner == side else "loss")
            rows.append({"game_id": self.game_id, "side": side, "composition": info["composition"],
                         "army_hash": info["army_hash"], "points": sum(u.pts for u in mine), "bot": info["bot"],
                         "player": None, "n_units": len(mine), "vp": self.vp_total[side], "result": result})
        return rows

    def unit_rows(self) -> list[dict]:
        return [{"game_id": self.game_id, "unit_id": u.unit_id, "side": u.side, "code": u.code, "type": u.type,
                 "kind": u.kind, "weapons": " ".join(u.weapons), "pts": u.pts} for u in self.units.values()]

    def event_rows(self) -> list[dict]:
        return [event_to_row(self.game_id, e) for e in self.events]

    def ugs_rows(self) -> list[dict]:
        """The per-unit aggregates, by their definitions in sql/001_initial.sql."""
        r = self.result
        assert r is not None
        acc: dict[str, dict] = defaultdict(lambda: defaultdict(float))
        destroyed: dict[str, int | None] = {}
        for e in self.events:
            if isinstance(e, Attack):
                a = acc[e.unit]
                a["attacks"] += 1
                a["hits"] += int(e.hit)
                a["damage_dealt"] += e.damage - e.overkill
                a["overkill"] += e.overkill
                acc[e.target]["damage_taken"] += e.damage - e.overkill
            elif isinstance(e, UnitDestroyed):
                destroyed[e.unit] = e.round
                if e.by:
                    acc[e.by]["kills"] += 1
            elif isinstance(e, VP):
                holders = e.blue if e.side == "blue" else e.red
                for h in holders:
                    acc[h]["vp_share"] += 1 / len(holders)
                    acc[h]["vp_rounds"] += 1
        rows = []
        for u in self.units.values():
            a = acc[u.unit_id]
            rows.append({
                "game_id": self.game_id, "unit_id": u.unit_id, "side": u.side, "rules_id": self.rules_id,
                "source": self.source, "code": u.code, "type": u.type, "kind": u.kind,
                "weapons": " ".join(u.weapons), "pts": u.pts,
                # what the log did not record is unknown (None), not 0 or "survived"
                **{k: None if "combat" in self.not_recorded else int(a[k])
                   for k in ("attacks", "hits", "damage_dealt", "overkill", "damage_taken", "kills")},
                "destroyed": None if "losses" in self.not_recorded else u.unit_id in destroyed,
                "round_destroyed": destroyed.get(u.unit_id),
                "rounds_played": r.rounds, "vp_share": float(a["vp_share"]), "vp_rounds": int(a["vp_rounds"]),
            })
        return rows


def frames_of(games: list[GameBuilder]) -> Frames:
    """The tables of these games as a :class:`Frames` bundle (rules tables left empty)."""
    def frame(rows: list[dict], table: str) -> pl.DataFrame:
        from pmim_analytics.analytics.frames import SCHEMAS
        return pl.DataFrame(rows, schema=SCHEMAS[table]) if rows else pl.DataFrame(schema=SCHEMAS[table])

    return Frames.of(
        games=frame([g.game_row() for g in games], "games"),
        sides=frame([r for g in games for r in g.side_rows()], "sides"),
        units=frame([r for g in games for r in g.unit_rows()], "units"),
        unit_game_stats=frame([r for g in games for r in g.ugs_rows()], "unit_game_stats"),
        events=frame([r for g in games for r in g.event_rows()], "events"),
    )
