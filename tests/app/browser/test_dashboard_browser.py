"""The dashboard in a real browser: Debian's Chromium (driven by Playwright) against a real
``streamlit run`` on a free port. Every page must render (a Plotly chart where the page has
one, never a Streamlit exception); the replay viewer is clicked through; a screenshot of
every page goes to ``test-artifacts/screenshots/``.

The server runs on a copy of the database and of ``data/`` (the What-if test saves a variant
there, never in the repository's ``data/``). Further tests: the filters survive navigation and
a reload from a URL; a what-if edit becomes a variant file, is simulated and lands on the paired
impact; the replay viewer's controls and board fit a 1440x900 viewport together; the summary
form's errors sit at their fields. The Export page's downloads are tested in ``test_export_browser.py``.

``PMIM_BROWSER_DB=data/pmim.duckdb`` runs it on another database (the README's screenshots).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import expect

from pmim_analytics.analytics.levels import level_name, level_of
from tests.support.browser import (
    CHROMIUM,
    LONG_WAIT_MS,
    ROOT,
    WAIT_MS,
    enter_a_blue_vp_win_at_7_11,
    full_page_height,
    number,
    pick,
    scratch_copy,
    settle,
    streamlit_server,
    wait_until,
)

SHOTS = ROOT / "test-artifacts" / "screenshots"
#: url path, title on the page, whether it draws a chart on a database with games
PAGES = (
    ("", "PMIM balance overview", True),
    ("compositions", "Compositions across rules versions", True),
    ("rules_ab", "Rules A → B: what a change of rules does", True),
    ("units", "Units: what each type does for its points", True),
    ("weapons", "Weapons & dice", True),
    ("whatif", "What-if: change a stat, see what it does", False),
    ("replay", "Replay viewer", True),
    ("log_match", "Log a match", False),
    ("simulate", "Simulate", False),
    ("bots", "Bots: strength and robust verdicts", False),
    ("export", "Export for design notes", False),
)

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def server(small_demo_db: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    if not Path(CHROMIUM).exists():
        pytest.skip("Debian's chromium is not installed (make test runs scripts/ensure-chromium.sh)")
    tmp = tmp_path_factory.mktemp("browser")
    db, data = scratch_copy(Path(os.environ.get("PMIM_BROWSER_DB") or small_demo_db).resolve(), tmp)
    with streamlit_server(db, data, tmp) as url:
        os.environ["PMIM_BROWSER_DATA"] = str(data)  # where the What-if test looks for the variant it saved
        os.environ["PMIM_BROWSER_DB_COPY"] = str(db)  # the database the server reads, for the CLI checks
        try:
            yield url
        finally:
            os.environ.pop("PMIM_BROWSER_DATA", None)
            os.environ.pop("PMIM_BROWSER_DB_COPY", None)


def screenshot(page, name: str, full: bool = True) -> None:  # noqa: ANN001
    """The whole page (the viewport grown to fit it first), or what a 1440x900 screen shows."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    if not full:
        page.screenshot(path=str(SHOTS / f"{name}.png"))
        return
    page.set_viewport_size({"width": 1500, "height": min(full_page_height(page) + 40, 7000)})
    page.wait_for_timeout(800)
    page.screenshot(path=str(SHOTS / f"{name}.png"))
    page.set_viewport_size({"width": 1500, "height": 1000})


@pytest.mark.parametrize("size", [(1440, 900), (1280, 720)], ids=["1440x900", "1280x720"])
def test_every_page_first_load(page, server: str, size: tuple[int, int]) -> None:  # noqa: ANN001
    """Every page renders at both screen sizes (a Plotly chart where the page has one, never a
    Streamlit exception), each page's first-load time printed (never asserted); at 1440x900 a
    screenshot of each whole page too (one visit of each page serves both, so the server renders
    each page twice, not three times)."""
    page.set_viewport_size({"width": size[0], "height": size[1]})
    try:
        for path, title, chart in PAGES:
            started = time.monotonic()
            page.goto(f"{server}/{path}")
            page.get_by_role("heading", name=title).first.wait_for(timeout=WAIT_MS)
            if chart:
                page.wait_for_selector(".js-plotly-plot .main-svg", timeout=WAIT_MS)
            settle(page)
            print(f"{size[0]}x{size[1]} {path or 'overview'}: first load {time.monotonic() - started:.1f} s")
            assert page.locator("[data-testid='stException']").count() == 0, path
            if size == (1440, 900):
                screenshot(page, path or "overview")
                page.set_viewport_size({"width": size[0], "height": size[1]})
    finally:
        page.set_viewport_size({"width": 1500, "height": 1000})


def _cli_json(*args: str) -> dict:
    out = subprocess.run([sys.executable, "-m", "pmim_analytics", *args, "--format", "json"], capture_output=True,
                         text=True, check=True, env={**os.environ, "PMIM_DATA": os.environ["PMIM_BROWSER_DATA"]})
    return json.loads(out.stdout)


def _cli_level(*args: str) -> str:
    """The bot level ``pmim report compositions`` picks by default for a selection (its stderr's first line)."""
    out = subprocess.run([sys.executable, "-m", "pmim_analytics", "report", "compositions", *args, "--format", "json",
                          "--db", os.environ["PMIM_BROWSER_DB_COPY"]], capture_output=True, text=True, check=True,
                         env={**os.environ, "PMIM_DATA": os.environ["PMIM_BROWSER_DATA"], "COLUMNS": "300"})
    found = re.search(r"Bot level: (\S+) \(", out.stderr)
    assert found, out.stderr
    return level_of(found.group(1))


def test_overview_headline_matches_pmim_report_compositions(page, server: str) -> None:  # noqa: ANN001
    """The first screen's headline is `pmim report compositions` at the same bot level: the one the
    CLI picks for the whole database (the sidebar's default), named with its skill in the headline,
    the sidebar and the chart's subtitle."""
    page.goto(f"{server}/")
    page.get_by_role("heading", name="Balance at a glance").first.wait_for(timeout=WAIT_MS)
    key = _cli_level()
    name = level_name(key)
    rows = _cli_json("report", "compositions", "--rules", "v3", "--source", "engine", "--bot", key,
                     "--db", os.environ["PMIM_BROWSER_DB_COPY"])["compositions"]
    top = max(rows, key=lambda r: (r["win_rate"], [-ord(c) for c in r["composition"]]))
    want = (f"{top['composition']} wins {top['win_rate'] * 100:.0f}% [{top['win_lo'] * 100:.0f}, "
            f"{top['win_hi'] * 100:.0f}] of {top['games']} games at {name}")
    items = page.locator("[data-testid='stMarkdown'] li")
    expect(items.filter(has_text="v3:").first).to_contain_text(want, timeout=WAIT_MS)
    expect(items.filter(has_text="v3-llaser-rpt4:").first).to_contain_text(f"games at {name}", timeout=WAIT_MS)
    level_box = page.locator("[data-testid='stSidebar']").get_by_role("combobox", name="Bot level (both sides)")
    expect(level_box).to_have_value(re.compile(re.escape(name)), timeout=WAIT_MS)
    expect(page.locator(".js-plotly-plot").first).to_contain_text(f"bot level {name}", timeout=WAIT_MS)
    screenshot(page, "overview-glance", full=False)


def test_rules_a_to_b_matches_pmim_report_impact(page, server: str) -> None:  # noqa: ANN001
    page.goto(f"{server}/rules_ab?a=v3&b=v3-llaser-rpt4")
    page.get_by_role("heading", name="Paired change per list").first.wait_for(timeout=WAIT_MS)
    page.wait_for_selector(".js-plotly-plot .main-svg", timeout=WAIT_MS)
    settle(page)
    rows = _cli_json("report", "impact", "--rules", "v3,v3-llaser-rpt4", "--db",
                     os.environ["PMIM_BROWSER_DB_COPY"])["compositions"]
    assert rows
    items = page.locator("[data-testid='stMarkdown'] li")
    for r in rows:  # each list's line, waited for (the list is drawn after the chart)
        d, lo, hi = (round(r[k] * 100) for k in ("win_diff", "win_diff_lo", "win_diff_hi"))
        mine = items.filter(has_text=re.compile("^" + re.escape(f"{r['list']}: "))).first
        expect(mine).to_contain_text(
            f"{'+' if d >= 0 else ''}{d} points [{lo}, {hi}] over {r['games_a']} / {r['games_b']} paired",
            timeout=WAIT_MS)
    expect(page).to_have_url(re.compile(r"[?&]a=v3(&|$)"), timeout=WAIT_MS)
    expect(page).to_have_url(re.compile(r"[?&]b=v3-llaser-rpt4(&|$)"), timeout=WAIT_MS)
    screenshot(page, "rules-a-b", full=False)


def test_replay_viewer_steps_through_a_game(page, server: str) -> None:  # noqa: ANN001
    page.goto(f"{server}/replay")
    page.get_by_role("heading", name="Step 1 of").first.wait_for(timeout=WAIT_MS)
    settle(page)
    page.locator("[data-testid='stSidebar']").get_by_text("engine", exact=True).click()  # a game with positions
    settle(page)
    page.get_by_role("heading", name="Deployment").first.wait_for(timeout=WAIT_MS)
    for n in (2, 3, 4):
        page.get_by_role("button", name="Next ▶").click()
        page.get_by_role("heading", name=f"Step {n} of").first.wait_for(timeout=WAIT_MS)
    settle(page)
    page.get_by_role("button", name="◀ Prev").click()
    page.get_by_role("heading", name="Step 3 of").first.wait_for(timeout=WAIT_MS)
    settle(page)
    expect(page.locator(".js-plotly-plot").nth(1)).to_be_attached(timeout=WAIT_MS)  # the board and the VP curve
    assert page.locator("[data-testid='stException']").count() == 0
    screenshot(page, "replay-step3")
    page.get_by_role("slider").first.press("End")  # the slider, by keyboard: to the last step
    page.get_by_role("heading", name="Game over").first.wait_for(timeout=WAIT_MS)
    settle(page)
    assert page.locator("[data-testid='stException']").count() == 0
    screenshot(page, "replay-end")



def _inside(box: dict | None, screen: dict) -> bool:
    return box is not None and box["x"] >= 0 and box["y"] >= 0 and box["x"] + box["width"] <= screen["width"] \
        and box["y"] + box["height"] <= screen["height"]




def test_typing_v3_and_enter_in_the_rules_filter_picks_v3_only(page, server: str) -> None:  # noqa: ANN001
    page.goto(f"{server}/compositions?rules=v3-llaser-rpt4")
    page.get_by_role("heading", name="Compositions across rules versions").first.wait_for(timeout=WAIT_MS)
    settle(page)
    sidebar = page.locator("[data-testid='stSidebar']")
    chips = sidebar.locator("[data-testid='stMultiSelect'] [data-tag] [title]")
    expect(chips).to_have_text(["v3-llaser-rpt4"], timeout=WAIT_MS)
    box = sidebar.locator("[data-testid='stMultiSelect'] input").first
    box.click()
    box.type("v3")
    page.get_by_role("option", name="v3", exact=True).wait_for(timeout=WAIT_MS)
    box.press("Enter")
    settle(page)
    expect(chips).to_have_count(2, timeout=WAIT_MS)
    assert sorted(chips.all_inner_texts()) == ["v3", "v3-llaser-rpt4"]  # v3 added, nothing else


def test_filters_survive_navigation_and_a_reload_from_the_url(page, server: str) -> None:  # noqa: ANN001
    page.goto(f"{server}/compositions?rules=v3&source=engine")
    page.get_by_role("heading", name="Compositions across rules versions").first.wait_for(timeout=WAIT_MS)
    settle(page)
    sidebar = page.locator("[data-testid='stSidebar']")
    chips = sidebar.locator("[data-testid='stMultiSelect'] [data-tag] [title]")
    expect(chips).to_have_text(["v3"], timeout=WAIT_MS)  # the sidebar may draw after the page's heading
    expect(sidebar.get_by_role("radio", name="engine")).to_be_checked(timeout=WAIT_MS)
    sidebar.get_by_role("link", name="Units").click()
    page.get_by_role("heading", name="Units: what each type does for its points").first.wait_for(timeout=WAIT_MS)
    settle(page)
    expect(chips).to_have_text(["v3"], timeout=WAIT_MS)
    expect(sidebar.get_by_role("radio", name="engine")).to_be_checked(timeout=WAIT_MS)
    # the new page's address carries them (the address is rewritten after the page draws: wait for it)
    expect(page).to_have_url(re.compile(r"[?&]rules=v3(&|$)"), timeout=WAIT_MS)
    expect(page).to_have_url(re.compile(r"[?&]source=engine(&|$)"), timeout=WAIT_MS)
    sidebar.get_by_text("manual", exact=True).click()
    settle(page)
    expect(page).to_have_url(re.compile(r"[?&]source=manual(&|$)"), timeout=WAIT_MS)
    page.reload()
    page.get_by_role("heading", name="Units: what each type does for its points").first.wait_for(timeout=WAIT_MS)
    settle(page)
    expect(chips).to_have_text(["v3"], timeout=WAIT_MS)
    expect(sidebar.get_by_role("radio", name="manual")).to_be_checked(timeout=WAIT_MS)
    sidebar.get_by_role("link", name="Export").click()
    page.get_by_text("Selection: rules v3; source manual").first.wait_for(timeout=WAIT_MS)
    assert page.locator("[data-testid='stException']").count() == 0


@pytest.mark.parametrize("size", [(1280, 720), (1440, 900)], ids=["1280x720", "1440x900"])
def test_replay_controls_and_board_fit_the_screen(page, server: str, size: tuple[int, int]) -> None:  # noqa: ANN001
    screen = {"width": size[0], "height": size[1]}
    page.set_viewport_size(screen)
    try:
        started = time.monotonic()
        page.goto(f"{server}/replay?source=engine")
        page.get_by_role("heading", name="Step 1 of").first.wait_for(timeout=WAIT_MS)
        page.wait_for_selector(".js-plotly-plot .main-svg", timeout=WAIT_MS)
        settle(page)
        print(f"replay viewer at {size[0]}x{size[1]}: first load {time.monotonic() - started:.1f} s")
        for n in (2, 3):
            page.get_by_role("button", name="Next ▶").click()
            page.get_by_role("heading", name=f"Step {n} of").first.wait_for(timeout=WAIT_MS)
        settle(page)
        board = page.locator(".js-plotly-plot").first
        for el in (page.get_by_role("button", name="◀ Prev"), page.get_by_role("button", name="Next ▶"),
                   page.get_by_role("button", name="Kill ▶"), board):
            assert _inside(el.bounding_box(), screen), el
        assert "hex" in board.inner_text() or board.locator("text").count() > 30  # the coordinate labels
        if size == (1440, 900):  # the current step's events, in full inside the events box, on screen too
            events = page.locator(".st-key-replay_events")
            current = events.locator("strong").last
            assert _inside(events.bounding_box(), screen)
            cur, box = current.bounding_box(), events.bounding_box()
            assert cur is not None and box is not None and box["y"] <= cur["y"] <= box["y"] + box["height"]
            assert current.inner_text().split(" · ", 1)[1].strip()
        screenshot(page, f"replay-{size[0]}x{size[1]}", full=False)
    finally:
        page.set_viewport_size({"width": 1500, "height": 1000})


def test_replay_timeline_next_kill_autoplay_and_link(page, server: str) -> None:  # noqa: ANN001
    page.goto(f"{server}/replay?source=engine")
    page.get_by_role("heading", name="Step 1 of").first.wait_for(timeout=WAIT_MS)
    settle(page)
    timeline = page.locator(".st-key-replay_timeline")
    timeline.get_by_text("✕ kill").first.wait_for(timeout=WAIT_MS)  # the timeline may draw after the heading
    kills = timeline.get_by_text("✕ kill").all_inner_texts()
    assert kills, "the first engine game of the demo destroys something"
    page.get_by_role("button", name="Kill ▶").click()
    settle(page)
    # the heading and the address are redrawn after the click: wait until the heading has left step 1
    expect(page.get_by_role("heading", name=re.compile(r"^Step 1 of"))).to_have_count(0, timeout=WAIT_MS)
    heading = page.get_by_role("heading", name="Step ").first.inner_text()
    step = int(heading.split()[1])
    expect(page).to_have_url(re.compile(rf"[?&]step={step}(&|$)"), timeout=WAIT_MS)
    expect(page).to_have_url(re.compile(r"[?&]game="), timeout=WAIT_MS)
    # the current step's events hold the kill the timeline names first
    first = page.locator(".st-key-replay_timeline label").filter(has_text="✕ kill").first.inner_text()
    victim = first.split(" · ")[-1].split(" is destroyed")[0]
    current = page.locator(".st-key-replay_events strong").filter(has_text=victim).filter(has_text="destroyed")
    current.first.wait_for(timeout=WAIT_MS)  # the events box is redrawn after the heading: wait for it
    link = page.url
    page.get_by_role("button", name="▶ Play").click()
    page.get_by_role("heading", name=f"Step {step + 2} of").first.wait_for(timeout=WAIT_MS)
    page.get_by_role("button", name="■ Pause").click()
    settle(page)
    page.goto(link)  # the address opens the same game at the same step
    page.get_by_role("heading", name=f"Step {step} of").first.wait_for(timeout=WAIT_MS)
    assert page.locator("[data-testid='stException']").count() == 0


def test_summary_form_errors_at_their_fields(page, server: str) -> None:  # noqa: ANN001
    page.goto(f"{server}/log_match")
    page.get_by_role("heading", name="Log a match").first.wait_for(timeout=WAIT_MS)
    settle(page)
    expect(page.get_by_text("Fill in the blue army")).to_have_count(1, timeout=WAIT_MS)  # the form starts empty
    expect(page.get_by_role("button", name="Save to the database")).to_have_count(0)
    enter_a_blue_vp_win_at_7_11(page)
    alerts = page.locator("[data-testid='stAlertContentError']")
    expect(alerts).to_have_count(2, timeout=WAIT_MS)
    expect(alerts.first).to_contain_text("VP: VP totals '7-11' are inconsistent", timeout=WAIT_MS)
    expect(alerts.filter(has_text="line")).to_have_count(0)
    expect(alerts.filter(has_text="no result")).to_have_count(0)
    # the error sits right under the VP inputs, above the units-destroyed box
    vp_box = page.get_by_label("Blue VP", exact=True).bounding_box()
    err_box = alerts.first.bounding_box()
    destroyed_area = page.locator("[data-testid='stTextArea']").filter(has_text="Units destroyed").first
    assert vp_box["y"] < err_box["y"] < destroyed_area.bounding_box()["y"]
    screenshot(page, "log-match-errors")
    box = destroyed_area.locator("textarea")
    box.fill("R5 B:GE1\nR2 R:TY1\nR:ZZ9")
    box.press("Control+Enter")
    settle(page)
    number(page, "Blue VP", 11)
    number(page, "Red VP", 7)
    expect(alerts.first).to_contain_text("Units destroyed, line 3: unknown unit 'R:ZZ9'", timeout=WAIT_MS)
    # a loss in round 7 of a 5-round game: the error is at that entry, under the box, not at "Rounds played"
    box.fill("R7 B:GE1\nR2 R:TY1")
    box.press("Control+Enter")
    settle(page)
    number(page, "Rounds played (empty = not known)", 5)
    late = alerts.filter(has_text="is in R7")
    expect(late).to_contain_text("Units destroyed, line 1: 'B:GE1' is in R7, past the 5 rounds given at "
                                 "Rounds played", timeout=WAIT_MS)
    expect(alerts).to_have_count(2)  # that one and the count of problems
    assert late.bounding_box()["y"] > destroyed_area.bounding_box()["y"]


def test_what_if_edit_to_variant_to_simulation_to_paired_impact(page, server: str) -> None:  # noqa: ANN001
    data = Path(os.environ["PMIM_BROWSER_DATA"])
    page.goto(f"{server}/whatif")
    page.get_by_role("heading", name="What-if: change a stat, see what it does").first.wait_for(timeout=WAIT_MS)
    settle(page)
    pick(page, "Which", "L. Laser (LL)")
    number(page, "RPT (base 3)", 0)
    refusal = page.get_by_text("L. Laser RPT: Input should be greater than or equal to 1").first
    refusal.wait_for(timeout=WAIT_MS)
    rpt, err = page.get_by_label("RPT (base 3)", exact=True).bounding_box(), refusal.bounding_box()
    assert rpt["y"] < err["y"] < rpt["y"] + 200 and rpt["x"] - 20 <= err["x"] <= rpt["x"] + rpt["width"]
    number(page, "RPT (base 3)", 4)
    # attacks to destroy Infantry: 36/13 -> 18/13
    page.get_by_text("18/13").first.wait_for(state="attached", timeout=WAIT_MS)
    page.wait_for_selector(".js-plotly-plot .main-svg", timeout=WAIT_MS)  # the kill curves
    page.get_by_label("Variant id (the file name)").fill("v3-llaser-rpt4-try")
    page.get_by_label("Name", exact=True).fill("v3 with L. Laser RPT 4 (tried on the What-if page)")
    page.get_by_label("Name", exact=True).press("Enter")
    settle(page)
    page.get_by_role("button", name="Save the variant").click()
    page.get_by_text("rules id v3-llaser-rpt4-try").first.wait_for(timeout=WAIT_MS)
    saved = data / "rules" / "variants" / "v3-llaser-rpt4-try.yaml"
    assert saved.is_file() and "rpt: 4" in saved.read_text()
    assert not (ROOT / "data" / "rules" / "variants" / saved.name).exists()
    settle(page)
    expect(page.get_by_text("Plays the variant saved from these edits: v3-llaser-rpt4-try")).to_have_count(
        1, timeout=WAIT_MS)
    number(page, "Games under each", 2)
    page.get_by_role("button", name="Play 2 games under v3 and 2 under v3-llaser-rpt4-try").click()
    heading = page.get_by_role("heading", name="Paired impact: v3 → v3-llaser-rpt4-try").first
    heading.wait_for(timeout=LONG_WAIT_MS)
    settle(page)

    def heading_on_screen() -> bool:  # the page lands on the impact: it scrolls there after drawing it
        box = heading.bounding_box()
        return box is not None and 0 <= box["y"] <= page.viewport_size["height"] - box["height"]

    wait_until(page, heading_on_screen, "the paired impact's heading on screen")
    expect(page.get_by_text("Played 4 games")).to_have_count(1, timeout=WAIT_MS)
    expect(page.locator(".js-plotly-plot").nth(1)).to_be_attached(timeout=WAIT_MS)  # kill curves and the impact
    assert page.locator("[data-testid='stException']").count() == 0
    screenshot(page, "whatif")



def test_what_if_plays_nothing_before_a_save_and_cancel_leaves_a_message(page, server: str) -> None:  # noqa: ANN001
    page.goto(f"{server}/whatif")
    page.get_by_role("heading", name="What-if: change a stat, see what it does").first.wait_for(timeout=WAIT_MS)
    settle(page)
    pick(page, "Which", "L. Laser (LL)")
    number(page, "RPT (base 3)", 5)
    page.get_by_text("Save the edits as a variant (above) to simulate them").first.wait_for(timeout=WAIT_MS)
    assert page.get_by_role("button", name="Play ").count() == 0  # no live button for an unsaved edit
    page.get_by_label("Variant id (the file name)").fill("v3-llaser-rpt5-try")
    page.get_by_label("Name", exact=True).fill("v3 with L. Laser RPT 5")
    page.get_by_label("Name", exact=True).press("Enter")
    settle(page)
    page.get_by_role("button", name="Save the variant").click()
    page.get_by_text("rules id v3-llaser-rpt5-try").first.wait_for(timeout=WAIT_MS)
    settle(page)
    number(page, "Games under each", 400)
    page.get_by_role("button", name="Play 400 games under v3 and 400 under v3-llaser-rpt5-try").click()
    page.get_by_text("played", exact=False).filter(has_text="left").first.wait_for(timeout=WAIT_MS)
    page.get_by_role("button", name="Cancel the run").click()
    message = page.get_by_text("The run was stopped after").first
    message.wait_for(timeout=WAIT_MS)
    expect(message).to_contain_text("were not loaded", timeout=WAIT_MS)
    assert page.locator("[data-testid='stException']").count() == 0
    screenshot(page, "whatif-cancelled", full=False)
