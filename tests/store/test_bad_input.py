"""Broken replays: each is refused whole with a clear reason naming file, line and field,
nothing of it is stored, and the good games beside it still load."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from pmim_analytics.model.events import Event, event_from_dict
from pmim_analytics.replay.format import GameHeader, format_game, game_id_of
from pmim_analytics.store import jsonl as jsonl_mod
from pmim_analytics.store import read_frame
from pmim_analytics.store.check import check_db
from tests.store.conftest import rows_of, table_counts, write_games
from tests.support.games import short_game, wipeout_game
from tests.support.own import ingest_own

Lines = list[str]


def _edit_event(index: int, **changes: object) -> Callable[[Lines], Lines]:
    """Change fields of the event on line ``index + 1`` (line 1 is the header)."""
    def edit(lines: Lines) -> Lines:
        obj = json.loads(lines[index])
        obj.update(changes)
        lines[index] = json.dumps(obj, separators=(",", ":"))
        return lines
    return edit


def _edit_header(fn: Callable[[dict], None]) -> Callable[[Lines], Lines]:
    def edit(lines: Lines) -> Lines:
        obj = json.loads(lines[0])
        fn(obj)
        lines[0] = json.dumps(obj, separators=(",", ":"))
        return lines
    return edit


def _reidentify(lines: Lines) -> Lines:
    """Give the edited replay the id of its new content (as a buggy writer would)."""
    head = json.loads(lines[0])
    events: list[Event] = [event_from_dict(json.loads(x)) for x in lines[1:] if x.strip()]
    head["game_id"] = game_id_of(GameHeader.model_validate(head), events)
    lines[0] = json.dumps(head, separators=(",", ":"))
    return lines


def _set_unit(side: str, i: int, **changes: object) -> Callable[[dict], None]:
    def fn(h: dict) -> None:
        h["sides"][side]["units"][i].update(changes)
    return fn


# (name, edit of the short game's lines, re-identify?, expected line, field, words in the message)
CASES = [
    ("invalid JSON", lambda ls: ls[:5] + ['{"seq":5,"round":1,,}'] + ls[6:], False, 6, None, "invalid JSON"),
    ("cut mid-line", lambda ls: ls[:10] + [ls[10][:30]], False, 11, None, "invalid JSON"),
    ("cut at a line end", lambda ls: ls[:12], False, 12, "type", "no game_end"),
    ("wrong type", _edit_event(8, damage="4"), False, 9, "damage", "whole number"),
    ("wrong type, re-identified", _edit_event(8, hit="yes"), True, 9, "hit", "true or false"),
    ("unknown unit type", _edit_header(_set_unit("blue", 0, code="ZZ")), True, 1, "sides.blue.units.0.code",
     "does not exist in rules v3"),
    ("unknown weapon", _edit_header(_set_unit("red", 0, weapons=["XL"])), True, 1, "sides.red.units.0.weapons.0",
     "'XL'"),
    ("event for a unit not in the roster", _edit_event(6, unit="B:XX9"), True, 7, "unit", "not in either roster"),
    ("attack by a unit without that weapon", _edit_event(8, weapon="HAC"), True, 9, "weapon",
     "B:TW1 has no HAC on mount LA"),
    ("duplicate unit ids", _edit_header(_set_unit("blue", 1, id="B:TW1")), True, 1, "sides", "used 2 times"),
    ("roll of 13", _edit_event(8, roll=[7, 6]), True, 9, "roll", "two d6"),
    # a hit the roll cannot give, ACC, DEF or damage not the rules': the engine judges those
    # (tests/store/test_rules_check_ingest.py); a signed file like this one is trusted
    ("negative damage", _edit_event(8, damage=-4, overkill=0), True, 9, "damage", "negative"),
    ("overkill above damage", _edit_event(8, overkill=9), True, 9, "overkill", "more than the damage"),
    ("seq gap", _edit_event(10, seq=40), True, 11, "seq", "out of order"),
    ("unknown event type", _edit_event(10, type="teleport"), False, 11, "type", "unknown event type"),
    ("two game_end", lambda ls: ls + [ls[-1].replace('"seq":27', '"seq":28')], True, 29, "type", "second game_end"),
    ("unknown rules version", _edit_header(lambda h: h.update(rules="v9")), True, 1, "rules", "unknown rules"),
    ("header not an object", lambda ls: ["[1, 2]"] + ls[1:], False, 1, None, "header"),
    ("missing side", _edit_header(lambda h: h["sides"].pop("red")), False, 1, "sides", "red is missing"),
    ("edited after writing", _edit_event(8, roll=[4, 4]), False, 1, "game_id", "does not match"),
]


@pytest.mark.parametrize(("name", "edit", "reid", "line", "field", "words"), CASES, ids=[c[0] for c in CASES])
def test_a_broken_replay_is_rejected_whole_and_the_others_load(
        tmp_path: Path, db: Path, name: str, edit: Callable[[Lines], Lines], reid: bool, line: int,
        field: str | None, words: str) -> None:
    lines = edit(format_game(short_game()).splitlines())
    if reid:
        lines = _reidentify(lines)
    bad = tmp_path / "in" / "bad.jsonl"
    bad.parent.mkdir()
    bad.write_text("\n".join(lines) + "\n", encoding="utf-8")
    write_games(tmp_path / "in", [wipeout_game()], prefix="good")
    result = ingest_own([tmp_path / "in"], db)
    assert result.loaded == 1 and len(result.rejected) == 1, result.rejected
    rej = result.rejected[0]
    assert rej.file.endswith("bad.jsonl")
    assert (rej.line, rej.field) == (line, field), rej.render()
    assert words in rej.message, rej.render()
    assert rej.raw and lines[line - 1].startswith(rej.raw.removesuffix("…")), "the raw text is the line at fault"
    counts = table_counts(db)
    assert counts["games"] == 1 and counts["events"] == len(wipeout_game().events)
    assert check_db(db).ok
    stored = read_frame("SELECT file, line, field, error_type, message FROM ingest_rejects", db=db).rows()
    assert stored == [(rej.file, rej.line, rej.field, rej.error_type, rej.message)]


def test_empty_file_is_rejected(tmp_path: Path, db: Path) -> None:
    (tmp_path / "empty.jsonl").write_bytes(b"")
    result = ingest_own([tmp_path / "empty.jsonl"], db)
    assert [r.message for r in result.rejected] == ["the file is empty; a replay starts with a header line"]
    assert table_counts(db)["games"] == 0


def test_non_utf8_bytes_are_rejected_with_their_line(tmp_path: Path, db: Path) -> None:
    text = format_game(short_game()).encode()
    lines = text.split(b"\n")
    lines[6] = lines[6].replace(b"B:TW1", b"B:\xffW1")
    (tmp_path / "latin.jsonl").write_bytes(b"\n".join(lines))
    rej = ingest_own([tmp_path / "latin.jsonl"], db).rejected
    assert [(r.line, r.error_type) for r in rej] == [(7, "encoding")]
    assert "not UTF-8" in rej[0].message


def test_a_huge_file_is_refused_without_reading_it(tmp_path: Path, db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(jsonl_mod, "MAX_REPLAY_BYTES", 4096)
    big = tmp_path / "huge.jsonl"
    big.write_text(format_game(short_game()) + ("\n" * 5000), encoding="utf-8")
    rej = ingest_own([big], db).rejected
    assert [r.error_type for r in rej] == ["size"] and "too large" in rej[0].message


def test_duplicates_are_found_across_batches(tmp_path: Path, db: Path) -> None:
    game = short_game()
    text = format_game(game)
    for i in range(3):
        (tmp_path / f"g{i}.jsonl").write_text(text, encoding="utf-8")
    result = ingest_own([tmp_path], db, batch_files=1)
    assert (result.loaded, result.duplicates) == (1, 2)


def test_strict_stops_at_the_first_rejection(tmp_path: Path, db: Path) -> None:
    write_games(tmp_path, [wipeout_game()], prefix="a")
    (tmp_path / "b-bad.jsonl").write_text("{nonsense\n", encoding="utf-8")
    write_games(tmp_path, [short_game()], prefix="c")
    result = ingest_own([tmp_path], db, strict=True)
    assert (result.loaded, len(result.rejected)) == (1, 1)
    assert rows_of(db, short_game().header.game_id) == 0
    assert rows_of(db, wipeout_game().header.game_id) > 0
