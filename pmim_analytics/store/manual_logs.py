"""Staging manual playtest logs (``*.pmimlog``) through the manual-log reader.

The reader (:mod:`pmim_analytics.replay.manual`) turns a log into the same
:class:`~pmim_analytics.replay.format.GameRecord` an engine replay is, so a log is staged
like a replay read in Python; its events carry their ``seq`` where a file line would be.
"""

from __future__ import annotations

import re
from pathlib import Path

import duckdb

from pmim_analytics.errors import Location, PmimError, ReplayError, display_path
from pmim_analytics.limits import check_name
from pmim_analytics.replay.format import game_id_of
from pmim_analytics.store.headers import HeaderParser, SideInfo
from pmim_analytics.store.rejects import Rejection
from pmim_analytics.store.staging import StageBuffer


def stage_logs(con: duckdb.DuckDBPyConnection, files: list[Path], buf: StageBuffer, parser: HeaderParser,
               rejects: dict[int, Rejection], g0: int) -> int:
    """Stage manual logs as games ``g0``, ``g0 + 1``...; return the next ``g``. Logs the
    manual-log reader refuses go to ``rejects`` with its line, column and reason."""
    g = g0
    if not files:
        return g
    from pmim_analytics.replay.manual import read_log  # the notation parser: only loaded when logs come in

    for p in files:
        name = display_path(p)
        try:
            rec = read_log(p)
            for side, rec_side in rec.header.sides.items():
                for fld in ("name", "player"):
                    check_name(getattr(rec_side, fld), Location(name, field=f"{side} {fld}"), fld)
            sides: dict[str, SideInfo] = {k: parser.side_info(v) for k, v in rec.header.sides.items()}
            if set(sides) != {"blue", "red"}:
                raise ReplayError("a game needs both sides, blue and red", Location(name, field="sides"))
            for ev in rec.events:
                for key, value in ev.to_dict().items():
                    if isinstance(value, int) and not -(2**63) < value < 2**63:
                        raise ReplayError(f"{key} {value} is out of range", Location(name, field=key))
        except PmimError as e:
            rejects[g] = Rejection.from_error(e, "syntax")
            g += 1
            continue
        gid = rec.header.game_id  # the reader computes it as game_id_of does
        if not re.fullmatch(r"[0-9a-f]{16}", gid or ""):
            gid = game_id_of(rec.header, rec.events)
        buf.add_game(g, rec.header, sides, file=name, events_file=name, path=str(p), kind="manual",
                     head_line=None, game_id=gid)
        buf.add_events(g, rec.events, [ev.seq for ev in rec.events])
        g += 1
    return g
