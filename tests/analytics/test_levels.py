"""One bot level per figure: canonical level keys, the default choice, the level filter in SQL
and Polars, and the CLI and export keeping to one level."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest
from polars.testing import assert_frame_equal
from typer.testing import CliRunner

from pmim_analytics.analytics.dataset import FrameData
from pmim_analytics.analytics.frames import Frames
from pmim_analytics.analytics.levels import (
    HUMAN,
    MIXED,
    BotLevelError,
    choose_bot_level,
    game_level,
    level_strength,
)
from pmim_analytics.cli import app
from pmim_analytics.engine.bots.spec import canonical_bot_key
from pmim_analytics.store.readers import DuckDBData
from tests.support.dbhelper import create_db
from tests.support.gamebuilder import GameBuilder, frames_of

HEAVY = [("TW1", "TW", ("GG", "ML"))]
LIGHT = [("IN1", "IN", ("LL",)), ("IN2", "IN", ("LAC",))]
MID = [("TY1", "TY", ("HAC",))]


def test_specs_that_play_the_same_games_share_a_key() -> None:
    assert canonical_bot_key("search:budget=0") == canonical_bot_key("search:budget=0,persona=balanced")
    assert canonical_bot_key("search:budget=0") == "search:budget=0"
    assert canonical_bot_key("search:budget=100") == canonical_bot_key("search") == "search"  # the default budget
    assert canonical_bot_key("search:persona=aggressive,budget=800") == "search:budget=800,persona=aggressive"
    assert canonical_bot_key("tactician") == "tactician"
    assert canonical_bot_key("someoldbot:z=1,a=2") == "someoldbot:a=2,z=1"  # unknown bot: settings sorted
    assert game_level("search:budget=0", "search:budget=0,persona=balanced") == "search:budget=0"
    assert game_level("greedy", "tactician") == MIXED
    assert game_level(None, None) == HUMAN


def test_levels_are_ordered_by_design() -> None:
    keys = ["search", "random", "search:budget=0", "tactician", "greedy", "search:budget=800"]
    assert sorted(keys, key=level_strength) == ["random", "greedy", "tactician", "search:budget=0", "search",
                                                "search:budget=800"]


def _levels(rows: list[tuple[str, str, int]]) -> pl.DataFrame:
    return pl.DataFrame([{"rules_id": r, "source": "engine", "level": lv, "games": n} for r, lv, n in rows])


def test_the_default_is_the_strongest_level_every_rules_id_has() -> None:
    lv = _levels([("v3", "random", 500), ("v3", "tactician", 400), ("v3", "search", 200), ("v3x", "search", 200),
                  ("v3x", "tactician", 5)])
    c = choose_bot_level(lv)
    assert (c.key, c.level, c.common) == ("search", "search:budget=100", True)
    assert c.games == {"v3": 200, "v3x": 200} and "every rules id" in c.reason
    # tactician is stronger than random but v3x has only 5 tactician games: asked for, it still comes
    c = choose_bot_level(lv, "tactician")
    assert c.requested and c.games == {"v3": 400, "v3x": 5}
    # with v3 alone, the strongest level it has
    assert choose_bot_level(lv, rules_ids=["v3"]).key == "search"
    # no common level: the one covering most, and the rules ids it misses
    lv2 = _levels([("v3", "tactician", 400), ("v3x", "search", 200)])
    c = choose_bot_level(lv2)
    assert c.missing and not c.common
    with pytest.raises(BotLevelError, match="no games at bot level 'greedy'"):
        choose_bot_level(lv, "greedy")
    with pytest.raises(BotLevelError, match="different bots"):
        choose_bot_level(_levels([("v3", MIXED, 10)]))
    # table play is chosen only when no bot level has games
    assert choose_bot_level(_levels([("v3", HUMAN, 30), ("v3", "random", 12)])).key == "random"
    assert choose_bot_level(_levels([("v3", HUMAN, 3)])).key == HUMAN


def level_games() -> list[GameBuilder]:
    """v3 at four levels and the L. Laser variant at one. Heavy beats Light under the weak
    levels (4 of 4) and loses to it under search (1 of 4); two search spellings play one level."""
    games = []
    both = ("search:budget=0", "search:budget=0,persona=balanced")
    plan = [("v3", "random", 4), ("v3", "greedy", 4), ("v3", "tactician", 4), ("v3", both[0], 1), ("v3", both[1], 0),
            ("v3-llaser-rpt4", both[0], 1), ("v3-llaser-rpt4", both[1], 1)]
    for rules_id, bot, heavy_wins in plan:
        for i in range(4):
            won = i < heavy_wins
            g = GameBuilder(f"{rules_id}-{bot}-{i}", rules_id=rules_id).side("blue", "Heavy", HEAVY, bot=bot)
            g.side("red", "Light", LIGHT, bot=bot).attack(1, "B:TW1", "GG", "R:IN1", (6, 6))
            games.append(g.final_vp(*((11, 6) if won else (6, 11))).end("blue" if won else "red", "vp", 8))
        for i in range(2):  # a third list, so the meta has a mix to find
            g = GameBuilder(f"{rules_id}-{bot}-m{i}", rules_id=rules_id).side("blue", "Mid", MID, bot=bot)
            g.side("red", "Light", LIGHT, bot=bot)
            games.append(g.final_vp(8, 8).end(None, "rounds", 8))
    mixed = GameBuilder("ladder-1").side("blue", "Heavy", HEAVY, bot="greedy").side("red", "Light", LIGHT,
                                                                                    bot="tactician")
    games.append(mixed.final_vp(11, 6).end("blue", "vp", 8))
    return games


@pytest.fixture(scope="module")
def frames() -> Frames:
    return frames_of(level_games())


@pytest.fixture(scope="module")
def db(frames: Frames, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return create_db(tmp_path_factory.mktemp("levels") / "pmim.duckdb", frames)


def test_games_per_level_in_sql_and_polars(frames: Frames, db: Path) -> None:
    a = DuckDBData(db).bot_levels().sort("rules_id", "level")
    b = FrameData(frames).bot_levels().sort("rules_id", "level")
    assert_frame_equal(a, b)
    per = {(r, lv): n for r, _, lv, n in a.iter_rows()}
    assert per[("v3", "search:budget=0")] == 12  # both spellings: one level
    assert per[("v3", MIXED)] == 1 and per[("v3-llaser-rpt4", "search:budget=0")] == 12


# army_rosters is left out: what an army fields is the same at every level, so the database keeps
# every roster whatever the level (a superset, checked below); reports join it to the level's games.
METHODS = ["unit_sums", "survival_counts", "attack_strata", "side_attack_strata", "matchup_cells", "game_cells",
           "game_counts", "round_scores", "game_winners", "unit_game_sums", "game_lineups", "army_contents"]


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("level", ["tactician", "search:budget=0"])
def test_sql_and_polars_keep_the_same_level(frames: Frames, db: Path, method: str, level: str) -> None:
    expected = getattr(FrameData(frames, bot_level=level), method)()
    got = getattr(DuckDBData(db).at_level(level), method)()
    assert got.columns == expected.columns
    assert_frame_equal(got.sort(got.columns, nulls_last=True), expected.sort(expected.columns, nulls_last=True),
                       check_dtypes=False, rel_tol=1e-9)


def test_rosters_are_the_same_at_every_level(frames: Frames, db: Path) -> None:
    at_level = FrameData(frames, bot_level="tactician").army_rosters()
    every = DuckDBData(db).at_level("tactician").army_rosters()
    assert at_level.height and at_level.join(every, on=at_level.columns, how="anti").height == 0


def test_a_level_holds_only_its_games(db: Path) -> None:
    data = DuckDBData(db, ["v3"]).at_level("search:budget=0")
    prov = data.provenance()
    assert prov.games == 12 and prov.bot_level == "search:budget=0"
    assert "bot level search:budget=0, skill 1" in prov.caption()
    assert data.game_counts()["n"].sum() == 12
    assert set(data.game_lineups()["blue_bot"].to_list()) == {"search:budget=0", "search:budget=0,persona=balanced"}


runner = CliRunner()


def run(*args: str) -> tuple[int, str]:
    r = runner.invoke(app, list(args), env={"COLUMNS": "200"})
    return r.exit_code, r.output


def _mix(output: str) -> dict[str, float]:
    rows = json.loads(output)
    return {r["composition"]: r["weight"] for r in rows["meta_v3_engine"]}


def test_meta_differs_by_level(db: Path) -> None:
    code, tac = run("report", "meta", "--rules", "v3", "--bot", "tactician", "--min-games", "1", "--db", str(db),
                    "--format", "json")
    assert code == 0, tac
    code, srch = run("report", "meta", "--rules", "v3", "--bot", "search:budget=0,persona=balanced", "--min-games",
                     "1", "--db", str(db), "--format", "json")
    assert code == 0, srch
    tac_json, srch_json = tac[tac.index("{"):], srch[srch.index("{"):]
    assert _mix(tac_json) != _mix(srch_json)


def test_every_report_names_its_level(db: Path) -> None:
    code, output = run("report", "compositions", "--min-games", "1", "--db", str(db))
    assert code == 0, output
    assert "Bot level: search:budget=0 (the strongest level with at least 10 games under every rules id" in output
    code, output = run("report", "units", "--db", str(db))
    # 12 games a rules id; the ladder game is mixed
    assert code == 0 and "bot level search:budget=0, skill 1; 24 games" in output
    code, output = run("report", "units", "--bot", "greedy", "--rules", "v3-llaser-rpt4", "--db", str(db))
    assert code == 2 and "no games at bot level 'greedy'" in output and "search:budget=0 (12)" in output


def test_export_draws_every_rules_id_at_one_level(db: Path, tmp_path: Path) -> None:
    code, output = run("export", "--rules", "v3,v3-llaser-rpt4", "--out", str(tmp_path / "n"), "--no-png",
                       "--db", str(db))
    assert code == 0, output
    comps = pl.read_csv(tmp_path / "n" / "tables" / "compositions.csv")
    heavy = comps.filter((pl.col("composition") == "Heavy") & (pl.col("rules_id") == "v3")).row(0, named=True)
    assert heavy["games"] == 8 and heavy["wins"] == 1  # search games only, not the 12 weaker-level wins
    fig = (tmp_path / "n" / "figures" / "win_rates.html").read_text()
    assert "Source: bot level search:budget=0, skill 1; 24 games (v3: 12, v3-llaser-rpt4: 12)" in fig
    assert '"text":["12 games"]' in fig  # Light's bar (Heavy's 8 games are under the figure's minimum)
    code, output = run("export", "--rules", "v3,v3-llaser-rpt4", "--out", str(tmp_path / "t"), "--no-png",
                       "--bot", "tactician", "--db", str(db))
    assert code == 0, output
    fig = (tmp_path / "t" / "figures" / "win_rates.html").read_text()
    assert "No bars: v3-llaser-rpt4 has no games at bot level tactician" in fig


def test_robustness_counts_two_spellings_of_one_level_once(frames: Frames) -> None:
    from pmim_analytics.analytics.robustness import same_bot_cells

    cells = same_bot_cells(FrameData(frames).matchup_cells())
    assert set(cells["bot"].to_list()) == {"random", "greedy", "tactician", "search:budget=0"}
    search = cells.filter((pl.col("bot") == "search:budget=0") & (pl.col("rules_id") == "v3")
                          & (pl.col("composition") == "Heavy"))
    assert search["games"].sum() == 8  # both spellings, one level
    assert same_bot_cells(FrameData(frames, ["nothing"]).matchup_cells()).height == 0
