"""Synthetic games for volume: format-valid and rules-plausible, fast to make.

Not the engine: units attack random enemies at a plausible distance and objectives are
held by random units. But every event obeys what the store checks (rosters, weapons the
unit carries, 2d6 + ACC against DEF, damage (STR - ARM) x RPT with overkill, hit
locations and re-rolls by body chart, seq from 1, one game_end), so games ingest and
aggregate like real ones. A game has 20-30 units and some 300-600 events.

    python -m tests.support.synthetic OUT_DIR N [--parquet]
"""

from __future__ import annotations

import random
import sys
from collections.abc import Iterator
from functools import cache
from pathlib import Path

from pmim_analytics.model.events import (
    VP,
    Activate,
    Attack,
    Deploy,
    Disarmed,
    Event,
    GameEnd,
    Immobilized,
    LocationDestroyed,
    Move,
    RoundEnd,
    RoundStart,
    UnitDestroyed,
)
from pmim_analytics.model.vocab import LOCATION_CODES
from pmim_analytics.replay.format import GameRecord, write_game
from pmim_analytics.rules import build_roster, load_army, load_rules
from pmim_analytics.rules.catalogue import data_dir, find_unit
from pmim_analytics.rules.models import Warmech
from tests.support.games import base_header, make_record

ARMIES = {
    "v3": ("v3-balanced", "v3-fast-gev", "v3-infantry-swarm", "v3-mech-heavy", "v3-tank-heavy"),
    "v2": ("v2-playtest-balanced", "v2-playtest1-heavy", "v2-playtest2-infantry", "v2-lances-example"),
}
ARMIES["v3-llaser-rpt4"] = ARMIES["v3"]
ARMIES["v2-heavy-def6"] = ARMIES["v2"]


@cache
def _side(army: str, rules_id: str, prefix: str) -> dict:
    roster = build_roster(load_army(data_dir() / "armies" / f"{army}.yaml"), rules_id)
    units = [{**u.as_dict(), "id": f"{prefix}:{u.id}"} for u in roster.units]
    return {"name": roster.name, "bot": "random", "player": None, "army_hash": roster.content_hash(),
            "points": roster.points, "units": units}


class _Unit:
    def __init__(self, rec: dict, side: str, rules_id: str) -> None:
        rules = load_rules(rules_id)
        spec = find_unit(rules, rec["code"])
        self.id, self.side, self.spec = rec["id"], side, spec
        self.weapons = [next(w for w in rules.weapons if w.code == c) for c in rec["weapons"]]
        self.mounts = list(rec["mounts"])
        lw = rules.special_rules.light_weapon_units
        self.rng_penalty = lw.rng_penalty if lw and spec.code in lw.units else 0
        self.is_mech = isinstance(spec, Warmech)
        if self.is_mech:
            self.loc_hp = {LOCATION_CODES[k]: v for k, v in spec.location_hp().items()}
            self.chart = [LOCATION_CODES[x] for x in rules.hit_charts[spec.body]]
        else:
            self.hp = spec.hp
        self.alive = True
        self.disarmed = False
        self.immobile = False

    def usable(self) -> list[int]:
        if not self.is_mech:
            return [0]
        return [i for i, m in enumerate(self.mounts) if self.loc_hp.get(m, 0) > 0]


def _body_dead(u: _Unit) -> bool:
    body = u.spec.body
    if body == "humanoid":
        return u.loc_hp["LT"] == 0 and u.loc_hp["RT"] == 0
    return u.loc_hp["CT"] == 0


def generate_game(seed: int, rules_id: str = "v3", game_index: int = 0, batch: str | None = None) -> GameRecord:
    """One synthetic game, the same for the same arguments."""
    rng = random.Random(seed)
    blue_army, red_army = rng.choice(ARMIES[rules_id]), rng.choice(ARMIES[rules_id])
    blue, red = _side(blue_army, rules_id, "B"), _side(red_army, rules_id, "R")
    units = [_Unit(r, "blue", rules_id) for r in blue["units"]] + [_Unit(r, "red", rules_id) for r in red["units"]]
    pos: dict[str, tuple[int, int]] = {}
    events: list[Event] = []

    def emit(cls: type[Event], *args: object) -> None:
        events.append(cls(len(events) + 1, *args))  # type: ignore[call-arg]

    for u in units:
        row = rng.randint(12, 13) if u.side == "blue" else rng.randint(0, 1)
        pos[u.id] = (rng.randrange(20), row)
        emit(Deploy, 0, u.id, pos[u.id])
    vp = {"blue": 0, "red": 0}
    winner, reason, rnd = None, "round_limit", 0
    for rnd in range(1, 21):
        first = "blue" if rnd % 2 else "red"
        emit(RoundStart, rnd, first)
        order = sorted((u for u in units if u.alive), key=lambda u: (u.side != first, rng.random()))
        for u in order:
            if not u.alive:
                continue
            emit(Activate, rnd, u.id)
            if not u.immobile and rng.random() < 0.6:
                c, r = pos[u.id]
                step = rng.randint(1, max(1, u.spec.mov))
                to = (c, max(0, min(13, r + (-step if u.side == "blue" else step))))
                emit(Move, rnd, u.id, (c, r), to, abs(to[1] - r))
                pos[u.id] = to
            n_attacks = 2 if u.is_mech else 1
            choices = u.usable()
            rng.shuffle(choices)
            for wi in choices[:n_attacks]:
                foes = [f for f in units if f.alive and f.side != u.side]
                if not foes:
                    break
                _attack(rng, emit, rnd, u, wi, rng.choice(foes))
            if not any(f.alive for f in units if f.side != u.side):
                break
        alive = {s: [u for u in units if u.alive and u.side == s] for s in ("blue", "red")}
        if not alive["blue"] or not alive["red"]:
            winner, reason = ("blue" if alive["blue"] else "red"), "wipeout"
            break
        for obj in range(6):
            if rng.random() < 0.55:
                continue
            nb, nr = rng.choice((0, 0, 1, 1, 2, 3)), rng.choice((0, 0, 1, 1, 2, 3))
            hb = rng.sample(alive["blue"], min(nb, len(alive["blue"])))
            hr = rng.sample(alive["red"], min(nr, len(alive["red"])))
            if len(hb) != len(hr):
                side = "blue" if len(hb) > len(hr) else "red"
                vp[side] += 1
                emit(VP, rnd, obj, side, tuple(sorted(x.id for x in hb)), tuple(sorted(x.id for x in hr)))
        emit(RoundEnd, rnd, vp["blue"], vp["red"])
        lead = "blue" if vp["blue"] > vp["red"] else "red" if vp["red"] > vp["blue"] else None
        if lead and vp[lead] > 10:
            winner, reason = lead, "vp"
            break
    else:
        winner = "blue" if vp["blue"] > vp["red"] else "red" if vp["red"] > vp["blue"] else None
    emit(GameEnd, rnd, winner, reason, rnd, vp["blue"], vp["red"])
    header = base_header(rules_id, blue, red, seed=seed)
    header.update(game_index=game_index, batch=batch)
    return make_record(header, events)


def _attack(rng: random.Random, emit, rnd: int, u: _Unit, wi: int, t: _Unit) -> None:  # noqa: ANN001
    w = u.weapons[wi]
    reach = max(1, w.rng - u.rng_penalty)
    d1, d2 = rng.randint(1, 6), rng.randint(1, 6)
    needed = t.spec.def_
    hit = d1 + d2 + w.acc >= needed
    if not hit:
        emit(Attack, rnd, u.id, w.code, u.mounts[wi], t.id, rng.randint(1, reach), (d1, d2), w.acc, needed,
             False, None, (), 0, 0)
        return
    damage = max(0, w.strength - t.spec.arm) * w.rpt
    if not t.is_mech:
        overkill = max(0, damage - t.hp)
        t.hp -= damage - overkill
        emit(Attack, rnd, u.id, w.code, u.mounts[wi], t.id, rng.randint(1, reach), (d1, d2), w.acc, needed,
             True, None, (), damage, overkill)
        if t.hp == 0:
            t.alive = False
            emit(UnitDestroyed, rnd, t.id, u.id)
        return
    rolls: list[int] = []
    while True:
        roll = rng.randint(1, 6)
        rolls.append(roll)
        loc = t.chart[roll - 1]
        if t.loc_hp.get(loc, 0) > 0:
            break
    overkill = max(0, damage - t.loc_hp[loc])
    t.loc_hp[loc] -= damage - overkill
    emit(Attack, rnd, u.id, w.code, u.mounts[wi], t.id, rng.randint(1, reach), (d1, d2), w.acc, needed,
         True, loc, tuple(rolls), damage, overkill)
    if t.loc_hp[loc] > 0:
        return
    emit(LocationDestroyed, rnd, t.id, loc, u.id)
    if _body_dead(t):
        t.alive = False
        emit(UnitDestroyed, rnd, t.id, u.id)
        return
    if not t.immobile and t.loc_hp.get("LL", 0) == 0 and t.loc_hp.get("RL", 0) == 0:
        t.immobile = True
        emit(Immobilized, rnd, t.id, u.id)
    if not t.disarmed and not t.usable():
        t.disarmed = True
        emit(Disarmed, rnd, t.id, u.id)


def iter_games(n: int, seed: int = 0, rules_ids: tuple[str, ...] = ("v3", "v2"), batch: str | None = None
               ) -> Iterator[GameRecord]:
    """``n`` synthetic games with seeds ``seed``, ``seed + 1``..., alternating rules ids."""
    for i in range(n):
        yield generate_game(seed + i, rules_ids[i % len(rules_ids)], game_index=i, batch=batch)


def write_jsonl_games(folder: Path, n: int, seed: int = 0) -> list[Path]:
    """Write ``n`` games as JSON Lines replays ``game-00000.jsonl``... into ``folder``."""
    return [write_game(g, folder / f"game-{i:05d}.jsonl") for i, g in enumerate(iter_games(n, seed))]


def write_parquet_batch(folder: Path, n: int, seed: int = 0, part_size: int = 500) -> Path:
    """Write ``n`` games as a Parquet batch folder (pairs of games/events parts)."""
    from tests.support.parquet import write_parquet_parts

    write_parquet_parts(folder, iter_games(n, seed, batch=folder.name), part_size)
    return folder


if __name__ == "__main__":  # pragma: no cover
    out, count = Path(sys.argv[1]), int(sys.argv[2])
    if "--parquet" in sys.argv:
        write_parquet_batch(out, count)
    else:
        write_jsonl_games(out, count)
    print(f"wrote {count} games to {out}")

