"""Parquet batches and manual logs land in the same tables as JSON Lines replays."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from pmim_analytics.replay.format import write_game
from pmim_analytics.rules.catalogue import REPO_ROOT
from pmim_analytics.store import read_frame
from pmim_analytics.store.check import check_db
from tests.store.conftest import table_counts, write_games
from tests.support.games import short_game, wipeout_game
from tests.support.own import ingest_own
from tests.support.parquet import events_table, games_table, write_parquet_parts
from tests.support.synthetic import iter_games

STATS = "SELECT * EXCLUDE (game_id) FROM unit_game_stats ORDER BY game_id, unit_id"


def test_a_parquet_batch_loads_like_the_same_games_as_json_lines(tmp_path: Path) -> None:
    games = list(iter_games(12, seed=70))
    write_parquet_parts(tmp_path / "batch", games, part_size=5)
    write_games(tmp_path / "jsonl", games)
    a, b = tmp_path / "a.duckdb", tmp_path / "b.duckdb"
    assert ingest_own([tmp_path / "batch"], a).loaded == 12
    assert ingest_own([tmp_path / "jsonl"], b).loaded == 12
    for sql in ("SELECT * EXCLUDE (file, ingested_at) FROM games ORDER BY game_id", "SELECT * FROM sides ORDER BY ALL",
                "SELECT * FROM units ORDER BY ALL", "SELECT * FROM events ORDER BY game_id, seq", STATS):
        assert read_frame(sql, db=a).equals(read_frame(sql, db=b)), sql
    # The same games from the other format are duplicates.
    again = ingest_own([tmp_path / "jsonl"], a)
    assert (again.loaded, again.duplicates) == (0, 12)


def test_an_unfinished_part_is_skipped_and_said_so(tmp_path: Path, db: Path) -> None:
    write_parquet_parts(tmp_path, list(iter_games(4, seed=3)), part_size=2)
    (tmp_path / "games.00001.parquet").unlink()  # the engine writes events first, games last
    result = ingest_own([tmp_path], db)
    assert result.loaded == 2
    assert any("events.00001.parquet" in n and "not there yet" in n for n in result.notes)


def test_a_part_with_a_wrong_column_type_is_refused_whole(tmp_path: Path, db: Path) -> None:
    games = [short_game(), wipeout_game()]
    tmp_path.mkdir(exist_ok=True)
    events = events_table(games)
    events = events.set_column(events.schema.get_field_index("die1"), "die1",
                               pa.array([None if v is None else str(v) for v in events.column("die1").to_pylist()]))
    pq.write_table(events, tmp_path / "events.00000.parquet")
    pq.write_table(games_table(games), tmp_path / "games.00000.parquet")
    result = ingest_own([tmp_path], db)
    assert result.loaded == 0
    [rej] = result.rejected
    assert (rej.field, rej.error_type) == ("die1", "schema") and "whole part" in rej.message
    assert table_counts(db)["events"] == 0


def test_bad_rows_reject_their_game_only_naming_the_row(tmp_path: Path, db: Path) -> None:
    games = [short_game(), wipeout_game()]
    events = events_table(games).to_pylist()
    events[7]["die1"] = 13  # the short game's first attack
    pq.write_table(pa.Table.from_pylist(events, schema=events_table(games).schema), tmp_path / "events.00000.parquet")
    head = games_table(games).to_pylist()
    head[1]["header_json"] = head[1]["header_json"].replace('"rules":"v2"', '"rules":"v7"')
    pq.write_table(pa.Table.from_pylist(head, schema=games_table(games).schema), tmp_path / "games.00000.parquet")
    write_parquet_parts(tmp_path / "more", [*iter_games(2, seed=9)])
    result = ingest_own([tmp_path], db)
    assert result.loaded == 2
    by_file = {Path(r.file).name: r for r in result.rejected}
    assert by_file["events.00000.parquet"].line == 8 and by_file["events.00000.parquet"].field == "die1/die2"
    assert by_file["games.00000.parquet"].line == 2 and by_file["games.00000.parquet"].field == "rules"
    assert '"die1":13' in by_file["events.00000.parquet"].raw  # the row, as DuckDB renders it
    assert check_db(db).ok


def test_the_designers_playtests_ingest_as_manual_games(db: Path) -> None:
    result = ingest_own([REPO_ROOT / "data" / "playtests"], db)
    assert result.rejected == [] and result.loaded >= 2
    games = read_frame("SELECT file, source, rules_id, winner, blue_vp, red_vp FROM games "
                       "WHERE file LIKE '%playtest-%' ORDER BY file", db=db).rows()
    assert [(Path(f).name, s, r, w) for f, s, r, w, _, _ in games] == [
        ("playtest-1.pmimlog", "manual", "v2", "blue"), ("playtest-2.pmimlog", "manual", "v2", "red")]
    # A summary log names no VP events: shares are unknown, not zero.
    shares = read_frame("SELECT DISTINCT vp_share FROM unit_game_stats u JOIN games g USING (game_id) "
                        "WHERE g.file LIKE '%playtest-1%'", db=db).rows()
    assert shares == [(None,)]
    assert check_db(db).ok


def test_a_broken_manual_log_is_rejected_with_its_line(tmp_path: Path, db: Path) -> None:
    text = (REPO_ROOT / "data" / "playtests" / "sample-quick-v3.pmimlog").read_text(encoding="utf-8")
    bad = tmp_path / "bad.pmimlog"
    bad.write_text(text.replace("rules: v3", "rules: v33", 1), encoding="utf-8")
    result = ingest_own([bad], db)
    [rej] = result.rejected
    assert rej.file.endswith("bad.pmimlog") and rej.line is not None and "v33" in rej.message


def test_manual_logs_are_routed_to_the_manual_reader(tmp_path: Path, db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import pmim_analytics.replay.manual as manual

    game = short_game()
    manual_game = game.__class__(game.header.model_copy(update={"source": "manual"}), game.events)
    monkeypatch.setattr(manual, "read_log", lambda path, strict=True: manual_game)
    (tmp_path / "x.pmimlog").write_text("anything", encoding="utf-8")
    write_game(wipeout_game(), tmp_path / "y.jsonl")
    result = ingest_own([tmp_path], db)
    assert result.loaded == 2
    assert read_frame("SELECT source FROM games ORDER BY source", db=db).to_series().to_list() == ["engine", "manual"]


def test_a_part_with_corrupt_pages_is_refused_and_the_other_parts_load(tmp_path: Path, db: Path) -> None:
    write_parquet_parts(tmp_path, list(iter_games(6, seed=21)), part_size=2)
    events = tmp_path / "events.00001.parquet"
    data = bytearray(events.read_bytes())
    for i in range(4, len(data) // 2):  # scramble the pages, keep the footer (the schema still reads)
        data[i] = (data[i] * 7 + 13) % 256
    events.write_bytes(bytes(data))
    result = ingest_own([tmp_path], db)
    assert result.loaded == 4
    [rej] = result.rejected
    assert rej.file.endswith("events.00001.parquet") and rej.error_type == "io" and "cannot be read" in rej.message
    assert check_db(db).ok
