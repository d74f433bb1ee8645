"""The rules check of staged games, as ``pmim ingest`` runs it in worker processes.

:func:`check_staged` takes the staged event rows of some games (an Arrow IPC stream: the
very rows the ingest is about to insert) and replays every game through the rules
(:func:`~pmim_analytics.engine.verify.verify_game`, the same judge as ``pmim replay
verify``). It never raises: whatever goes wrong is part of the answer, so one bad game
cannot stop a pool. A module-level function of picklable arguments and results, for
:class:`concurrent.futures.ProcessPoolExecutor`.

The events of a chunk are built all at once, a type at a time from that type's columns, and
stay alive while its games are replayed. Python's cyclic garbage collector would walk those
hundred thousand objects again and again as the replays allocate (about as long as building
them); nothing in them is cyclic, so the check runs with the collector off and restores it
after (what the replays leave for it is collected then).
"""

from __future__ import annotations

import gc
import os
import signal
import threading
import time
from dataclasses import dataclass
from typing import Any

from pmim_analytics.arrowshim import arrow_without_pandas
from pmim_analytics.engine.verify import Violation, table_log_options, verify_game
from pmim_analytics.model.events import events_from_columns, events_of_type, type_columns
from pmim_analytics.model.record import GameRecord


def ignore_sigint() -> None:
    """A worker's initializer: Ctrl-C is for the ingest, which drops the pool at once."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


#: how often a worker looks whether its parent is still there (seconds)
PARENT_WATCH_SECONDS = 0.2


def _started_at(pid: int) -> str | None:
    """The start time of process ``pid`` (``/proc``), ``None`` when it is gone or a zombie;
    ``""`` where ``/proc`` cannot tell (the process is then asked with signal 0)."""
    try:
        stat = open(f"/proc/{pid}/stat").read()  # noqa: SIM115 -- one read, closed by the GC at once
    except FileNotFoundError:
        return None
    except OSError:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return None
        except OSError:
            pass
        return ""
    fields = stat[stat.rindex(")") + 2:].split()
    return None if fields[0] in ("Z", "X") else fields[19]


def exit_with_parent(parent: int | None = None) -> None:
    """Make this worker exit as soon as the process that owns it (``parent``, by default its
    parent process) is gone -- a SIGKILL included -- instead of finishing a batch nobody will
    commit: a daemon thread looks every :data:`PARENT_WATCH_SECONDS`; a worker whose owner
    died before it started exits at once. A fork-server worker's owner is the ingest, not
    the fork server it was forked from (which exits by itself once no worker holds its pipe)."""
    owner = os.getppid() if parent is None else parent
    born = _started_at(owner)
    if born is None:
        os._exit(1)

    def watch() -> None:
        while _started_at(owner) == born:
            time.sleep(PARENT_WATCH_SECONDS)
        os._exit(1)

    threading.Thread(target=watch, name="pmim-parent-watch", daemon=True).start()


def start_worker(data: str | None, owner: int | None = None) -> None:
    """A worker's initializer: ignore Ctrl-C (:func:`ignore_sigint`) and judge by the data folder
    of the ingest that started it (``data``: its ``$PMIM_DATA``, or ``None`` for the default),
    and exit when that ingest (``owner``, its process id) is gone (:func:`exit_with_parent`).
    A worker forked from a fork server inherits the server's environment, which dates from the
    first pool of the process; a later ``$PMIM_DATA`` (a test's own rules folder) must win."""
    from pmim_analytics.rules.catalogue import clear_caches

    ignore_sigint()
    exit_with_parent(owner)
    if os.environ.get("PMIM_DATA") != data:
        if data is None:
            os.environ.pop("PMIM_DATA", None)
        else:
            os.environ["PMIM_DATA"] = data
        clear_caches()


def warm_up() -> None:
    """Load every rules set once, so a worker's first chunk does not pay for it (the
    workers import only this module and the engine, never the store)."""
    from pmim_analytics.rules.catalogue import list_rules_ids, load_rules

    for rid in list_rules_ids():
        try:
            load_rules(rid)
        except Exception:  # noqa: BLE001, S110 -- only a warm-up; the check reports real problems
            pass


@dataclass(frozen=True)
class StagedVerdict:
    """The rules check of one staged game ``g``: what it breaks, or why it could not be replayed."""

    g: int
    violations: tuple[Violation, ...]
    error: str | None = None


def arrow_ints(array: Any) -> Any:
    """A null-free Arrow integer array (or chunked array) as a NumPy int64 array, read from its
    buffers: pyarrow's ``to_numpy`` loads pandas, most of an ingest's start-up (see
    ``arrowshim.arrow_without_pandas``)."""
    import numpy as np
    import pyarrow as pa

    parts = []
    for chunk in getattr(array, "chunks", [array]):
        kind = "i" if pa.types.is_signed_integer(chunk.type) else "u"
        values = np.frombuffer(chunk.buffers()[1], dtype=np.dtype(f"{kind}{chunk.type.bit_width // 8}"))
        parts.append(values[chunk.offset:chunk.offset + len(chunk)].astype(np.int64))
    return np.concatenate(parts) if parts else np.zeros(0, dtype=np.int64)


def _events_by_type(table: Any) -> list[Any] | None:
    """Every row of ``table`` (staged event rows) as its event, built a type at a time from that
    type's own columns only (most of the wide columns are null for any one type, and never
    become Python objects); ``None`` when a row does not fit (an unknown type, a bad value),
    so the caller decodes game by game and rejects only the game at fault."""
    import numpy as np
    import pyarrow.compute as pc

    try:
        kinds = pc.dictionary_encode(table.column("type")).combine_chunks()
        if kinds.null_count:
            return None
        codes = arrow_ints(kinds.indices)
        out: list[Any] = [None] * table.num_rows
        for code, etype in enumerate(kinds.dictionary.to_pylist()):
            rows = np.flatnonzero(codes == code)
            part = table.select(list(type_columns(etype))).take(rows)
            built = events_of_type(etype, {c: part.column(c).to_pylist() for c in part.column_names}, len(rows))
            for k, ev in zip(rows.tolist(), built, strict=True):
                out[k] = ev
        return out
    except Exception:  # noqa: BLE001 -- game by game instead, to name the one at fault
        return None


def check_staged(ipc: bytes, headers: list[tuple[int, Any, int | None]]) -> list[StagedVerdict]:
    """Replay staged games through the rules; never raises.

    ``ipc`` is an Arrow IPC stream of staged event rows (``g``, ``line`` and the wide event
    columns) sorted by ``g`` then ``line``; ``headers`` the ``(g, GameHeader, header
    line)`` of each game in it. The events checked are exactly the rows to be stored.
    """
    was_enabled = gc.isenabled()
    gc.disable()  # see the module docstring: no garbage collection passes over the chunk's events
    try:
        return _check_staged(ipc, headers)
    finally:
        if was_enabled:
            gc.enable()


def _check_staged(ipc: bytes, headers: list[tuple[int, Any, int | None]]) -> list[StagedVerdict]:
    import pyarrow as pa

    arrow_without_pandas()  # a worker's first chunk would load pandas (0.7 s of CPU) through pyarrow
    table = pa.ipc.open_stream(ipc).read_all()
    gs, lines = table.column("g").to_pylist(), table.column("line").to_pylist()
    n = len(gs)
    every = _events_by_type(table)
    cols = table.to_pydict() if every is None else {}
    out: list[StagedVerdict] = []
    i = 0
    for g, header, head_line in headers:
        start = i
        while i < n and gs[i] == g:
            i += 1
        try:
            events = tuple(every[start:i] if every is not None else events_from_columns(cols, start, i))
            record = GameRecord(header, events)  # a table game: with the leniencies its log needs
            found = verify_game(record, [head_line, *lines[start:i]], **table_log_options(record))
        except Exception as e:  # noqa: BLE001 -- a shape no check foresaw rejects the game, not the batch
            out.append(StagedVerdict(g, (), f"could not be replayed through the rules ({type(e).__name__}: {e})"))
            continue
        out.append(StagedVerdict(g, tuple(found)))
    return out
