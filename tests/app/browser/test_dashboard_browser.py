"""The dashboard in a real browser: Debian's Chromium (driven by Playwright) against a real
``streamlit run`` on a free port. Every page must render (a Plotly chart where the page has
one, never a Streamlit exception); the replay viewer is clicked through; a screenshot of
every page goes to ``test-artifacts/screenshots/``.

``PMIM_BROWSER_DB=data/pmim.duckdb`` runs it on another database (the README's screenshots).
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
SHOTS = ROOT / "test-artifacts" / "screenshots"
CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]
#: url path, title on the page, whether it draws a chart on a database with games
PAGES = (
    ("", "PMIM balance overview", True),
    ("compositions", "Compositions across rules versions", True),
    ("units", "Units: what each type does for its points", True),
    ("weapons", "Weapons & dice", True),
    ("replay", "Replay viewer", True),
    ("log_match", "Log a match", False),
    ("simulate", "Simulate", False),
    ("export", "Export for design notes", False),
)

pytestmark = pytest.mark.browser


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def server(small_demo_db: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    if not Path(CHROMIUM).exists():
        pytest.skip("Debian's chromium is not installed (make test runs scripts/ensure-chromium.sh)")
    tmp = tmp_path_factory.mktemp("browser")
    db = Path(os.environ.get("PMIM_BROWSER_DB") or small_demo_db).resolve()
    port = free_port()
    env = {**os.environ, "PMIM_DB": str(db), "PMIM_LOG_DIR": str(tmp / "logs"), "PMIM_SIM_DIR": str(tmp / "sims")}
    log = (tmp / "streamlit.log").open("w")
    proc = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", str(ROOT / "app" / "streamlit_app.py"), "--server.headless", "true",
         "--server.port", str(port), "--browser.gatherUsageStats", "false", "--server.fileWatcherType", "none"],
        cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as r:
                    if r.status == 200:
                        break
            except OSError:
                pass
            if proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("streamlit did not start:\n" + (tmp / "streamlit.log").read_text())
            time.sleep(0.3)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.close()


@pytest.fixture(scope="module")
def page(server: str):  # noqa: ANN201 (a playwright Page)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        try:
            yield browser.new_page(viewport={"width": 1500, "height": 1000})
        finally:
            browser.close()


def settle(page, timeout: float = 60_000) -> None:  # noqa: ANN001
    """Wait until the app has finished running its script."""
    page.wait_for_selector("[data-testid='stApp']", timeout=timeout)
    page.wait_for_timeout(300)
    page.wait_for_function(
        "() => !document.querySelector(\"[data-testid='stStatusWidget']\")"
        " || !document.querySelector(\"[data-testid='stStatusWidget']\").innerText.includes('Running')",
        timeout=timeout)
    page.wait_for_timeout(500)


def screenshot(page, name: str) -> None:  # noqa: ANN001
    """The whole page: Streamlit scrolls inside its main block, so grow the viewport to fit it first."""
    height = page.evaluate("() => Math.max(...[...document.querySelectorAll(\"[data-testid='stMain'],"
                           " [data-testid='stMainBlockContainer']\")].map(e => e.scrollHeight), 1000)")
    page.set_viewport_size({"width": 1500, "height": min(int(height) + 40, 7000)})
    page.wait_for_timeout(800)
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"))
    page.set_viewport_size({"width": 1500, "height": 1000})


@pytest.mark.parametrize(("path", "title", "chart"), PAGES, ids=[p[0] or "overview" for p in PAGES])
def test_page_renders(page, server: str, path: str, title: str, chart: bool) -> None:  # noqa: ANN001
    page.goto(f"{server}/{path}")
    page.get_by_role("heading", name=title).first.wait_for(timeout=60_000)
    if chart:
        page.wait_for_selector(".js-plotly-plot .main-svg", timeout=60_000)
    settle(page)
    assert page.locator("[data-testid='stException']").count() == 0
    screenshot(page, path or "overview")


def test_replay_viewer_steps_through_a_game(page, server: str) -> None:  # noqa: ANN001
    page.goto(f"{server}/replay")
    page.get_by_role("heading", name="Step 1 of").first.wait_for(timeout=60_000)
    settle(page)
    page.locator("[data-testid='stSidebar']").get_by_text("engine", exact=True).click()  # a game with positions
    settle(page)
    page.get_by_role("heading", name="Deployment").first.wait_for(timeout=30_000)
    for n in (2, 3, 4):
        page.get_by_role("button", name="Next ▶").click()
        page.get_by_role("heading", name=f"Step {n} of").first.wait_for(timeout=30_000)
    settle(page)
    page.get_by_role("button", name="◀ Prev").click()
    page.get_by_role("heading", name="Step 3 of").first.wait_for(timeout=30_000)
    settle(page)
    assert page.locator(".js-plotly-plot").count() >= 2  # the board and the VP curve
    assert page.locator("[data-testid='stException']").count() == 0
    screenshot(page, "replay-step3")
    page.get_by_role("slider").first.press("End")  # the slider, by keyboard: to the last step
    page.get_by_role("heading", name="Game over").first.wait_for(timeout=30_000)
    settle(page)
    assert page.locator("[data-testid='stException']").count() == 0
    screenshot(page, "replay-end")

