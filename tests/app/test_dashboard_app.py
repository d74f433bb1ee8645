"""The dashboard's pages under Streamlit's AppTest: every page on a small demo database and on
an empty one, the filters, the replay slider, logging a match, a small simulation."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from pmim_analytics.store.info import db_info

APP = Path(__file__).resolve().parents[2] / "app" / "streamlit_app.py"
PAGES = ("overview", "compositions", "rules_ab", "units", "weapons", "whatif", "replay", "log_match", "simulate",
         "export")
#: Pages that draw at least one chart when there are games.
CHART_PAGES = {"overview", "compositions", "rules_ab", "units", "weapons", "replay"}


def open_page(page: str, db: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> AppTest:
    monkeypatch.setenv("PMIM_DB", str(db))
    monkeypatch.setenv("PMIM_LOG_DIR", str(tmp_path / "logs"))
    monkeypatch.setenv("PMIM_SIM_DIR", str(tmp_path / "sims"))
    at = AppTest.from_file(str(APP), default_timeout=600)
    if page != "overview":
        at.switch_page(f"views/{page}.py")
    return at.run()


def problems(at: AppTest) -> list[str]:
    return [e.value for e in at.exception] + [e.value for e in at.error]


@pytest.fixture
def writable_db(small_demo_db: Path, tmp_path: Path) -> Path:
    db = tmp_path / "copy.duckdb"
    shutil.copy(small_demo_db, db)
    return db


@pytest.mark.parametrize("page", PAGES)
def test_every_page_runs_on_the_demo_database(page: str, small_demo_db: Path, monkeypatch: pytest.MonkeyPatch,
                                              tmp_path: Path) -> None:
    at = open_page(page, small_demo_db, monkeypatch, tmp_path)
    assert problems(at) == []
    assert at.title[0].value
    if page in CHART_PAGES:
        assert at.get("plotly_chart"), f"{page} shows no chart"
    assert any("40 games" in c.value for c in at.sidebar.caption)
    if page == "weapons":  # the dice tests' family, under the weapon table
        assert any("rows tested, p per row" in c.value for c in at.caption)


@pytest.mark.parametrize("page", PAGES)
def test_every_page_runs_on_an_empty_database(page: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    at = open_page(page, tmp_path / "nothing-yet.duckdb", monkeypatch, tmp_path)
    assert problems(at) == []
    text = " ".join(m.value for m in at.markdown) + " ".join(i.value for i in at.info)
    if page not in ("log_match", "simulate", "whatif"):
        assert "No games in the database" in text and "make run" in text and "pmim ingest" in text


def test_filters_narrow_the_tables(small_demo_db: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    at = open_page("compositions", small_demo_db, monkeypatch, tmp_path)
    numbers = at.dataframe[0].value
    # one bot level (tactician, the demo's): v2 has table play only, so it is left out, and the sidebar says so
    assert set(numbers["Rules"]) == {"v3", "v3-llaser-rpt4"}
    assert any("under v2: left out" in w.value for w in at.sidebar.caption)
    at.sidebar.selectbox(key="level_filter").set_value("human").run()
    assert problems(at) == []
    assert set(at.dataframe[0].value["Source"]) == {"manual"}  # table play: the logged games alone
    at.sidebar.selectbox(key="level_filter").set_value("tactician").run()
    at.sidebar.multiselect(key="rules_filter").set_value(["v3-llaser-rpt4"]).run()
    assert problems(at) == []
    assert set(at.dataframe[0].value["Rules"]) == {"v3-llaser-rpt4"}
    at.sidebar.multiselect(key="rules_filter").set_value([]).run()
    assert "filters select no games" in at.warning[0].value
    at.sidebar.multiselect(key="rules_filter").set_value(["v3"]).run()
    at.sidebar.selectbox(key="composition_filter").set_value("Fast GEV").run()
    assert at.main.multiselect[0].value == ["Fast GEV"]


def test_replay_slider_and_step_buttons(small_demo_db: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    at = open_page("replay", small_demo_db, monkeypatch, tmp_path)
    at.sidebar.radio(key="source_filter").set_value("engine").run()
    assert at.subheader[0].value.startswith("Step 1 of ") and "Deployment" in at.subheader[0].value
    at.slider(key="replay_step").set_value(6).run()
    assert at.subheader[0].value.startswith("Step 6 of ")
    at.button(key="replay_next").click().run()
    assert at.subheader[0].value.startswith("Step 7 of ")
    at.button(key="replay_prev").click().run()
    at.button(key="replay_prev").click().run()
    assert at.subheader[0].value.startswith("Step 5 of ")
    at.selectbox(key="replay_round").set_value(2).run()
    assert "Round 2" in at.subheader[0].value
    listed = [m.value for m in at.markdown if "▶ **" in m.value][0].split("  \n")
    current = [line for line in listed if line.startswith("▶ ")]
    assert current and all(line.endswith("**") for line in current)  # the current step's events, in full
    assert problems(at) == []


def test_replay_of_a_summary_log_without_positions(small_demo_db: Path, monkeypatch: pytest.MonkeyPatch,
                                                   tmp_path: Path) -> None:
    at = open_page("replay", small_demo_db, monkeypatch, tmp_path)
    at.sidebar.radio(key="source_filter").set_value("manual").run()
    playtest2 = next(o for o in at.selectbox(key="replay_game").options if "Mjolnir and Paladin" in o)
    gid = playtest2.rsplit(" · ", 1)[1]
    at.selectbox(key="replay_game").set_value(gid).run()
    assert problems(at) == []
    assert any("without positions" in i.value for i in at.info)
    at.button(key="replay_next").click().run()
    assert at.subheader[0].value == "Step 2 of 2: Game over"


def test_log_a_match_shows_errors_by_line_then_saves(writable_db: Path, monkeypatch: pytest.MonkeyPatch,
                                                     tmp_path: Path) -> None:
    before = db_info(writable_db).games
    at = open_page("log_match", writable_db, monkeypatch, tmp_path)
    bad = "rules: v3\nblue army: v3-balanced\nred army: v3-tank-heavy\n\nR:ZZ9 destroyed\nresult: blue vp 11-7\n"
    at.text_area(key="pasted").input(bad).run()
    assert problems(at)[:1] == ["1 problem to fix before saving:"]
    assert any("**line 5, column 1**" in m.value and "R:ZZ9" in m.value for m in at.markdown)
    assert not [b for b in at.button if b.key == "save_paste"]
    at.text_area(key="pasted").input(bad.replace("R:ZZ9", "R:TY1")).run()
    assert at.success and problems(at) == []
    at.button(key="save_paste").click().run()
    assert any("Saved" in s.value for s in at.success)
    assert db_info(writable_db).games == before + 1
    assert len(list((tmp_path / "logs").glob("*.pmimlog"))) == 1


def test_log_a_match_takes_a_log_with_optional_rule_lines(writable_db: Path, monkeypatch: pytest.MonkeyPatch,
                                                          tmp_path: Path) -> None:
    from pmim_analytics.botlab.ladder import sample_armies
    from pmim_analytics.engine.driver import play_game
    from pmim_analytics.engine.spec import GameSpec
    from pmim_analytics.replay.manual import format_log

    armies = dict(sample_armies("v3"))
    spec = GameSpec.create("v3-heat", "take-and-hold", armies["v3-mech-heavy"], armies["v3-tank-heavy"])
    text = next(t for seed in range(20) if " overheat " in (t := format_log(
        play_game(spec, "tactician", "tactician", seed=seed, played="2026-01-01"))))
    before = db_info(writable_db).games
    at = open_page("log_match", writable_db, monkeypatch, tmp_path)
    at.text_area(key="pasted").input(text).run()
    assert at.success and problems(at) == []
    at.button(key="save_paste").click().run()
    assert any("Saved" in s.value for s in at.success)
    assert db_info(writable_db).games == before + 1


def test_log_a_match_summary_form_with_a_built_army(writable_db: Path, monkeypatch: pytest.MonkeyPatch,
                                                    tmp_path: Path) -> None:
    at = open_page("log_match", writable_db, monkeypatch, tmp_path)
    # the form starts empty: nothing to save with one click
    assert not at.success and not [b for b in at.button if b.key == "save_form"]
    assert any(i.value.startswith("Fill in the blue army") for i in at.info)
    at.radio(key="blue_mode").set_value("built here").run()
    # the starter army is far from legal: the page says why, live
    errors = " ".join(problems(at))
    assert "requires exactly" in errors and "Warmechs" in errors
    assert at.metric[0].label == "Points"
    assert not [b for b in at.button if b.key == "save_form"]


def test_summary_form_errors_sit_at_their_fields(writable_db: Path, monkeypatch: pytest.MonkeyPatch,
                                                 tmp_path: Path) -> None:
    before = db_info(writable_db).games
    at = open_page("log_match", writable_db, monkeypatch, tmp_path)
    at.selectbox(key="blue_file").set_value("v3-balanced").run()
    at.selectbox(key="red_file").set_value("v3-tank-heavy").run()
    at.radio(key="winner").set_value("blue").run()
    at.selectbox(key="reason").set_value("vp").run()
    at.number_input(key="blue_vp").set_value(7).run()
    at.number_input(key="red_vp").set_value(11).run()
    errs = [e.value for e in at.error]
    assert errs[0].startswith("**VP**: VP totals '7-11' are inconsistent") and "line" not in errs[0]
    assert errs[1:] == ["1 problem to fix before saving (shown at the fields above)."]
    at.number_input(key="blue_vp").set_value(11).run()
    at.number_input(key="red_vp").set_value(7).run()
    at.text_area(key="destroyed").input("R5 B:GE1\nR2 R:TY1\nR:ZZ9").run()
    errs = [e.value for e in at.error]
    assert errs[0].startswith("**Units destroyed, line 3**: unknown unit 'R:ZZ9'")
    at.number_input(key="rounds").set_value(5).run()
    at.text_area(key="destroyed").input("R7 B:GE1\nR2 R:TY1").run()  # a loss past the rounds played: at its entry
    assert [e.value for e in at.error][:1] == [
        "**Units destroyed, line 1**: 'B:GE1' is in R7, past the 5 rounds given at Rounds played"]
    at.text_area(key="destroyed").input("R5 B:GE1\nR2 R:TY1").run()  # any order
    assert problems(at) == [] and any(s.value.startswith("Valid:") for s in at.success)
    at.button(key="save_form").click().run()
    assert any("Saved" in s.value for s in at.success)
    assert db_info(writable_db).games == before + 1


def test_simulate_a_few_games(writable_db: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    before = db_info(writable_db).games
    at = open_page("simulate", writable_db, monkeypatch, tmp_path)
    at.number_input(key="sim_games").set_value(3).run()
    at.button(key="sim_run").click().run()
    assert problems(at) == []
    assert any("Played 3 games" in s.value for s in at.success)
    assert db_info(writable_db).games == before + 3
    assert sum(int(m.value) for m in at.metric[:3]) == 3  # wins A + wins B + draws


def test_simulate_takes_bot_settings_and_the_first_player(writable_db: Path, monkeypatch: pytest.MonkeyPatch,
                                                          tmp_path: Path) -> None:
    """The page names a bot as the command line does (``search:budget=20,persona=aggressive``):
    the settings a bot has appear when it is chosen, and the games record the full spec."""
    from pmim_analytics.store import read_frame

    at = open_page("simulate", writable_db, monkeypatch, tmp_path)
    assert not any(n.key == "bot_a_budget" for n in at.number_input)  # tactician has no settings
    at.selectbox(key="bot_a").set_value("search").run()
    assert at.number_input(key="bot_a_budget").value == 100  # the default, as on the command line
    at.number_input(key="bot_a_budget").set_value(20).run()
    at.selectbox(key="bot_a_persona").set_value("aggressive").run()
    assert any(c.value == "`search:budget=20,persona=aggressive`" for c in at.caption)
    at.selectbox(key="sim_first").set_value("random").run()
    at.number_input(key="sim_games").set_value(2).run()
    at.button(key="sim_run").click().run()
    assert problems(at) == []
    rows = read_frame("SELECT s.side, s.bot, e.reason FROM sides s JOIN events e USING (game_id) "
                      "WHERE e.type = 'first_player' ORDER BY s.game_id, s.side", db=writable_db).rows()
    # army A (search) is blue in game 0 and red in game 1; both games drew the first player
    assert sorted((bot, reason) for _, bot, reason in rows) == (
        [("search:budget=20,persona=aggressive", "random")] * 2 + [("tactician", "random")] * 2)


def test_export_offers_the_report_tables_and_charts(small_demo_db: Path, monkeypatch: pytest.MonkeyPatch,
                                                    tmp_path: Path) -> None:
    at = open_page("export", small_demo_db, monkeypatch, tmp_path)
    at.toggle(key="export_go").set_value(True).run()
    assert problems(at) == []
    assert "compositions" in at.selectbox(key="export_table").options
    assert any(o.startswith("matchups_") for o in at.selectbox(key="export_chart").options)


def test_a_page_waits_for_an_ingest_holding_the_database(writable_db: Path, monkeypatch: pytest.MonkeyPatch,
                                                         tmp_path: Path) -> None:
    from tests.support.lockholder import hold, release_on_wait

    holder = hold("raw", writable_db)  # another program writing the file
    try:
        waits = release_on_wait(monkeypatch, holder)  # the page's wait releases it
        at = open_page("units", writable_db, monkeypatch, tmp_path)
        assert problems(at) == [] and at.get("plotly_chart")
        assert waits and "locked" in waits[0]  # it did wait for the writer
    finally:
        holder.finish()
