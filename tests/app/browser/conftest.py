"""The browser both browser test modules drive: Debian's Chromium through Playwright, one page
per module, on the module's own ``server`` fixture."""

from __future__ import annotations

import pytest

from tests.support.browser import ARGS, CHROMIUM, WAIT_MS


@pytest.fixture(scope="module")
def page(server: str):  # noqa: ANN201 (a playwright Page)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        try:
            page = browser.new_page(viewport={"width": 1500, "height": 1000})
            page.set_default_timeout(WAIT_MS)  # waits are on conditions: generous, for a busy machine
            yield page
        finally:
            browser.close()
