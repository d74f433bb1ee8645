"""Property: a mutated replay is loaded whole or rejected whole, never partly.

Hypothesis edits valid replays (fields set to odd values or removed, lines dropped,
doubled or swapped, bytes cut or garbled), sometimes re-stamping the content id as a
buggy writer would. Whatever comes out, the database either gains exactly that game
(every event, as Python's own reader reads the file) or nothing at all, and stays whole.
"""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from pmim_analytics.errors import ReplayError
from pmim_analytics.model.events import EVENT_COLUMN_NAMES, event_from_dict, event_to_row
from pmim_analytics.replay.format import GameHeader, format_game, game_id_of, read_game
from pmim_analytics.store import read_frame
from pmim_analytics.store.check import check_db
from tests.store.conftest import table_counts
from tests.support.games import short_game, wipeout_game
from tests.support.own import ingest_own
from tests.support.synthetic import generate_game

BASES = [format_game(g) for g in (short_game(), wipeout_game(), generate_game(3, "v2"))]
VALUES = [-1, 0, 1, 6, 7, 13, 40000, 2**40, 2.5, "x", "3", "B:TW1", "R:TY1", "GG", "LA", "", None, True, False,
          [], [1, 2], [7, 6], [1, 2, 3], {"a": 1}]
KEYS = ["seq", "round", "type", "unit", "target", "weapon", "mount", "roll", "acc", "needed", "hit", "damage",
        "overkill", "location", "location_rolls", "by", "side", "blue", "red", "hex", "rules", "sides", "extra"]

# An edit that keeps a game valid once re-stamped (or adds a key the reader ignores).
harmless = st.tuples(st.just("set_event"), st.integers(0, 10**6), st.sampled_from(["distance", "path", "objective"]),
                     st.integers(0, 4))
mutation = st.one_of(
    harmless,
    st.tuples(st.just("set"), st.integers(0, 10**6), st.sampled_from(KEYS), st.sampled_from(VALUES)),
    st.tuples(st.just("drop_key"), st.integers(0, 10**6), st.sampled_from(KEYS)),
    st.tuples(st.sampled_from(["drop_line", "dup_line", "swap_lines"]), st.integers(0, 10**6)),
    st.tuples(st.sampled_from(["cut", "garble"]), st.integers(0, 10**6)),
)
_counter = itertools.count()


def _mutate(text: str, muts: list[tuple]) -> bytes:
    lines = text.splitlines()
    raw: bytes | None = None
    for m in muts:
        kind, pos = m[0], m[1]
        i = pos % len(lines) if lines else 0
        if kind == "set_event":  # an event line that has this key
            having = [j for j in range(1, len(lines)) if f'"{m[2]}":' in lines[j]] or [0]
            kind, i = "set", having[pos % len(having)]
        if kind in ("set", "drop_key") and i < len(lines):
            try:
                obj = json.loads(lines[i])
            except json.JSONDecodeError:
                continue
            if not isinstance(obj, dict):
                continue
            if kind == "set":
                obj[m[2]] = m[3]
            else:
                obj.pop(m[2], None)
            lines[i] = json.dumps(obj, separators=(",", ":"))
        elif kind == "drop_line" and lines:
            del lines[i]
        elif kind == "dup_line" and lines:
            lines.insert(i, lines[i])
        elif kind == "swap_lines" and len(lines) > 1:
            j = (i + 1) % len(lines)
            lines[i], lines[j] = lines[j], lines[i]
    raw = ("\n".join(lines) + "\n").encode()
    for m in muts:
        if m[0] == "cut":
            raw = raw[: m[1] % (len(raw) + 1)]
        elif m[0] == "garble" and raw:
            k = m[1] % len(raw)
            raw = raw[:k] + b"\xff\xfe" + raw[k + 1:]
    return raw


def _restamp(raw: bytes) -> bytes:
    """Recompute the game_id over the (mutated) content, when the content can be read."""
    try:
        lines = raw.decode().splitlines()
        head = json.loads(lines[0])
        events = [event_from_dict(json.loads(x)) for x in lines[1:] if x.strip()]
        head["game_id"] = game_id_of(GameHeader.model_validate({**head, "game_id": "x"}), events)
    except Exception:  # noqa: BLE001 - unreadable content simply keeps its old id
        return raw
    lines[0] = json.dumps(head, separators=(",", ":"))
    return ("\n".join(lines) + "\n").encode()


@pytest.fixture(scope="module")
def shared(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("property")
    return root / "in", root / "p.duckdb"


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(base=st.sampled_from(range(len(BASES))), muts=st.lists(mutation, min_size=1, max_size=3),
       restamp=st.booleans())
def test_a_mutated_replay_loads_whole_or_not_at_all(shared: tuple[Path, Path], base: int, muts: list[tuple],
                                                     restamp: bool) -> None:
    _ingest_and_check(shared, base, muts, restamp)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(base=st.sampled_from(range(len(BASES))), muts=st.lists(harmless, min_size=1, max_size=3))
def test_a_harmlessly_edited_replay_loads_whole(shared: tuple[Path, Path], base: int, muts: list[tuple]) -> None:
    assert _ingest_and_check(shared, base, muts, restamp=True) in ("loaded", "duplicate")


def _ingest_and_check(shared: tuple[Path, Path], base: int, muts: list[tuple], restamp: bool) -> str:
    """Ingest the mutated replay; check whole-or-nothing; return what happened."""
    folder, db = shared
    raw = _mutate(BASES[base], muts)
    if restamp:
        raw = _restamp(raw)
    path = folder / f"m{next(_counter):04d}.jsonl"
    folder.mkdir(parents=True, exist_ok=True)
    path.write_bytes(raw)
    before = table_counts(db) if db.exists() else dict.fromkeys(("games", "sides", "units", "events",
                                                                   "unit_game_stats"), 0)
    result = ingest_own([path], db)
    after = table_counts(db)
    assert result.loaded + result.duplicates + len(result.rejected) == 1
    outcome = "loaded" if result.loaded else "duplicate" if result.duplicates else "rejected"
    event(outcome if outcome != "rejected" else f"rejected: {result.rejected[0].error_type}")
    try:
        python_view = read_game(path)
    except ReplayError:
        python_view = None
    if result.loaded == 0:
        assert after == before, "a refused or duplicate game left rows behind"
        return outcome
    assert python_view is not None, "the store loaded a file Python's reader refuses"
    gid = python_view.header.game_id
    n_units = sum(len(s.units) for s in python_view.header.sides.values())
    assert after == {"games": before["games"] + 1, "sides": before["sides"] + 2,
                     "units": before["units"] + n_units, "events": before["events"] + len(python_view.events),
                     "unit_game_stats": before["unit_game_stats"] + n_units}
    cols = ", ".join(f'"{c}"' for c in EVENT_COLUMN_NAMES)
    stored = read_frame(f"SELECT {cols} FROM events WHERE game_id = ? ORDER BY seq", [gid], db=db).to_dicts()
    assert stored == [{c: event_to_row(gid, ev).get(c) for c in EVENT_COLUMN_NAMES} for ev in python_view.events]
    assert check_db(db).ok
    return outcome
