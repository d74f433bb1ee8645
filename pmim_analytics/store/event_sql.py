"""SQL that reads JSON Lines events in bulk, exactly as :mod:`pmim_analytics.replay.format`
reads them one at a time.

DuckDB parses every event line into a typed struct (``from_json``), which is lenient: it
would turn ``"3"`` into 3. So each line is also re-serialised from the typed values (with
DuckDB's JSON writer, keys in the order :func:`pmim_analytics.replay.format.format_game`
writes them); a line that does not come back byte for byte (a wrong type, an extra or
missing key, escapes, spacing) sends its game to the careful Python reader, which names
the problem. The same typed values give each
event's canonical JSON (sorted keys), so the content id of
:func:`~pmim_analytics.replay.format.compute_game_id` is computed in SQL too.
"""

from __future__ import annotations

from pmim_analytics.model.events import COMMON_FIELDS, EVENT_COLUMN_NAMES, EVENT_FIELDS, EVENT_TYPES, KINDS, EventField

_PAIRS = ("hex", "dice")


def _all_fields() -> dict[str, EventField]:
    """Every field name of every event type, with its declaration (one kind per name)."""
    out: dict[str, EventField] = {f.name: f for f in COMMON_FIELDS}
    for fs in EVENT_FIELDS.values():
        for f in fs:
            known = out.setdefault(f.name, f)
            if known.kind != f.kind:  # pragma: no cover - a declaration error
                raise RuntimeError(f"event field {f.name!r} is declared as {known.kind} and {f.kind}")
    return out


#: Field name -> declared kind, over every event type (derived from the declarations).
FIELD_KINDS: dict[str, str] = {name: f.kind for name, f in _all_fields().items()}


def event_keys(etype: str) -> list[str]:
    """The JSON keys of an event type in the order the writer emits them."""
    return ["seq", "round", "type"] + [f.name for f in EVENT_FIELDS[etype]]


def json_struct() -> str:
    """The ``from_json`` structure covering every field of every event type."""
    items = [f'"{k}":"{KINDS[kind].json_sql}"' for k, kind in FIELD_KINDS.items()] + ['"type":"VARCHAR"']
    return "{" + ",".join(items) + "}"


def _value_sql(key: str) -> str:
    """The typed value of one field; pairs are rebuilt from two elements so a list of any
    other length does not re-serialise to the same text."""
    x = f's."{key}"'
    if FIELD_KINDS.get(key) in _PAIRS:
        return f"CASE WHEN {x} IS NOT NULL THEN [{x}[1], {x}[2]] END"
    return x


def _object_sql(keys: list[str]) -> str:
    """DuckDB's own JSON writer over the fields in the given order (no spaces, like
    ``separators=(",", ":")``)."""
    return "to_json(struct_pack(" + ", ".join(f'"{k}" := {_value_sql(k)}' for k in keys) + "))"


def writer_form_sql() -> str:
    """A CASE expression over ``s`` (the parsed struct) giving the line as the writer emits it
    (NULL for an unknown type). A null required field comes back as ``null`` and is caught
    by validation."""
    arms = [f"WHEN '{t}' THEN {_object_sql(event_keys(t))}" for t in EVENT_TYPES]
    return "CAST(CASE s.\"type\" " + " ".join(arms) + " END AS VARCHAR)"


def canonical_sql() -> str:
    """A CASE expression giving the event's canonical JSON (sorted keys, no spaces)."""
    arms = [f"WHEN '{t}' THEN {_object_sql(sorted(event_keys(t)))}" for t in EVENT_TYPES]
    return "CAST(CASE s.\"type\" " + " ".join(arms) + " END AS VARCHAR)"


def _column_expr(f: EventField, i: int) -> str:
    """The SQL filling the ``i``-th wide column of field ``f`` from the parsed struct ``s``."""
    x = f's."{f.name}"'
    if f.kind in _PAIRS:
        return f"{x}[{i + 1}]"
    if f.kind == "d6_list":
        return f"array_to_string({x}, ',')"
    if f.kind == "ids":
        return f"array_to_string({x}, ' ')"
    return x


def wide_columns_sql() -> str:
    """SELECT list turning the parsed struct ``s`` into the wide event columns (less game_id),
    derived from the event declarations: a column filled by one field everywhere reads it; one
    filled by different fields in different event types reads the type's own."""
    sources: dict[str, dict[str, str]] = {}  # column -> event type -> expression
    for etype, fs in EVENT_FIELDS.items():
        for f in (*COMMON_FIELDS, *fs):
            for i, col in enumerate(f.columns):
                sources.setdefault(col, {})[etype] = _column_expr(f, i)
    sources["type"] = {t: 's."type"' for t in EVENT_TYPES}
    out = []
    for name in EVENT_COLUMN_NAMES:
        if name == "game_id":
            continue
        by_type = sources.get(name, {})
        exprs = set(by_type.values())
        if len(exprs) == 1:
            expr = exprs.pop()
        elif not exprs:  # pragma: no cover - a column no event fills
            expr = "NULL"
        else:
            expr = 'CASE s."type" ' + " ".join(f"WHEN '{t}' THEN {e}" for t, e in by_type.items()) + " END"
        out.append(f'{expr} AS "{name}"')
    return ", ".join(out)
