"""Migrations, the rules tables, input discovery and the reader helpers."""

from __future__ import annotations

from pathlib import Path

import duckdb
import polars as pl
import pytest

from pmim_analytics.errors import ReplayError, StoreError
from pmim_analytics.store import migrate as migrate_mod
from pmim_analytics.store import open_reader, open_writer, read_frame, resolve_db_path
from pmim_analytics.store.connection import forget_migrated
from pmim_analytics.store.sources import find_inputs
from tests.support.games import short_game
from tests.support.parquet import write_parquet_parts


def test_a_new_database_gets_every_migration_and_every_rules_version(db: Path) -> None:
    with open_writer(db):
        pass
    versions = read_frame("SELECT version FROM schema_version ORDER BY 1", db=db).to_series().to_list()
    assert versions == [v for v, _ in migrate_mod.list_migrations()]
    rules = read_frame("SELECT rules_id, is_variant, parent FROM rules_versions ORDER BY 1", db=db).rows()
    assert ("v3", False, "v2") in rules and ("v3-llaser-rpt4", True, "v3") in rules
    ll = read_frame("SELECT rules_id, rpt FROM rules_weapons WHERE code = 'LL' AND rules_id LIKE 'v3%' ORDER BY 1",
                    db=db).rows()
    assert ("v3", 3) in ll and ("v3-llaser-rpt4", 4) in ll
    tw = read_frame("SELECT hp, body, weight_class FROM rules_units WHERE rules_id = 'v3' AND code = 'TW'", db=db)
    assert tw.row(0) == (2 + 2 + 3 + 3 + 3 + 3, "humanoid", "medium")


def test_a_database_deleted_and_made_again_in_the_same_process_gets_its_schema_again(db: Path) -> None:
    """The first open in a process migrates; a file deleted since (a user starting over while
    the dashboard runs) is a new, empty database and is set up again, not taken as done."""
    with open_writer(db):
        pass
    for suffix in ("", ".wal"):
        Path(str(db) + suffix).unlink(missing_ok=True)
    with open_writer(db):
        pass
    versions = read_frame("SELECT version FROM schema_version ORDER BY 1", db=db).to_series().to_list()
    assert versions == [v for v, _ in migrate_mod.list_migrations()]
    assert read_frame("SELECT count(*) AS n FROM rules_versions", db=db).item() > 0


def test_an_edited_variant_reloads_the_rules_tables(db: Path, data_copy: Path) -> None:
    with open_writer(db):
        pass
    variant = data_copy / "rules" / "variants" / "v3-llaser-rpt4.yaml"
    variant.write_text(variant.read_text(encoding="utf-8").replace("rpt: 4", "rpt: 5"), encoding="utf-8")
    forget_migrated()  # as a new process would
    with open_writer(db):
        pass
    assert read_frame("SELECT rpt FROM rules_weapons WHERE rules_id = 'v3-llaser-rpt4' AND code = 'LL'",
                      db=db).item() == 5


def test_a_failing_migration_leaves_the_schema_as_it_was(db: Path, tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    with open_writer(db):
        pass
    sql = tmp_path / "sql"
    sql.mkdir()
    for _, p in migrate_mod.list_migrations():
        (sql / p.name).write_text(p.read_text(encoding="utf-8"), encoding="utf-8")
    (sql / "099_broken.sql").write_text("CREATE TABLE half_done (x INTEGER);\nSELEC nonsense;\n", encoding="utf-8")
    monkeypatch.setattr(migrate_mod, "SQL_DIR", sql)
    migrate_mod.list_migrations.cache_clear()
    forget_migrated()
    try:
        with pytest.raises(StoreError) as info, open_writer(db):
            pass
        assert "migration 99 failed" in info.value.message and "099_broken.sql" in info.value.render()
        con = duckdb.connect(str(db), read_only=True)
        tables = {t for (t,) in con.execute("SELECT table_name FROM information_schema.tables").fetchall()}
        con.close()
        assert "half_done" not in tables
    finally:
        migrate_mod.list_migrations.cache_clear()
        forget_migrated()


def test_a_reader_on_an_old_schema_is_told_to_migrate(db: Path) -> None:
    con = duckdb.connect(str(db))
    con.execute(migrate_mod.list_migrations()[0][1].read_text(encoding="utf-8"))
    con.close()
    with pytest.raises(StoreError, match="pmim db migrate"), open_reader(db):
        pass


def test_read_frame_returns_polars_and_wraps_query_errors(db: Path) -> None:
    with open_writer(db):
        pass
    frame = read_frame("SELECT rules_id FROM rules_versions WHERE is_variant = $v ORDER BY 1", {"v": False}, db=db)
    assert isinstance(frame, pl.DataFrame) and frame.to_series().to_list() == ["v1", "v2", "v3"]
    with pytest.raises(StoreError, match="query failed") as info:
        read_frame("SELECT no_such_column FROM games", db=db)
    assert isinstance(info.value.__cause__, duckdb.Error)


def test_the_database_path_defaults_to_data_and_honours_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PMIM_DB", raising=False)
    assert resolve_db_path().name == "pmim.duckdb" and resolve_db_path().parent.name == "data"
    monkeypatch.setenv("PMIM_DB", "/tmp/elsewhere.duckdb")
    assert resolve_db_path() == Path("/tmp/elsewhere.duckdb")
    assert resolve_db_path("x.duckdb") == Path("x.duckdb")


def test_inputs_are_found_by_kind_in_folders_and_globs(tmp_path: Path) -> None:
    from pmim_analytics.replay.format import write_game

    write_game(short_game(), tmp_path / "a" / "one.jsonl")
    (tmp_path / "a" / "notes.txt").write_text("not a replay", encoding="utf-8")
    (tmp_path / "a" / "table.pmimlog").write_text("rules: v3\n", encoding="utf-8")
    write_parquet_parts(tmp_path / "a" / "batch", [short_game()], part_size=1)
    (tmp_path / "a" / "batch" / "events.00001.parquet").write_bytes(b"")  # still being written
    found = find_inputs([tmp_path / "a", str(tmp_path / "a" / "*.jsonl")])
    assert [p.name for p in found.jsonl] == ["one.jsonl"]  # once, though named twice
    assert [p.name for p in found.manual] == ["table.pmimlog"]
    assert [p.part for p in found.parquet] == ["00000"]
    assert any("events.00001.parquet" in n for n in found.notes)


@pytest.mark.parametrize(("arg", "words"), [("missing.jsonl", "no such file"), ("*.nothing", "matches no file")])
def test_inputs_that_do_not_exist_are_refused_before_anything_is_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                      arg: str, words: str) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ReplayError, match=words):
        find_inputs([arg])


def test_a_named_file_that_is_not_a_replay_is_refused(tmp_path: Path) -> None:
    (tmp_path / "army.yaml").write_text("name: x\n", encoding="utf-8")
    with pytest.raises(ReplayError, match="not a replay"):
        find_inputs([tmp_path / "army.yaml"])


def test_two_migrations_with_one_number_are_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "002_views.sql").write_text("SELECT 1;", encoding="utf-8")
    (tmp_path / "002_more.sql").write_text("SELECT 1;", encoding="utf-8")
    monkeypatch.setattr(migrate_mod, "SQL_DIR", tmp_path)
    migrate_mod.list_migrations.cache_clear()
    try:
        with pytest.raises(StoreError, match="share the number 2"):
            migrate_mod.list_migrations()
    finally:
        migrate_mod.list_migrations.cache_clear()
