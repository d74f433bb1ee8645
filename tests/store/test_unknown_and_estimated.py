"""Unknown stays unknown (summary logs store NULL, reports say "not recorded") and estimated
facts are flagged and left out of VP margins unless asked for; on real DuckDB files."""

from __future__ import annotations

from pathlib import Path

import duckdb
import polars as pl
import pytest
from typer.testing import CliRunner

from pmim_analytics.analytics import tables
from pmim_analytics.analytics.dataset import FrameData
from pmim_analytics.cli import app
from pmim_analytics.replay.manual import parse_log, read_log
from pmim_analytics.report.sections import UNIT_COLS
from pmim_analytics.rules.catalogue import REPO_ROOT
from pmim_analytics.store import ingest_paths, open_writer, read_frame
from pmim_analytics.store.check import check_db
from pmim_analytics.store.connection import forget_migrated
from pmim_analytics.store.readers import DuckDBData
from tests.support.gamebuilder import GameBuilder, frames_of

PLAYTESTS = REPO_ROOT / "data" / "playtests"
COMBAT = ("attacks", "hits", "damage_dealt", "overkill", "damage_taken", "kills")
HEADER = ("rules: v3\nblue army: v3-mech-heavy\nred army: v3-tank-heavy\n")


def _cell(col: str, row: dict) -> str:
    return next(c for c in UNIT_COLS if c.header == col).cell(row)


@pytest.fixture
def playtest_db(tmp_path: Path) -> Path:
    db = tmp_path / "pmim.duckdb"
    result = ingest_paths([PLAYTESTS / "playtest-1.pmimlog", PLAYTESTS / "playtest-2.pmimlog"], db)
    assert result.loaded == 2 and not result.rejected, result
    return db


# -- the logs ------------------------------------------------------------------------------
def test_the_playtest_logs_say_what_they_do_not_know() -> None:
    one, two = read_log(PLAYTESTS / "playtest-1.pmimlog"), read_log(PLAYTESTS / "playtest-2.pmimlog")
    assert one.header.not_recorded == ("combat", "losses") and one.header.estimated == ("vp",)
    assert two.header.not_recorded == ("combat", "losses") and two.header.estimated == ()
    end = one.events[-1]
    assert (end.winner, end.reason, end.blue_vp, end.red_vp) == ("blue", "vp", 11, 7)  # kept, flagged


@pytest.mark.parametrize(("body", "expected"), [
    ("result: blue manual\n", ("combat", "losses")),                        # a summary log
    ("R:BA1 destroyed\nresult: blue manual\n", ("combat", "losses")),       # still one
    ("not recorded: combat\nR:BA1 destroyed\nresult: blue manual\n", ("combat",)),  # the losses are all listed
    ("not recorded: nothing\nresult: blue manual\n", ()),
    ("R0\nB:GR1 deploy 0812\nresult: blue manual\n", ()),                   # a play log
    ("not recorded: combat, losses\nR0\nB:GR1 deploy 0812\nresult: blue manual\n", ("combat", "losses")),
])
def test_what_a_log_did_not_record(body: str, expected: tuple[str, ...]) -> None:
    game, errors = parse_log(HEADER + body, "t.pmimlog", strict=False)
    assert not errors, [e.render() for e in errors]
    assert game.header.not_recorded == expected


BAD_TAGS = [
    ("not recorded: damage\n", "damage", "takes 'combat' or 'losses' or 'nothing'"),
    ("estimated: score\n", "score", "takes 'vp'"),
    ("estimated: vp\n", "vp", "no final VP to mark as estimated"),
]


@pytest.mark.parametrize(("tags", "token", "fragment"), BAD_TAGS)
def test_bad_not_recorded_and_estimated_tags_point_at_the_word(tags: str, token: str, fragment: str) -> None:
    _, errors = parse_log(HEADER + tags + "result: blue manual\n", "t.pmimlog", strict=False)
    assert errors and fragment in errors[0].message and repr(token) in errors[0].message
    assert (errors[0].where.line, errors[0].where.column) == (4, tags.index(token) + 1)


def test_an_unrecorded_header_changes_no_existing_replay_id() -> None:
    # headers without the new fields dump as before: the golden replays keep their bytes and ids
    game, _ = parse_log(HEADER + "R0\nB:GR1 deploy 0812\nresult: blue manual\n", "t.pmimlog")
    dumped = game.header.model_dump(mode="json")
    assert "not_recorded" not in dumped and "estimated" not in dumped


# -- the store -------------------------------------------------------------------------------
def test_summary_logs_store_null_not_zero(playtest_db: Path) -> None:
    games = read_frame("SELECT game_id, not_recorded, vp_estimated, blue_vp, red_vp FROM games "
                       "ORDER BY blue_vp NULLS FIRST", db=playtest_db)
    assert games["not_recorded"].to_list() == ["combat losses", "combat losses"]
    assert games.select("vp_estimated", "blue_vp", "red_vp").rows() == [(False, None, None), (True, 11, 7)]
    stats = read_frame(f"SELECT {', '.join(COMBAT)}, destroyed FROM unit_game_stats", db=playtest_db)
    assert stats.height == 33 + 28  # both matches' units: nothing recorded about any of them
    assert all(stats[c].null_count() == stats.height for c in (*COMBAT, "destroyed"))
    assert check_db(playtest_db).ok


def test_the_units_report_says_not_recorded_instead_of_100_percent(playtest_db: Path) -> None:
    report = tables.unit_report(DuckDBData(playtest_db))
    tw = report.filter(pl.col("code") == "TW").row(0, named=True)  # the designer's Timber Wolf, both matches
    assert (tw["units"], tw["fate_not_recorded"], tw["combat_not_recorded"]) == (3, 3, 3)
    assert tw["survival_rate"] is None and tw["damage_per_pt"] is None and tw["kills"] is None
    assert _cell("survives", tw) == "not recorded" and _cell("damage / pt", tw) == "not recorded"
    assert _cell("left out (not recorded)", tw) == "3 combat, 3 fate"
    assert tables.survival_report(DuckDBData(playtest_db)).height == 0  # no curve from unknown fates


def test_known_and_unknown_fates_mix_by_hand(tmp_path: Path) -> None:
    """Three Basset games: destroyed in one, survived in one, not recorded in the third."""
    army = [("BA1", "BA", ("MAC", "MAC", "LL")), ("TY1", "TY", ("HAC",))]
    games = []
    for gid, lost, unknown in (("g1", True, ()), ("g2", False, ()), ("g3", False, ("combat", "losses"))):
        g = GameBuilder(gid, source="manual", not_recorded=unknown).side("blue", "A", army).side("red", "B", army)
        if not unknown:
            g.attack(1, "R:TY1", "HAC", "B:TY1", (6, 6))
        if lost:
            g.destroy(2, "B:BA1", "R:TY1")
        games.append(g.end("red", "manual", 3))
    data = FrameData(frames_of(games))
    ba = tables.unit_report(data).filter(pl.col("code") == "BA").row(0, named=True)
    # 6 unit-games (3 games x 2 sides); the 2 of g3 are left out: 1 destroyed of 4 known
    assert (ba["units"], ba["fate_not_recorded"], ba["combat_not_recorded"]) == (6, 2, 2)
    assert ba["survival_rate"] == pytest.approx(3 / 4)
    assert _cell("left out (not recorded)", ba) == "2 combat, 2 fate"
    ty = tables.unit_report(data).filter(pl.col("code") == "TY").row(0, named=True)
    # 4 Tyrant unit-games recorded their combat (g1, g2); red's in g1 made the only kill
    assert ty["combat_not_recorded"] == 2 and ty["kills"] == pytest.approx(1 / 4)


# -- estimated VP and margins ----------------------------------------------------------------------
def _margin_games() -> list[GameBuilder]:
    army = [("TW1", "TW", ("GG", "ML"))]
    a = GameBuilder("m1").side("blue", "A", army).side("red", "B", army).final_vp(11, 5).end("blue", "vp", 6)
    b = GameBuilder("m2", vp_estimated=True).side("blue", "A", army).side("red", "B", army)
    return [a, b.final_vp(11, 1).end("blue", "vp", 6)]


@pytest.mark.parametrize("include", [False, True])
def test_estimated_vp_are_left_out_of_margins_unless_asked(tmp_path: Path, include: bool) -> None:
    from tests.support.dbhelper import create_db
    frames = frames_of(_margin_games())
    db = create_db(tmp_path / "m.duckdb", frames)
    for data in (FrameData(frames, include_estimated=include), DuckDBData(db, include_estimated=include)):
        comp = tables.composition_report(data).filter(pl.col("composition") == "A").row(0, named=True)
        assert comp["wins"] == 2  # the winner is reported, not estimated: both games count
        assert comp["vp_margin"] == pytest.approx(8.0 if include else 6.0)  # (6 + 10) / 2 or 6 alone
        assert data.estimated_vp_games() == 1
        cells = data.game_cells()
        assert int(cells["margin_n"].sum()) == (2 if include else 1) and "est_margin_n" not in cells.columns


def test_the_cli_says_not_recorded_and_how_many_estimated_games_it_left_out(playtest_db: Path) -> None:
    runner = CliRunner()
    r = runner.invoke(app, ["report", "units", "--db", str(playtest_db)], env={"COLUMNS": "250"})
    assert r.exit_code == 0, r.output
    assert "not recorded" in r.output and "100%" not in r.output
    r = runner.invoke(app, ["report", "compositions", "--db", str(playtest_db), "--min-games", "1"])
    assert r.exit_code == 0 and "1 game whose final VP are estimated left out of VP margins" in r.output
    r = runner.invoke(app, ["report", "compositions", "--db", str(playtest_db), "--min-games", "1",
                            "--include-estimated"])
    assert r.exit_code == 0 and "VP margins include 1 game whose final VP are estimated" in r.output


# -- the migration ----------------------------------------------------------------------------------
def test_migration_4_backfills_summary_logs_stored_as_zeros(tmp_path: Path) -> None:
    db = tmp_path / "old.duckdb"
    ingest_paths([PLAYTESTS / "playtest-2.pmimlog", PLAYTESTS / "sample-detailed-v3.pmimlog"], db)
    expected = read_frame("SELECT * FROM unit_game_stats ORDER BY game_id, unit_id", db=db)
    with duckdb.connect(str(db)) as con:  # as schema 3 stored them: 0 damage, "survived", nothing flagged
        con.execute("UPDATE games SET not_recorded = NULL, vp_estimated = false")
        con.execute("UPDATE unit_game_stats SET attacks = coalesce(attacks, 0), hits = coalesce(hits, 0), "
                    "damage_dealt = coalesce(damage_dealt, 0), overkill = coalesce(overkill, 0), "
                    "damage_taken = coalesce(damage_taken, 0), kills = coalesce(kills, 0), "
                    "destroyed = coalesce(destroyed, round_destroyed IS NOT NULL)")
        for table, cols in (("rollup_unit_sums", ("combat_n", "fate_n")),
                            ("rollup_matchup_cells", ("est_margin_n", "est_margin_sum", "est_margin_sq")),
                            ("rollup_game_cells", ("est_margin_n", "est_margin_sum", "est_margin_sq"))):
            for c in cols:
                con.execute(f"ALTER TABLE {table} DROP COLUMN {c}")
        con.execute("DELETE FROM schema_version WHERE version >= 4")
    forget_migrated()
    with open_writer(db):
        pass
    assert read_frame("SELECT * FROM unit_game_stats ORDER BY game_id, unit_id", db=db).equals(expected)
    flags = read_frame("SELECT source, n_events, not_recorded FROM games ORDER BY n_events", db=db).rows()
    assert flags == [("manual", 2, "combat losses"), ("manual", 87, None)]  # the detailed log was played
    assert check_db(db).ok


def bad_logs() -> dict[str, str]:
    """The logs this file writes to be refused (for test_reader_engine_differential.py)."""
    return {f"tag: {tags.strip()}": HEADER + tags + "result: blue manual\n" for tags, _, _ in BAD_TAGS}
