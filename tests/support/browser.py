"""A real dashboard in a real browser: ``streamlit run`` on a free port, driven in Debian's Chromium
through Playwright. Used by the browser tests (``tests/app/browser/``) and by
``scripts/screenshots.py``, which takes the README's screenshots the same way."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = "/usr/bin/chromium"
# Every wait is on a condition (a heading, a chart, an alert), so a generous limit costs a passing
# test nothing; it only has to outlast a machine that is busy with other work (minutes, not seconds).
WAIT_MS = 300_000
LONG_WAIT_MS = 600_000
SERVER_START_S = 300
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def scratch_copy(db: Path, work: Path) -> tuple[Path, Path]:
    """Copies of the database ``db`` and the repository's ``data/`` in ``work`` (the dashboard saves
    variants and games there, which must not land in the originals): (database, data folder)."""
    copy = work / "dashboard.duckdb"
    shutil.copy(db, copy)
    data = work / "data"
    shutil.copytree(ROOT / "data", data, ignore=shutil.ignore_patterns("*.duckdb*"))
    return copy, data


@contextmanager
def streamlit_server(db: Path, data: Path | None, work: Path, *, db_as_argument: bool = False) -> Iterator[str]:
    """``streamlit run`` of the dashboard on ``db`` with ``data`` as ``data/`` (the repository's
    own when None; logs, simulations and the server's output under ``work``); yields its address
    and stops it on the way out. The database is named by ``PMIM_DB``, or with ``db_as_argument``
    on the command line (``-- --db PATH``) as a user starts it, with ``PMIM_DB`` unset."""
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k != "PMIM_DB"}
    env.update(PMIM_LOG_DIR=str(work / "logs"), PMIM_SIM_DIR=str(work / "sims"))
    if data is not None:
        env["PMIM_DATA"] = str(data)
    if not db_as_argument:
        env["PMIM_DB"] = str(db)
    out = work / "streamlit.log"
    with out.open("w") as log:
        proc = subprocess.Popen(
            [sys.executable, "-m", "streamlit", "run", str(ROOT / "app" / "streamlit_app.py"), "--server.headless",
             "true", "--server.port", str(port), "--browser.gatherUsageStats", "false",
             "--server.fileWatcherType", "none", *(["--", "--db", str(db)] if db_as_argument else [])],
            cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
        url = f"http://127.0.0.1:{port}"
        try:
            deadline = time.monotonic() + SERVER_START_S
            while True:
                try:
                    with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as r:
                        if r.status == 200:
                            break
                except OSError:
                    pass
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError("streamlit did not start:\n" + out.read_text())
                time.sleep(0.3)
            yield url
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


def settle(page, timeout: float = WAIT_MS) -> None:  # noqa: ANN001 (a playwright Page)
    """Wait until the app has finished running its script."""
    page.wait_for_selector("[data-testid='stApp']", timeout=timeout)
    page.wait_for_timeout(300)
    page.wait_for_function(
        "() => !document.querySelector(\"[data-testid='stStatusWidget']\")"
        " || !document.querySelector(\"[data-testid='stStatusWidget']\").innerText.includes('Running')",
        timeout=timeout)
    page.wait_for_timeout(500)


def wait_until(page, condition: Callable[[], bool], what: str, timeout: float = WAIT_MS) -> None:  # noqa: ANN001
    """Check ``condition`` every 100 ms until it holds; fail naming ``what`` after ``timeout`` ms
    (for a check on the page that playwright's ``expect`` has no assertion for)."""
    deadline = time.monotonic() + timeout / 1000
    while not condition():
        assert time.monotonic() < deadline, f"still not true after {timeout / 1000:.0f} s: {what}"
        page.wait_for_timeout(100)


def pick(page, label: str, option: str, nth: int = 0) -> None:  # noqa: ANN001
    """Choose ``option`` in the (``nth``) Streamlit selectbox labelled ``label``."""
    box = page.get_by_role("combobox", name=label, exact=True).nth(nth)
    box.scroll_into_view_if_needed()
    box.click()
    choice = page.get_by_role("option", name=option, exact=True).first
    try:
        choice.wait_for(timeout=10_000)
    except Exception:  # the list did not open on the click (a rerun redrew it): open it by keyboard
        box.press("ArrowDown")
    choice.click()
    settle(page)


def number(page, label: str, value: int) -> None:  # noqa: ANN001
    """Type ``value`` into the Streamlit number input labelled ``label`` and commit it."""
    field = page.get_by_label(label, exact=True)
    field.fill(str(value))
    field.press("Enter")
    settle(page)


def full_page_height(page) -> int:  # noqa: ANN001
    """The height of the whole page: Streamlit scrolls inside its main block, not the window."""
    return int(page.evaluate("() => Math.max(...[...document.querySelectorAll(\"[data-testid='stMain'],"
                             " [data-testid='stMainBlockContainer']\")].map(e => e.scrollHeight), 1000)"))


def enter_a_blue_vp_win_at_7_11(page) -> None:  # noqa: ANN001 (a playwright Page)
    """On Log a match: two sample armies and a blue win on VP at 7-11, which the form refuses
    at its fields (the browser test checks the errors; the README's screenshot shows them)."""
    pick(page, "Army (data/armies)", "Balanced (v3-balanced)")
    pick(page, "Army (data/armies)", "Tank-heavy (v3-tank-heavy)", nth=1)
    page.locator("[data-testid='stRadio']").filter(has_text="Winner").get_by_text("blue", exact=True).click()
    settle(page)
    pick(page, "How", "vp")
    number(page, "Blue VP", 7)
    number(page, "Red VP", 11)
