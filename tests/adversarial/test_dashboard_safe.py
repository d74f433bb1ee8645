"""The dashboard is safe by default: it listens on this machine only, its database is the one
chosen at start (``-- --db PATH``), and a browser cannot point it at another file.

A real ``streamlit run`` (started the way the Makefile starts it, from the repository, so
``.streamlit/config.toml`` applies) and Debian's Chromium.
"""

from __future__ import annotations

import http.client
import socket
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.browser import ARGS, CHROMIUM, WAIT_MS, settle, streamlit_server

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.browser


def _outside_address() -> str | None:
    """An address of this machine that is not loopback, if it has one."""
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.connect(("192.0.2.1", 9))  # no packet is sent: this only picks the outgoing interface
            ip = s.getsockname()[0]
    except OSError:
        return None
    return None if ip.startswith("127.") else ip


def _dashboard_answers(ip: str, port: int) -> bool:
    """Whether Streamlit's health check answers "ok" at ``ip:port`` (refused, silent or anything
    else: no)."""
    try:
        with urllib.request.urlopen(f"http://{ip}:{port}/_stcore/health", timeout=5) as r:
            return r.status == 200 and r.read(16).strip() == b"ok"
    except (OSError, ValueError, http.client.HTTPException):
        return False


@pytest.fixture(scope="module")
def server(small_demo_db: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, int, Path]]:
    if not Path(CHROMIUM).exists():
        pytest.skip("Debian's chromium is not installed (make test runs scripts/ensure-chromium.sh)")
    tmp = tmp_path_factory.mktemp("safe")
    with streamlit_server(small_demo_db, None, tmp, db_as_argument=True) as url:
        yield url, int(url.rsplit(":", 1)[1]), small_demo_db


def test_the_server_listens_on_localhost_only(server: tuple[str, int, Path]) -> None:
    _, port, _ = server
    ip = _outside_address()
    if ip is None:
        pytest.skip("this machine has no address besides loopback")
    # Another process may listen on the same port number at the outside address (the suite's Ray
    # binds ports on the machine's address): what must not answer there is the dashboard.
    assert not _dashboard_answers(ip, port), f"the dashboard answers on {ip}:{port}"
    assert _dashboard_answers("127.0.0.1", port)
    with socket.socket() as s:
        s.settimeout(2)
        assert s.connect_ex(("127.0.0.1", port)) == 0


def test_the_database_path_cannot_be_edited_from_the_browser(server: tuple[str, int, Path]) -> None:
    from playwright.sync_api import sync_playwright

    url, _, db = server
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            page.goto(url)
            page.get_by_role("heading", name="PMIM balance overview").first.wait_for(timeout=WAIT_MS)
            settle(page)
            sidebar = page.locator("[data-testid='stSidebar']")
            sidebar.get_by_text(str(db)).first.wait_for(timeout=WAIT_MS)  # the start-up choice is shown...
            inputs = sidebar.locator("input, textarea")
            for i in range(inputs.count()):  # ...and no field of the page holds a path to edit
                assert inputs.nth(i).input_value() != str(db)
            assert page.get_by_label("Database file").count() == 0
            assert page.locator("[data-testid='stException']").count() == 0
        finally:
            browser.close()
