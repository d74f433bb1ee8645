"""Set-based validation of the staged games: a few SQL queries flag every bad game at once.

These are the structural checks, each naming the line and field at fault:

- header: known rules version and scenario; unit ids unique; unit types, names and kinds
  and weapons that exist in the game's rules version; one mount per weapon;
- every event: a known type with its required fields; ``seq`` = 1, 2, ... in file order;
  units, targets, attackers and VP holders that are in the rosters (on the right side);
  an attack uses a weapon the unit carries on that mount; dice are die results (d6: 1-6);
  damage and overkill are never negative, overkill never exceeds damage; known locations,
  sides and end reasons; values fit their columns;
- every game: at least one event, exactly one ``game_end``, and it comes last.

The rules themselves (does the roll hit, are ACC, the number needed and the damage the
rules version's, who scores, who goes first, does a weapon overheat) have one judge: the
engine, which replays every game the ingest does not trust as its own
(:mod:`pmim_analytics.store.rules_judge`); a manual log was replayed by its reader. The
first problem of each game (by line) is its rejection.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import duckdb

from pmim_analytics.model.events import COLUMN_TYPES, COMMON_FIELDS, EVENT_COLUMNS, EVENT_FIELDS, EVENT_TYPES
from pmim_analytics.model.vocab import END_REASONS as GAME_END_REASONS
from pmim_analytics.model.vocab import LOCATION_CODES
from pmim_analytics.store.event_sql import event_keys

#: (type, key) of the fields that may be null (what a manual log may not know), as declared.
OPTIONAL_BY_TYPE = {(t, f.name) for t, fs in EVENT_FIELDS.items() for f in (*COMMON_FIELDS, *fs) if f.nullable}
#: JSON key -> the wide columns it fills, where they are named otherwise (as declared).
KEY_COLUMNS = {f.name: f.columns for fs in EVENT_FIELDS.values() for f in fs if f.columns != (f.name,)}
#: Parquet has no JSON keys: name its columns instead.
PARQUET_FIELD = {k: "/".join(v) for k, v in KEY_COLUMNS.items()}


@dataclass(frozen=True)
class Problem:
    """The first problem found in one staged game."""

    g: int
    in_header: bool
    line: int | None
    field: str | None
    error_type: str
    message: str


def _q(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def _in_list(values: Iterable[object]) -> str:
    return "(" + ", ".join(_q(str(v)) for v in values) + ")"


def _required_checks() -> list[str]:
    """One arm per event type: any required field null, naming the first such field."""
    arms = []
    for etype in EVENT_TYPES:
        keys = [k for k in event_keys(etype)
                if (etype, k) not in OPTIONAL_BY_TYPE and k != "type"]
        conds = {k: " OR ".join(f'e."{c}" IS NULL' for c in KEY_COLUMNS.get(k, (k,))) for k in keys}
        which = "CASE " + " ".join(f"WHEN {c} THEN '{k}'" for k, c in conds.items()) + " END"
        anyc = " OR ".join(f"({c})" for c in conds.values())
        arms.append(f"WHEN e.type = '{etype}' AND ({anyc}) THEN [{which}, 'format', "
                    f"printf('field ''%s'' of a {etype} event is missing or null', {which})]")
    return arms


def _range_checks() -> list[str]:
    arms = []
    for name, sql_type in EVENT_COLUMNS:
        ctype = COLUMN_TYPES[sql_type]
        if ctype.lo is not None and ctype.staged != ctype.sql:  # narrowed once staged: check it fits
            lo, hi = ctype.lo, ctype.hi
            key = {"die1": "roll", "die2": "roll", "to_col": "hex", "to_row": "hex"}.get(name, name)
            arms.append(f'WHEN e."{name}" NOT BETWEEN {lo} AND {hi} THEN '
                        f"['{key}', 'value', printf('{name} %d is out of range', e.\"{name}\")]")
    return arms


def event_checks_sql() -> str:
    """One pass over ``st_events``: the first failing check of each event, or NULL."""
    types = _in_list(EVENT_TYPES)
    locs = _in_list(LOCATION_CODES.values())
    reasons = _in_list(GAME_END_REASONS)
    arms = [
        f"WHEN e.type IS NULL OR e.type NOT IN {types} THEN "
        "['type', 'format', printf('unknown event type %s', coalesce('''' || e.type || '''', 'null'))]",
        *_required_checks(),
        "WHEN e.round < 0 THEN ['round', 'value', printf('round %d is negative', e.round)]",
        *_range_checks(),
        "WHEN e.unit IS NOT NULL AND a.unit_id IS NULL THEN "
        "['unit', 'roster', printf('unit ''%s'' is not in either roster', e.unit)]",
        "WHEN e.target IS NOT NULL AND t.unit_id IS NULL THEN "
        "['target', 'roster', printf('target ''%s'' is not in either roster', e.target)]",
        "WHEN e.\"by\" IS NOT NULL AND b.unit_id IS NULL THEN "
        "['by', 'roster', printf('''by'' names ''%s'', which is not in either roster', e.\"by\")]",
        "WHEN e.type = 'attack' AND NOT list_contains(a.arms, e.weapon || '@' || e.mount) THEN "
        "['weapon', 'roster', printf('%s has no %s on mount %s (it carries %s)', e.unit, e.weapon, e.mount, "
        "array_to_string(list_transform(a.arms, lambda x: replace(x, '@', ' on ')), ', '))]",
        "WHEN e.type = 'attack' AND (e.die1 IS NULL) <> (e.die2 IS NULL) THEN "
        "['roll', 'format', 'a roll has two dice or none']",
        "WHEN e.type = 'first_player' AND e.die1 NOT BETWEEN 1 AND 6 THEN "
        "['die', 'roll', printf('die %d is not a d6 result (1-6)', e.die1)]",
        "WHEN e.type = 'attack' AND (e.die1 NOT BETWEEN 1 AND 6 OR e.die2 NOT BETWEEN 1 AND 6) THEN "
        "['roll', 'roll', printf('roll [%d, %d] is not two d6 results (1-6 each)', e.die1, e.die2)]",
        "WHEN e.type = 'overheat_roll' AND e.die1 NOT BETWEEN 1 AND 6 THEN "
        "['result', 'roll', printf('overheat roll %d is not a d6 result (1-6)', e.die1)]",
        "WHEN e.type = 'initiative_roll' AND (e.die1 < 1 OR e.die2 < 1) THEN "
        "['blue_roll', 'roll', printf('initiative rolls [%d, %d] are not die results', e.die1, e.die2)]",
        "WHEN e.type = 'weapon_lost' AND NOT regexp_full_match(e.location_rolls, '[1-6](,[1-6])*') THEN "
        "['location_rolls', 'roll', printf('location rolls [%s] are not d6 results (1-6 each)', e.location_rolls)]",
        "WHEN e.type = 'attack' AND NOT regexp_full_match(e.location_rolls, '([1-6](,[1-6])*)?') THEN "
        "['location_rolls', 'roll', printf('location rolls [%s] are not d6 results (1-6 each)', e.location_rolls)]",
        "WHEN e.damage < 0 THEN ['damage', 'damage', printf('damage %d is negative; damage is never negative', "
        "e.damage)]",
        "WHEN e.overkill < 0 THEN ['overkill', 'damage', printf('overkill %d is negative', e.overkill)]",
        "WHEN e.overkill > e.damage THEN ['overkill', 'damage', printf('overkill %d is more than the damage %d', "
        "e.overkill, e.damage)]",
        f"WHEN e.location IS NOT NULL AND e.location NOT IN {locs} THEN "
        "['location', 'value', printf('unknown hit location ''%s''', e.location)]",
        "WHEN e.type IN ('round_start', 'vp', 'first_player') AND e.side NOT IN ('blue', 'red') THEN "
        "[CASE e.type WHEN 'round_start' THEN 'first' ELSE 'side' END, 'value', "
        "printf('side must be blue or red, got ''%s''', e.side)]",
        "WHEN e.type = 'game_end' AND e.side NOT IN ('blue', 'red') THEN "
        "['winner', 'value', printf('winner must be blue, red or null, got ''%s''', e.side)]",
        f"WHEN e.type = 'game_end' AND e.reason NOT IN {reasons} THEN "
        "['reason', 'value', printf('unknown reason ''%s''', e.reason)]",
        "WHEN e.path < 0 OR e.distance < 0 OR e.objective < 0 THEN "
        "['path', 'value', 'path, distance and objective are never negative']",
    ]
    return "CASE " + " ".join(arms) + " END"


def find_problems(con: duckdb.DuckDBPyConnection, scenarios: list[str]) -> list[Problem]:
    """Run every check over the staging tables; return the first problem of each bad game."""
    con.execute("""
        CREATE OR REPLACE TEMP TABLE st_problems (g INTEGER, in_header BOOLEAN, line INTEGER, field VARCHAR,
                                                  error_type VARCHAR, message VARCHAR)""")
    con.execute(f"INSERT INTO st_problems {_header_checks_sql(scenarios)}")
    con.execute(f"""
        INSERT INTO st_problems
        SELECT g, false, line, chk[1], chk[2], chk[3] FROM (
            SELECT e.g, e.line, {event_checks_sql()} AS chk
            FROM st_events e
            LEFT JOIN st_units a ON a.g = e.g AND a.unit_id = e.unit
            LEFT JOIN st_units t ON t.g = e.g AND t.unit_id = e.target
            LEFT JOIN st_units b ON b.g = e.g AND b.unit_id = e."by")
        WHERE chk IS NOT NULL""")
    con.execute(f"INSERT INTO st_problems {_sequence_checks_sql()}")
    con.execute(f"INSERT INTO st_problems {_vp_checks_sql()}")
    con.execute(f"INSERT INTO st_problems {_game_checks_sql()}")
    rows = con.execute("""
        SELECT g, in_header, line, field, error_type, message FROM st_problems
        QUALIFY row_number() OVER (PARTITION BY g ORDER BY NOT in_header, line NULLS FIRST) = 1
        ORDER BY g""").fetchall()
    con.execute("DROP TABLE st_problems")
    return [Problem(*r) for r in rows]


def _sequence_checks_sql() -> str:
    """seq must run 1, 2, ... in file order. Most games show it from a few aggregates (seq
    minus line constant, no gaps); only the others are sorted to find the first wrong line."""
    return """
        WITH per AS (
            SELECT g, count(*) AS n, min(seq) AS lo, max(seq) AS hi, min(seq - line) AS d_lo,
                   max(seq - line) AS d_hi, max(line) - min(line) + 1 AS span
            FROM st_events GROUP BY g),
        doubtful AS (
            SELECT g FROM per WHERE NOT (lo = 1 AND hi = n AND d_lo = d_hi AND span = n))
        SELECT g, false, line, 'seq', 'sequence', printf('event seq %d out of order (expected %d)', seq, pos)
        FROM (SELECT g, line, seq, row_number() OVER (PARTITION BY g ORDER BY line) AS pos
              FROM st_events SEMI JOIN doubtful USING (g))
        WHERE seq IS DISTINCT FROM pos
        QUALIFY row_number() OVER (PARTITION BY g ORDER BY line) = 1
    """


def _header_checks_sql(scenarios: list[str]) -> str:
    known = _in_list(scenarios) if scenarios else "(NULL)"
    return f"""
        SELECT g, true, head_line, 'rules', 'rules',
               printf('unknown rules version ''%s''; known: %s', rules_id,
                      (SELECT string_agg(rules_id, ', ' ORDER BY rules_id) FROM rules_versions))
        FROM st_games WHERE rules_id NOT IN (SELECT rules_id FROM rules_versions)
        UNION ALL
        SELECT g, true, head_line, 'scenario', 'rules', printf('unknown scenario ''%s''', scenario)
        FROM st_games WHERE scenario NOT IN {known}
        UNION ALL
        SELECT g, true, any_value(sg.head_line), 'sides', 'roster',
               printf('unit id ''%s'' is used %d times in the rosters', unit_id, count(*))
        FROM st_units JOIN st_games sg USING (g) GROUP BY g, unit_id HAVING count(*) > 1
        UNION ALL
        SELECT u.g, true, sg.head_line, printf('sides.%s.units.%d.code', u.side, u.pos), 'rules',
               CASE WHEN r.code IS NULL
                    THEN printf('unit %s is a ''%s'' (code %s), which does not exist in rules %s',
                                u.unit_id, u.type, u.code, sg.rules_id)
                    ELSE printf('unit %s is a ''%s'' (%s) but code %s is the ''%s'' (%s) in rules %s',
                                u.unit_id, u.type, u.kind, u.code, r.name, r.kind, sg.rules_id) END
        FROM st_units u JOIN st_games sg USING (g)
        LEFT JOIN rules_units r ON r.rules_id = sg.rules_id AND r.code = u.code
        WHERE sg.rules_id IN (SELECT rules_id FROM rules_versions)
          AND (r.code IS NULL OR r.name <> u.type OR r.kind <> u.kind)
        UNION ALL
        SELECT w.g, true, sg.head_line, printf('sides.%s.units.%d.weapons.%d', w.side, w.pos, w.i - 1), 'rules',
               printf('unit %s carries ''%s'', a weapon that does not exist in rules %s',
                      w.unit_id, w.weapons[w.i], sg.rules_id)
        FROM (SELECT *, generate_subscripts(weapons, 1) AS i FROM st_units) w JOIN st_games sg USING (g)
        LEFT JOIN rules_weapons r ON r.rules_id = sg.rules_id AND r.code = w.weapons[w.i]
        WHERE sg.rules_id IN (SELECT rules_id FROM rules_versions) AND r.code IS NULL
        UNION ALL
        SELECT u.g, true, sg.head_line, printf('sides.%s.units.%d.mounts', u.side, u.pos), 'roster',
               printf('unit %s has %d weapons but %d mounts', u.unit_id, len(u.weapons), len(u.mounts))
        FROM st_units u JOIN st_games sg USING (g) WHERE len(u.weapons) <> len(u.mounts)
        UNION ALL
        SELECT u.g, true, sg.head_line, printf('sides.%s.units.%d.pts', u.side, u.pos), 'value',
               printf('pts %d is out of range', u.pts)
        FROM st_units u JOIN st_games sg USING (g) WHERE u.pts NOT BETWEEN 0 AND 2147483647
        UNION ALL
        SELECT s.g, true, sg.head_line, printf('sides.%s.points', s.side), 'value',
               printf('points %d is out of range', s.points)
        FROM st_sides s JOIN st_games sg USING (g) WHERE s.points NOT BETWEEN 0 AND 2147483647
        UNION ALL
        SELECT g, true, head_line, 'game_index', 'value', printf('game_index %d is out of range', game_index)
        FROM st_games WHERE game_index NOT BETWEEN -2147483648 AND 2147483647
    """


def _vp_checks_sql() -> str:
    return """
        WITH vp AS (
            SELECT g, line, side,
                   CASE WHEN blue_holders = '' THEN [] ELSE string_split(blue_holders, ' ') END AS blue,
                   CASE WHEN red_holders = '' THEN [] ELSE string_split(red_holders, ' ') END AS red
            FROM st_events WHERE type = 'vp' AND side IN ('blue', 'red')),
        holders AS (
            SELECT g, line, 'blue' AS named, unnest(blue) AS unit_id FROM vp
            UNION ALL SELECT g, line, 'red', unnest(red) FROM vp)
        SELECT h.g, false, h.line, h.named, 'roster',
               printf('VP holder ''%s'' is not a %s unit', h.unit_id, h.named)
        FROM holders h LEFT JOIN st_units u ON u.g = h.g AND u.unit_id = h.unit_id AND u.side = h.named
        WHERE u.unit_id IS NULL
    """


def _game_checks_sql() -> str:
    return """
        WITH per AS (
            SELECT g, count(*) AS n, max(line) AS last_line,
                   count(*) FILTER (WHERE type = 'game_end') AS n_end,
                   min(line) FILTER (WHERE type = 'game_end') AS end_line
            FROM st_events GROUP BY g),
        second_end AS (
            SELECT g, line FROM st_events WHERE type = 'game_end'
            QUALIFY row_number() OVER (PARTITION BY g ORDER BY line) = 2),
        after_end AS (
            SELECT e.g, min(e.line) AS line FROM st_events e JOIN per p USING (g)
            WHERE e.line > p.end_line AND e.type <> 'game_end' GROUP BY e.g)
        SELECT sg.g, false, sg.head_line, NULL, 'sequence', 'the game has a header but no events'
        FROM st_games sg ANTI JOIN per USING (g)
        UNION ALL
        SELECT g, false, last_line, 'type', 'sequence',
               printf('no game_end event: the game stops at line %d (is the file cut short?)', last_line)
        FROM per WHERE n_end = 0
        UNION ALL
        SELECT g, false, line, 'type', 'sequence', 'a second game_end event' FROM second_end
        UNION ALL
        SELECT g, false, line, 'type', 'sequence', 'an event after game_end (game_end must come last)'
        FROM after_end
    """
