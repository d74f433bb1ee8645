"""Replay headers validated fast: a batch of games shares a handful of armies, so each
side is validated once and reused (the rest of the header is small).

Gives the same answers and the same positioned errors as
:func:`pmim_analytics.replay.format.parse_header`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from pmim_analytics.errors import Location, ReplayError
from pmim_analytics.limits import MAX_UNITS_PER_ARMY, LimitError, check_name
from pmim_analytics.replay.format import GameHeader, SideRecord, parse_header


@dataclass(frozen=True)
class SideInfo:
    """A validated side and its number in this ingest run (shared by identical sides)."""

    sid: int
    record: SideRecord


class HeaderParser:
    """Validates header objects, remembering sides already seen."""

    def __init__(self) -> None:
        self._sides: dict[str, SideInfo] = {}

    def side_info(self, record: SideRecord) -> SideInfo:
        """The side number of an already validated side (registering it if new)."""
        key = json.dumps(record.model_dump(mode="json"), separators=(",", ":"))
        return self._remember(key, record)

    def _remember(self, key: str, record: SideRecord) -> SideInfo:
        info = self._sides.get(key)
        if info is None:
            info = SideInfo(len(self._sides), record)
            self._sides[key] = info
        return info

    def parse(self, obj: Any, where: Location) -> tuple[GameHeader, dict[str, SideInfo]]:
        """Validate a header object; raise :class:`ReplayError` naming the field at fault."""
        if not isinstance(obj, dict):
            raise ReplayError("the first line must be the game header (a JSON object)", where)
        sides = obj.get("sides")
        if not isinstance(sides, dict) or set(sides) - {"blue", "red"}:
            return self._slow(obj, where)
        if set(sides) != {"blue", "red"}:
            missing = sorted({"blue", "red"} - set(sides))
            raise ReplayError(f"a game needs both sides; {' and '.join(missing)} is missing",
                              Location(where.file, where.line, field="sides"))
        infos: dict[str, SideInfo] = {}
        for name, side in sides.items():
            key = json.dumps(side, separators=(",", ":"))
            info = self._sides.get(key)
            if info is None:
                try:
                    record = SideRecord.model_validate(side)
                except ValidationError as e:
                    first = e.errors()[0]
                    field = ".".join(["sides", name, *(str(p) for p in first["loc"])])
                    raise ReplayError(first["msg"], Location(where.file, where.line, field=field)) from None
                if len(record.units) > MAX_UNITS_PER_ARMY:
                    raise LimitError(f"{len(record.units)} units, over the limit of {MAX_UNITS_PER_ARMY} per army",
                                     Location(where.file, where.line, field=f"sides.{name}.units"))
                for fld, text in (("name", record.name), ("player", record.player), ("bot", record.bot)):
                    check_name(text, Location(where.file, where.line, field=f"sides.{name}.{fld}"), fld)
                info = self._remember(key, record)
            infos[name] = info
        head = parse_header({**obj, "sides": {k: v.record for k, v in infos.items()}}, where)
        _check_int64(head, where)
        return head, infos

    def _slow(self, obj: dict[str, Any], where: Location) -> tuple[GameHeader, dict[str, SideInfo]]:
        head = parse_header(obj, where)
        if set(head.sides) != {"blue", "red"}:
            missing = sorted({"blue", "red"} - set(head.sides))
            raise ReplayError(f"a game needs both sides; {' and '.join(missing)} is missing",
                              Location(where.file, where.line, field="sides"))
        _check_int64(head, where)
        return head, {k: self.side_info(v) for k, v in head.sides.items()}


def _check_int64(head: GameHeader, where: Location) -> None:
    """Numbers the database cannot hold are refused here, with their field."""
    checks = [("seed", head.seed), ("game_index", head.game_index)]
    for name, side in head.sides.items():
        checks.append((f"sides.{name}.points", side.points))
        checks.extend((f"sides.{name}.units.{i}.pts", u.pts) for i, u in enumerate(side.units))
    for fld, value in checks:
        if value is not None and not -(2**63) < value < 2**63:
            raise ReplayError(f"{value} is out of range", Location(where.file, where.line, field=fld))


def header_canonical(obj: dict[str, Any]) -> str:
    """The header's part of the content id, from the header object as written."""
    head = {k: v for k, v in obj.items() if k not in ("game_id", "played")}
    return json.dumps(head, sort_keys=True, separators=(",", ":"))

