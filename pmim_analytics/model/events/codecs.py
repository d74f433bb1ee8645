"""The generic conversions of events, all derived from the field declarations of :mod:`.types`.

* the JSON Lines form: :func:`event_from_dict` (``Event.to_dict`` writes it);
* the wide row (:mod:`.schema`): :func:`event_to_row` and :func:`event_from_row`, one event at
  a time, used by the Parquet batches and the database's ``events`` table;
* wide columns in bulk: :func:`events_from_columns`, :func:`events_of_type` and
  :func:`type_columns`, for the rules check that replays every stored game.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import fields
from operator import itemgetter
from typing import Any

from pmim_analytics.model.events.types import EVENT_FIELDS, EVENT_TYPES, KINDS, Event

#: How :func:`event_to_row` spreads each field: (name, 0 plain | 1 pair | 2 joined d6 | 3 joined ids, columns).
_ROW_PLAN: dict[str, tuple[tuple[str, int, tuple[str, ...]], ...]] = {
    t: tuple((f.name, {"hex": 1, "dice": 1, "d6_list": 2, "ids": 3}.get(f.kind, 0), f.columns) for f in fs)
    for t, fs in EVENT_FIELDS.items()
}


def event_to_row(game_id: str, ev: Event) -> dict[str, Any]:
    """Flatten one event into the wide row shape (missing columns are left out = null)."""
    row: dict[str, Any] = {"game_id": game_id, "seq": ev.seq, "round": ev.round, "type": ev.type}
    for name, how, cols in _ROW_PLAN[ev.type]:
        v = getattr(ev, name)
        if how == 0:
            row[cols[0]] = v
        elif how == 1:
            row[cols[0]], row[cols[1]] = (None, None) if v is None else v
        elif how == 2:
            row[cols[0]] = ",".join(map(str, v))
        else:
            row[cols[0]] = " ".join(v)
    return row


def event_from_row(row: Mapping[str, Any]) -> Event:
    """Rebuild an event from its wide row (the inverse of :func:`event_to_row`).

    Raises ``KeyError`` for an unknown type.
    """
    etype = row["type"]
    cls = EVENT_TYPES[etype]
    kwargs: dict[str, Any] = {"seq": row["seq"], "round": row["round"]}
    for f in EVENT_FIELDS[etype]:
        kind = f.kind
        if kind == "hex" or kind == "dice":
            a, b = row[f.columns[0]], row[f.columns[1]]
            v: Any = None if a is None and b is None else (int(a), int(b))
        elif kind == "d6_list":
            v = tuple(int(x) for x in (row[f.columns[0]] or "").split(",") if x)
        elif kind == "ids":
            v = tuple((row[f.columns[0]] or "").split())
        else:
            v = row[f.columns[0]]
        kwargs[f.name] = v
    return cls(**kwargs)


#: How :func:`events_from_columns` reads each type: the event class, the field names
#: (``seq`` and ``round`` first) and, per field, (0 plain | 1 pair | 2 d6 list | 3 ids, columns).
_COLUMN_PLAN: dict[str, tuple[type[Event], tuple[str, ...], tuple[tuple[int, tuple[str, ...]], ...]]] = {
    t: (EVENT_TYPES[t], ("seq", "round", *(name for name, _, _ in plan)),
        ((0, ("seq",)), (0, ("round",)), *((how, cols) for _, how, cols in plan)))
    for t, plan in _ROW_PLAN.items()
}
#: Each type's slot setters, in the order of its ``_COLUMN_PLAN`` names: every field of the
#: frozen class, so an event filled through them equals the one its ``__init__`` builds.
_SETTERS: dict[str, tuple[Callable[[Any, Any], None], ...]] = {
    t: tuple(getattr(cls, name).__set__ for name in names) for t, (cls, names, _) in _COLUMN_PLAN.items()
}
#: Each type's wide columns, in its ``_COLUMN_PLAN`` order (:func:`type_columns`).
_TYPE_COLUMNS: dict[str, tuple[str, ...]] = {
    t: tuple(c for _, cols in plan for c in cols) for t, (_, _, plan) in _COLUMN_PLAN.items()
}
if any({f.name for f in fields(cls)} != set(names) for cls, names, _ in _COLUMN_PLAN.values()):
    raise RuntimeError("an event field has no column plan")


def events_from_columns(columns: Mapping[str, Sequence[Any]], start: int, stop: int) -> list[Event]:
    """Rebuild the events of rows ``start``..``stop`` of wide columns (column name -> values; a
    column left out is null): :func:`event_from_row` done a column at a time, from the same
    declarations, with no dict per row. Raises ``KeyError`` for an unknown type and
    ``TypeError``/``ValueError`` for a value that does not fit its field.
    """
    types = columns["type"]
    by_type: dict[str, list[int]] = {}
    for k in range(start, stop):
        t = types[k]
        found = by_type.get(t)
        if found is None:
            by_type[t] = [k]
        else:
            found.append(k)
    out: list[Any] = [None] * (stop - start)
    for t, rows in by_type.items():
        pick = itemgetter(*rows) if len(rows) > 1 else lambda col, k=rows[0]: (col[k],)
        picked = {name: pick(col) for name in type_columns(t) if (col := columns.get(name)) is not None}
        for k, ev in zip(rows, events_of_type(t, picked, len(rows)), strict=True):
            out[k - start] = ev
    return out


def type_columns(etype: str) -> tuple[str, ...]:
    """The wide columns that events of type ``etype`` are read from (``KeyError`` if unknown)."""
    return _TYPE_COLUMNS[etype]


def events_of_type(etype: str, columns: Mapping[str, Sequence[Any]], n: int) -> list[Event]:
    """Build ``n`` events of type ``etype`` from its columns (:func:`type_columns`; each holds
    ``n`` values, one per event; a column left out is null). Raises as
    :func:`events_from_columns`."""
    cls, _, plan = _COLUMN_PLAN[etype]
    nulls: Sequence[Any] = [None] * n
    series: list[Any] = []
    for how, cols in plan:
        first: Sequence[Any] = columns.get(cols[0], nulls)
        if how == 0:
            series.append(first)
        elif how == 1:
            second: Sequence[Any] = columns.get(cols[1], nulls)
            series.append([None if a is None and b is None else (int(a), int(b))
                           for a, b in zip(first, second, strict=True)])
        elif how == 2:
            series.append([tuple(int(x) for x in (v or "").split(",") if x) for v in first])
        else:
            series.append([tuple((v or "").split()) for v in first])
    # the objects first, then each field for all of them at once (C-level loops; the
    # frozen ``__init__`` per event is the costliest part of a replay's rules check)
    built = [_new(cls) for _ in range(n)]
    for setter, values in zip(_SETTERS[etype], series, strict=True):
        deque(map(setter, built, values), maxlen=0)
    return built


_new = object.__new__


def event_from_dict(d: Mapping[str, Any]) -> Event:
    """Build an event from its JSON Lines form.

    Raises ``KeyError`` for an unknown type or missing field and ``TypeError`` for a
    wrong one; :mod:`pmim_analytics.replay.format` turns these into positioned errors.
    """
    etype = d["type"]
    cls = EVENT_TYPES[etype]
    kwargs: dict[str, Any] = {"seq": d["seq"], "round": d["round"]}
    for f in EVENT_FIELDS[etype]:
        v = d[f.name]
        kwargs[f.name] = tuple(v) if isinstance(v, list) and KINDS[f.kind].sequence else v
    return cls(**kwargs)


