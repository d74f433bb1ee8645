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

from dataclasses import fields

from pmim_analytics.model.events import EVENT_TYPES

# How each JSON field is typed: int, opt_int, str, opt_str, bool, pair (two ints),
# int_list, str_list. Every field of every event type must be listed here.
FIELD_KINDS: dict[str, str] = {
    "seq": "int", "round": "opt_int", "unit": "str", "hex": "pair", "first": "str",
    "from_hex": "pair", "to_hex": "pair", "path": "int", "weapon": "str", "mount": "str",
    "target": "str", "distance": "int", "roll": "pair", "acc": "int", "needed": "int",
    "hit": "bool", "location": "opt_str", "location_rolls": "int_list", "damage": "int",
    "overkill": "int", "by": "opt_str", "objective": "int", "side": "str", "blue": "str_list",
    "red": "str_list", "blue_vp": "int", "red_vp": "int", "winner": "opt_str", "reason": "str",
    "rounds": "int",
}
_DUCK = {"int": "BIGINT", "opt_int": "BIGINT", "str": "VARCHAR", "opt_str": "VARCHAR", "bool": "BOOLEAN",
         "pair": "BIGINT[]", "int_list": "BIGINT[]", "str_list": "VARCHAR[]"}


def event_keys(etype: str) -> list[str]:
    """The JSON keys of an event type in the order the writer emits them."""
    cls = EVENT_TYPES[etype]
    return ["seq", "round", "type"] + [f.name for f in fields(cls) if f.name not in ("seq", "round")]


def _check_coverage() -> None:
    for etype in EVENT_TYPES:
        missing = [k for k in event_keys(etype) if k != "type" and k not in FIELD_KINDS]
        if missing:  # pragma: no cover - a new event field must be added above
            raise RuntimeError(f"event_sql.FIELD_KINDS lacks {missing} of {etype}")


_check_coverage()


def json_struct() -> str:
    """The ``from_json`` structure covering every field of every event type."""
    items = [f'"{k}":"{_DUCK[kind]}"' for k, kind in FIELD_KINDS.items()] + ['"type":"VARCHAR"']
    return "{" + ",".join(items) + "}"


def _value_sql(key: str) -> str:
    """The typed value of one field; pairs are rebuilt from two elements so a list of any
    other length does not re-serialise to the same text."""
    x = f's."{key}"'
    if FIELD_KINDS.get(key) == "pair":
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


def wide_columns_sql() -> str:
    """SELECT list turning the parsed struct ``s`` into the wide event columns (less game_id)."""
    t = 's."type"'
    cols = {
        "seq": 's."seq"', "round": 's."round"', "type": t, "unit": 's."unit"', "target": 's."target"',
        "weapon": 's."weapon"', "mount": 's."mount"',
        "from_col": 's."from_hex"[1]', "from_row": 's."from_hex"[2]',
        "to_col": f"CASE {t} WHEN 'deploy' THEN s.\"hex\"[1] ELSE s.\"to_hex\"[1] END",
        "to_row": f"CASE {t} WHEN 'deploy' THEN s.\"hex\"[2] ELSE s.\"to_hex\"[2] END",
        "path": 's."path"', "distance": 's."distance"', "die1": 's."roll"[1]', "die2": 's."roll"[2]',
        "acc": 's."acc"', "needed": 's."needed"', "hit": 's."hit"', "location": 's."location"',
        "location_rolls": f"CASE WHEN {t} = 'attack' THEN array_to_string(s.\"location_rolls\", ',') END",
        "damage": 's."damage"', "overkill": 's."overkill"', "by": 's."by"', "objective": 's."objective"',
        "side": f"CASE {t} WHEN 'round_start' THEN s.\"first\" WHEN 'game_end' THEN s.\"winner\" "
                f"ELSE s.\"side\" END",
        "blue_holders": "array_to_string(s.\"blue\", ' ')", "red_holders": "array_to_string(s.\"red\", ' ')",
        "blue_vp": 's."blue_vp"', "red_vp": 's."red_vp"', "reason": 's."reason"', "rounds": 's."rounds"',
    }
    return ", ".join(f'{expr} AS "{name}"' for name, expr in cols.items())
