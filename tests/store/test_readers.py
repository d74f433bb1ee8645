"""The database loader: a real DuckDB file from sql/001_initial.sql gives the same frames."""

from __future__ import annotations

from pathlib import Path

import duckdb
import polars as pl
import pytest
from polars.testing import assert_frame_equal

from pmim_analytics.analytics.dataset import FrameData
from pmim_analytics.analytics.frames import Frames
from pmim_analytics.analytics.units import unit_table
from pmim_analytics.errors import StoreError
from pmim_analytics.store.readers import DuckDBData, default_db_path
from tests.analytics.test_compositions import five_games
from tests.analytics.test_luck_quality import quality_games
from tests.analytics.test_units import survival_games, timber_wolf_game
from tests.support.dbhelper import create_db
from tests.support.gamebuilder import GameBuilder, frames_of


def mixed_games() -> list[GameBuilder]:
    compositions = five_games()
    for g in compositions:
        g.game_id = "c" + g.game_id
    games = [timber_wolf_game(), *survival_games(), *compositions, *quality_games()]
    manual = GameBuilder("m1", source="manual", first_side=None).side("blue", "A", [("TW1", "TW", ("GG", "ML"))])
    manual.side("red", "B", [("TY1", "TY", ("HAC",))]).destroy(None, "R:TY1")  # round unknown
    games.append(manual.final_vp(11, 2).end("blue", "manual", 7))
    variant = GameBuilder("v1", rules_id="v3-llaser-rpt4").side("blue", "A", [("IN1", "IN", ("LL",))])
    variant.side("red", "B", [("IN1", "IN", ("LAC",))]).attack(1, "B:IN1", "LL", "R:IN1", (4, 4))
    games.append(variant.end("blue", "vp", 3))
    return games


def paired_games() -> list[GameBuilder]:
    """Two different lists meeting under v3 and under the L. Laser variant with the same bots
    and sides: what paired rules impact compares (the blue list wins 1 of 4, then 3 of 4)."""
    heavy = [("TW1", "TW", ("GG", "ML")), ("TY1", "TY", ("HAC",))]
    light = [("IN1", "IN", ("LL",)), ("IN2", "IN", ("LAC",))]
    out = []
    for rules_id, blue_wins in (("v3", 1), ("v3-llaser-rpt4", 3)):
        for i in range(4):
            won = i < blue_wins
            g = GameBuilder(f"p-{rules_id}-{i}", rules_id=rules_id).side("blue", "Heavy", heavy)
            g.side("red", "Light", light)
            out.append(g.final_vp(*((11, 6) if won else (6, 11))).end("blue" if won else "red", "vp", 8))
    return out


@pytest.fixture(scope="module")
def frames() -> Frames:
    return frames_of(mixed_games())


@pytest.fixture(scope="module")
def db(frames: Frames, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return create_db(tmp_path_factory.mktemp("db") / "pmim.duckdb", frames)


METHODS = ["unit_sums", "survival_counts", "attack_strata", "side_attack_strata", "matchup_cells", "game_cells",
           "army_rosters", "game_counts", "round_scores", "game_winners", "unit_game_sums", "game_lineups",
           "army_contents"]


def same(a: pl.DataFrame, b: pl.DataFrame) -> None:
    assert a.columns == b.columns
    a, b = a.sort(a.columns, nulls_last=True), b.sort(b.columns, nulls_last=True)
    assert_frame_equal(a, b, check_dtypes=False, rel_tol=1e-9)


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("rules_ids,source", [(None, None), (("v3",), None), (("v3", "v3-llaser-rpt4"), "engine"),
                                              (None, "manual")])
def test_sql_and_polars_give_the_same_frames(frames: Frames, db: Path, method: str, rules_ids, source) -> None:
    expected = getattr(FrameData(frames, rules_ids, source), method)()
    got = getattr(DuckDBData(db, rules_ids, source), method)()
    same(got, expected)
    if rules_ids is None and source is None:
        assert expected.height > 0


@pytest.mark.parametrize("rules_ids,source", [(None, None), (("v3",), "engine"), (None, "manual")])
def test_luck_sums_in_sql_and_polars_agree(frames: Frames, db: Path, rules_ids, source) -> None:
    expected_data, got_data = FrameData(frames, rules_ids, source), DuckDBData(db, rules_ids, source)
    ru, rw = expected_data.rules_tables()
    expected, got = expected_data.side_luck_sums(ru, rw), got_data.side_luck_sums(*got_data.rules_tables())
    same(got, expected)
    assert expected.height > 0 or source == "manual"


def test_by_loadout_and_provenance_agree(frames: Frames, db: Path) -> None:
    same(DuckDBData(db).unit_sums(by_loadout=True), FrameData(frames).unit_sums(by_loadout=True))
    same(DuckDBData(db).unit_sums(count_games=False), FrameData(frames).unit_sums(count_games=False))
    same(DuckDBData(db).survival_counts(by_loadout=True), FrameData(frames).survival_counts(by_loadout=True))
    a, b = DuckDBData(db, ["v3"]).provenance(), FrameData(frames, ["v3"]).provenance()
    assert (a.games, a.games_by_rules, a.content_hash) == (b.games, b.games_by_rules, b.content_hash)
    assert a.games == 14 and len(a.content_hash) == 64


def test_a_table_read_through_the_loader(db: Path) -> None:
    t = unit_table(DuckDBData(db, ["v3"], "engine").unit_sums())
    tw = t.filter(pl.col("code") == "TW").row(0, named=True)
    assert tw["kills"] > 0 and tw["vp_share"] > 0


def test_rules_tables_fall_back_to_the_catalogue(db: Path) -> None:
    units, weapons = DuckDBData(db).rules_tables()
    assert set(units["rules_id"]) == {"v3", "v3-llaser-rpt4"}
    assert weapons.filter((pl.col("rules_id") == "v3-llaser-rpt4") & (pl.col("code") == "LL"))["rpt"].item() == 4


def test_a_missing_database_is_one_clear_sentence(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match=r"no database at .*make run.*pmim ingest"):
        DuckDBData(tmp_path / "nope.duckdb")


def test_a_file_that_is_not_a_pmim_database(tmp_path: Path) -> None:
    path = tmp_path / "other.duckdb"
    duckdb.connect(str(path)).close()
    with pytest.raises(StoreError, match="schema version 0.*pmim db migrate"):
        DuckDBData(path).game_counts()


def test_default_path_follows_the_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("PMIM_DB", str(tmp_path / "x.duckdb"))
    assert default_db_path() == tmp_path / "x.duckdb"
    monkeypatch.delenv("PMIM_DB")
    assert default_db_path().name == "pmim.duckdb"


def test_frame_schemas_match_the_migration(db: Path) -> None:
    from pmim_analytics.analytics.frames import SCHEMAS
    from pmim_analytics.store.readers import query

    for table, schema in SCHEMAS.items():
        got = dict(query(db, f"SELECT * FROM {table} LIMIT 0").schema)
        got.pop("ingested_at", None)  # bookkeeping, not analysed
        assert got == schema, table


def test_a_session_shares_one_connection_and_closes_it(frames: Frames, db: Path) -> None:
    data = DuckDBData(db, ["v3"])
    with data.session():
        inside = data.matchup_cells()
        with data.session():  # nested sessions reuse the outer connection
            again = data.game_counts()
    assert data._con is None
    same(inside, FrameData(frames, ["v3"]).matchup_cells())
    same(again, data.game_counts())
