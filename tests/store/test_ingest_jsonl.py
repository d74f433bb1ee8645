"""Ingesting JSON Lines replays: what lands in the database, idempotence, aggregates."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pmim_analytics.model.events import EVENT_COLUMN_NAMES, event_to_row
from pmim_analytics.replay.format import format_game, write_game
from pmim_analytics.store import read_frame
from pmim_analytics.store.check import check_db
from tests.store.conftest import table_counts, write_games
from tests.support.games import SHORT_GAME_STATS, WIPEOUT_GAME_STATS, short_game, wipeout_game
from tests.support.own import ingest_own
from tests.support.synthetic import iter_games

STAT_COLS = ("attacks", "hits", "damage_dealt", "overkill", "damage_taken", "kills", "destroyed",
             "round_destroyed", "vp_share", "vp_rounds")


def _stats(db: Path, game_id: str) -> dict[str, tuple]:
    frame = read_frame(f"SELECT unit_id, {', '.join(STAT_COLS)} FROM unit_game_stats WHERE game_id = ?",
                       [game_id], db=db)
    return {row[0]: tuple(row[1:]) for row in frame.iter_rows()}


def test_hand_built_games_land_with_the_aggregates_their_events_give(tmp_path: Path, db: Path) -> None:
    short, wipe = short_game(), wipeout_game()
    write_games(tmp_path / "in", [short, wipe])
    result = ingest_own([tmp_path / "in"], db)
    assert (result.loaded, result.events, result.rejected) == (2, 47, [])
    assert _stats(db, short.header.game_id) == SHORT_GAME_STATS
    assert _stats(db, wipe.header.game_id) == WIPEOUT_GAME_STATS
    games = read_frame("SELECT game_id, winner, reason, rounds, blue_vp, red_vp, first_side, n_events, rules_id "
                       "FROM games ORDER BY rules_id", db=db).rows()
    assert games == [(wipe.header.game_id, "blue", "wipeout", 2, 1, 0, "blue", 20, "v2"),
                     (short.header.game_id, None, "manual", 2, 1, 1, "blue", 27, "v3")]
    sides = read_frame("SELECT side, composition, points, n_units, vp, result FROM sides WHERE game_id = ? "
                       "ORDER BY side", [wipe.header.game_id], db=db).rows()
    assert sides == [("blue", "Pair", 5, 2, 1, "win"), ("red", "Lone", 3, 1, 0, "loss")]
    units = read_frame("SELECT unit_id, code, kind, weapons, pts FROM units WHERE game_id = ? ORDER BY unit_id",
                       [short.header.game_id], db=db).rows()
    assert units == [("B:IN1", "IN", "infantry", "LAC", 2), ("B:TW1", "TW", "warmech", "GG ML", 12),
                     ("R:GE1", "GE", "vehicle", "ML", 4), ("R:TY1", "TY", "vehicle", "HAC", 6)]


def test_events_are_stored_exactly_as_the_shared_wide_rows(tmp_path: Path, db: Path) -> None:
    games = list(iter_games(3, seed=5))
    write_games(tmp_path, games)
    assert ingest_own([tmp_path], db).loaded == 3
    for g in games:
        stored = read_frame(f"SELECT {', '.join(chr(34) + c + chr(34) for c in EVENT_COLUMN_NAMES)} FROM events "
                            "WHERE game_id = ? ORDER BY seq", [g.header.game_id], db=db).to_dicts()
        expected = [{c: event_to_row(g.header.game_id, ev).get(c) for c in EVENT_COLUMN_NAMES} for ev in g.events]
        assert stored == expected


def test_ingesting_again_adds_nothing_and_says_so(tmp_path: Path, db: Path) -> None:
    write_games(tmp_path, iter_games(4, seed=1))
    first = ingest_own([tmp_path], db)
    before = table_counts(db)
    second = ingest_own([tmp_path], db)
    assert (first.loaded, first.duplicates) == (4, 0)
    assert (second.loaded, second.duplicates, second.rejected) == (0, 4, [])
    assert "skipped 4 duplicates" in second.summary()
    assert table_counts(db) == before


def test_the_same_game_twice_in_one_run_is_loaded_once(tmp_path: Path, db: Path) -> None:
    game = short_game()
    write_game(game, tmp_path / "a.jsonl")
    write_game(game, tmp_path / "copy" / "b.jsonl")
    result = ingest_own([tmp_path / "a.jsonl", tmp_path / "copy"], db)
    assert (result.loaded, result.duplicates) == (1, 1)


def test_a_replay_written_by_another_tool_with_spaces_loads_with_the_same_id(tmp_path: Path, db: Path) -> None:
    game = short_game()
    lines = [json.dumps(json.loads(line), indent=None) for line in format_game(game).splitlines()]
    (tmp_path / "spaced.jsonl").write_text("\r\n".join(lines) + "\r\n\r\n", encoding="utf-8")
    result = ingest_own([tmp_path / "spaced.jsonl"], db)
    assert (result.loaded, result.rejected) == (1, [])
    assert read_frame("SELECT game_id FROM games", db=db).item() == game.header.game_id
    assert ingest_own([tmp_path / "spaced.jsonl"], db).duplicates == 1


def test_non_ascii_names_survive(tmp_path: Path, db: Path) -> None:
    game = short_game()
    header = game.header.model_copy(update={"notes": "Spielbericht: Übung mit “Wölfen”"})
    from tests.support.games import make_record

    record = make_record({k: v for k, v in header.model_dump(mode="json").items() if k != "game_id"}, game.events)
    write_game(record, tmp_path / "umlaut.jsonl")
    result = ingest_own([tmp_path / "umlaut.jsonl"], db)
    assert (result.loaded, result.rejected) == (1, [])


def test_many_synthetic_games_load_in_several_batches_and_check_out(tmp_path: Path, db: Path) -> None:
    write_games(tmp_path, iter_games(30, seed=40))
    result = ingest_own([tmp_path], db, batch_files=7)
    assert (result.loaded, result.rejected) == (30, [])
    report = check_db(db)
    assert report.ok, report.findings
    assert report.games == 30


@pytest.mark.parametrize("pattern", ["*.jsonl", "**/*.jsonl"])
def test_globs_are_expanded(tmp_path: Path, db: Path, pattern: str, monkeypatch: pytest.MonkeyPatch) -> None:
    write_games(tmp_path / "sub", iter_games(2, seed=3))
    monkeypatch.chdir(tmp_path / ("sub" if pattern == "*.jsonl" else "."))
    assert ingest_own([pattern], db).loaded == 2


def test_when_duckdb_cannot_read_the_files_python_reads_them(tmp_path: Path, db: Path,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    import duckdb

    from pmim_analytics.store import jsonl

    def unreadable(con: object, files: object) -> None:
        raise duckdb.IOException("IO Error: No files found that match the pattern")

    monkeypatch.setattr(jsonl, "_insert_fast", unreadable)
    write_games(tmp_path, iter_games(3, seed=2))
    (tmp_path / "gone.jsonl").write_text("", encoding="utf-8")
    result = ingest_own([tmp_path], db)
    assert result.loaded == 3 and [r.file.endswith("gone.jsonl") for r in result.rejected] == [True]
    assert check_db(db).ok
