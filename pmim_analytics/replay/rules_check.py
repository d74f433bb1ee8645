"""The rules check of staged games, as ``pmim ingest`` runs it in worker processes.

:func:`check_staged` takes the staged event rows of some games (an Arrow IPC stream: the
very rows the ingest is about to insert) and replays every game through the rules
(:func:`~pmim_analytics.engine.verify.verify_game`, the same judge as ``pmim replay
verify``). It never raises: whatever goes wrong is part of the answer, so one bad game
cannot stop a pool. A module-level function of picklable arguments and results, for
:class:`concurrent.futures.ProcessPoolExecutor`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pmim_analytics.engine.verify import Violation, verify_game
from pmim_analytics.model.record import GameRecord


def _event_builders() -> dict[str, Any]:
    from pmim_analytics.model import events as E

    def rolls(text: str | None) -> tuple[int, ...]:
        return tuple(int(x) for x in text.split(",") if x) if text else ()

    return {
        "attack": lambda c, i: E.Attack(c["seq"][i], c["round"][i], c["unit"][i], c["weapon"][i], c["mount"][i],
                                        c["target"][i], c["distance"][i], (c["die1"][i], c["die2"][i]), c["acc"][i],
                                        c["needed"][i], c["hit"][i], c["location"][i],
                                        rolls(c["location_rolls"][i]), c["damage"][i], c["overkill"][i]),
        "move": lambda c, i: E.Move(c["seq"][i], c["round"][i], c["unit"][i], (c["from_col"][i], c["from_row"][i]),
                                    (c["to_col"][i], c["to_row"][i]), c["path"][i]),
        "activate": lambda c, i: E.Activate(c["seq"][i], c["round"][i], c["unit"][i]),
        "deploy": lambda c, i: E.Deploy(c["seq"][i], c["round"][i], c["unit"][i], (c["to_col"][i], c["to_row"][i])),
        "round_start": lambda c, i: E.RoundStart(c["seq"][i], c["round"][i], c["side"][i]),
        "location_destroyed": lambda c, i: E.LocationDestroyed(c["seq"][i], c["round"][i], c["unit"][i],
                                                               c["location"][i], c["by"][i]),
        "immobilized": lambda c, i: E.Immobilized(c["seq"][i], c["round"][i], c["unit"][i], c["by"][i]),
        "disarmed": lambda c, i: E.Disarmed(c["seq"][i], c["round"][i], c["unit"][i], c["by"][i]),
        "unit_destroyed": lambda c, i: E.UnitDestroyed(c["seq"][i], c["round"][i], c["unit"][i], c["by"][i]),
        "vp": lambda c, i: E.VP(c["seq"][i], c["round"][i], c["objective"][i], c["side"][i],
                                tuple((c["blue_holders"][i] or "").split()),
                                tuple((c["red_holders"][i] or "").split())),
        "round_end": lambda c, i: E.RoundEnd(c["seq"][i], c["round"][i], c["blue_vp"][i], c["red_vp"][i]),
        "game_end": lambda c, i: E.GameEnd(c["seq"][i], c["round"][i], c["side"][i], c["reason"][i],
                                           c["rounds"][i], c["blue_vp"][i], c["red_vp"][i]),
    }


_BUILDERS: dict[str, Any] = {}


@dataclass(frozen=True)
class StagedVerdict:
    """The rules check of one staged game ``g``: what it breaks, or why it could not be replayed."""

    g: int
    violations: tuple[Violation, ...]
    error: str | None = None


def check_staged(ipc: bytes, headers: list[tuple[int, Any, int | None]]) -> list[StagedVerdict]:
    """Replay staged games through the rules; never raises.

    ``ipc`` is an Arrow IPC stream of staged event rows (``g``, ``line`` and the wide event
    columns) sorted by ``g`` then ``line``; ``headers`` the ``(g, GameHeader, header
    line)`` of each game in it. The events checked are exactly the rows to be stored.
    """
    import pyarrow as pa

    if not _BUILDERS:
        _BUILDERS.update(_event_builders())
    table = pa.ipc.open_stream(ipc).read_all()
    cols = table.to_pydict()
    gs, lines, types = cols["g"], cols["line"], cols["type"]
    n = len(gs)
    out: list[StagedVerdict] = []
    i = 0
    for g, header, head_line in headers:
        start = i
        while i < n and gs[i] == g:
            i += 1
        try:
            events = tuple(_BUILDERS[types[k]](cols, k) for k in range(start, i))
            found = verify_game(GameRecord(header, events), [head_line, *lines[start:i]])
        except Exception as e:  # noqa: BLE001 -- a shape no check foresaw rejects the game, not the batch
            out.append(StagedVerdict(g, (), f"could not be replayed through the rules ({type(e).__name__}: {e})"))
            continue
        out.append(StagedVerdict(g, tuple(found)))
    return out
