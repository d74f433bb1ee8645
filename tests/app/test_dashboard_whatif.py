"""The What-if page under AppTest: an edit changes the dice maths at once, a bad value is refused
at its field, the variant is saved into a copy of data/, simulated and its paired impact shown."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from pmim_analytics.rules import load_rules
from pmim_analytics.rules.catalogue import clear_caches
from pmim_analytics.store.info import db_info

APP = Path(__file__).resolve().parents[2] / "app" / "streamlit_app.py"


@pytest.fixture
def whatif(small_demo_db: Path, data_copy: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> AppTest:
    db = tmp_path / "copy.duckdb"
    shutil.copy(small_demo_db, db)
    monkeypatch.setenv("PMIM_DB", str(db))
    monkeypatch.setenv("PMIM_SIM_DIR", str(tmp_path / "sims"))
    at = AppTest.from_file(str(APP), default_timeout=600)
    at.switch_page("views/whatif.py").run()
    assert not at.exception
    return at


def errors(at: AppTest) -> list[str]:
    return [e.value for e in at.exception] + [e.value for e in at.error]


def test_edit_save_simulate_and_read_the_paired_impact(whatif: AppTest, data_copy: Path) -> None:
    at = whatif
    at.radio(key="wi_table").set_value("weapons").run()
    at.selectbox(key="wi_pick_weapons").set_value("LL").run()
    at.number_input(key="wi_weapons_LL_rpt").set_value(0).run()
    assert any("L. Laser RPT" in e and "greater than or equal to 1" in e for e in errors(at))
    at.number_input(key="wi_weapons_LL_rpt").set_value(4).run()
    assert errors(at) == []
    # nothing to play before the edit is saved: no variant picked for it, no button
    assert not [b for b in at.button if b.key == "wi_run"]
    assert not [b for b in at.selectbox if b.key == "wi_sim_variant"]
    assert any("Save the edits as a variant" in i.value for i in at.info)
    table = [d for d in at.dataframe if "attacks to destroy v3" in d.value.columns][0].value
    row = table[table["target"] == "Infantry"].iloc[0]
    assert (row["attacks to destroy v3"], row["attacks to destroy edit"]) == ("36/13", "18/13")
    import json

    curves = json.loads(at.get("plotly_chart")[0].proto.spec)
    assert {t["name"] for t in curves["data"]} == {"v3", "the edit"}  # the kill curves, base and edit
    at.text_input(key="wi_id").input("v3-llaser-rpt4").run()
    at.text_input(key="wi_name").input("again").run()
    at.button(key="wi_save").click().run()
    assert any("Variant id" in e and "already" in e for e in errors(at))
    at.text_input(key="wi_id").input("v3-ll-rpt4-test").run()
    at.text_input(key="wi_name").input("v3 with L. Laser RPT 4 (test)").run()
    at.button(key="wi_save").click().run()
    assert (data_copy / "rules" / "variants" / "v3-ll-rpt4-test.yaml").is_file()
    clear_caches()
    assert next(w for w in load_rules("v3-ll-rpt4-test").weapons if w.code == "LL").rpt == 4
    assert any("Plays the variant saved from these edits: **v3-ll-rpt4-test**" in c.value for c in at.caption)
    assert at.button(key="wi_run").label == "Play 20 games under v3 and 20 under v3-ll-rpt4-test"
    db = Path(os.environ["PMIM_DB"])
    before = {r: n for src, r, n, _ in db_info(db).by_source_rules if src == "engine"}
    at.number_input(key="wi_games").set_value(2).run()
    at.button(key="wi_run").click().run()
    assert errors(at) == [], errors(at)
    assert any("Played 4 games" in s.value for s in at.success)
    # the variant's games are in the database under its own id; v3's numbers do not change
    after = {r: n for src, r, n, _ in db_info(db).by_source_rules if src == "engine"}
    assert after["v3"] == before["v3"] and after["v3-ll-rpt4-test"] == 2
    apart = {r: n for _, r, n, _ in db_info(Path(os.environ["PMIM_SIM_DIR"]) / "whatif.duckdb").by_source_rules}
    assert apart == {"v3": 2, "v3-ll-rpt4-test": 2}
    assert any(h.value.startswith("Paired impact: v3 → v3-ll-rpt4-test") for h in at.header)
    impact = [d for d in at.dataframe if "Change (points)" in d.value.columns][0].value
    assert len(impact) >= 1 and (impact["Games v3-ll-rpt4-test"] >= 2).all()


def test_a_pricing_only_edit_says_what_it_can_answer(whatif: AppTest) -> None:
    at = whatif
    at.radio(key="wi_table").set_value("warmechs").run()
    at.selectbox(key="wi_pick_warmechs").set_value("MJ").run()
    at.number_input(key="wi_warmechs_MJ_pts").set_value(16).run()
    assert errors(at) == []
    text = " ".join(w.value for w in at.warning)
    assert "pricing-only" in text and "cannot" in text and "Mjolnir 18 → 16" in text
    assert any("change no weapon-against-target number" in i.value for i in at.info)


def test_simulate_says_what_a_pricing_only_variant_answers(small_demo_db: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PMIM_DB", str(small_demo_db))
    at = AppTest.from_file(str(APP), default_timeout=600)
    at.switch_page("views/simulate.py").run()
    assert not [i for i in at.info if "changes points only" in i.value]
    at.selectbox(key="sim_rules").set_value("v3-mjolnir-16").run()
    assert errors(at) == []
    assert any("changes points only" in i.value for i in at.info)
    assert at.selectbox(key="sim_a_file").value == "v3-balanced"  # pickers show army names, keep file stems
    assert "Balanced" in at.selectbox(key="sim_a_file").options


def test_a_list_built_on_the_page_plays_the_variant(whatif: AppTest) -> None:
    at = whatif
    at.selectbox(key="wi_sim_variant").set_value("v3-llaser-rpt4").run()
    at.radio(key="wi_army_A_mode").set_value("built here").run()
    at.selectbox(key="wi_army_A_start").set_value("v3-balanced").run()
    assert errors(at) == []
    assert any("Balanced, edited: 72 / 72 points" in c.value for c in at.caption)
    assert any("Balanced, edited fields L. Laser" in c.value for c in at.caption)
    at.number_input(key="wi_games").set_value(2).run()
    at.button(key="wi_run").click().run()
    assert errors(at) == [], errors(at)
    impact = [d for d in at.dataframe if "Change (points)" in d.value.columns][0].value
    # lists are told apart by content: the edited copy fields what Balanced fields, so it is that list
    assert any(name.startswith("Balanced") for name in impact["List"]), impact["List"].to_list()


def test_editing_after_a_save_stops_simulate_until_saved_again(whatif: AppTest) -> None:
    at = whatif
    at.radio(key="wi_table").set_value("weapons").run()
    at.selectbox(key="wi_pick_weapons").set_value("LL").run()
    at.number_input(key="wi_weapons_LL_rpt").set_value(4).run()
    at.text_input(key="wi_id").input("v3-ll-rpt4-again").run()
    at.text_input(key="wi_name").input("v3 with L. Laser RPT 4 (again)").run()
    at.button(key="wi_save").click().run()
    assert at.button(key="wi_run")
    at.number_input(key="wi_weapons_LL_rpt").set_value(5).run()  # the edit moves on: the saved variant is not it
    assert not [b for b in at.button if b.key == "wi_run"]
    assert any("Save the edits as a variant" in i.value for i in at.info)


def test_a_stopped_run_says_what_was_kept(whatif: AppTest, tmp_path: Path) -> None:
    at = whatif
    half = tmp_path / "sims" / "whatif-half-written"
    half.mkdir(parents=True)
    (half / "games.00000.parquet").write_bytes(b"")
    at.session_state["wi_running"] = {"folders": [half], "done": 6, "total": 40}  # a run that died unseen
    at.run()
    text = " ".join(w.value for w in at.warning)
    assert "stopped after 6 of 40 games" in text and "not loaded" in text and "as it was before" in text
    assert not half.exists()
    at.run()
    assert "stopped after" not in " ".join(w.value for w in at.warning)  # said once
