"""The demo building in the background, seen in a real browser: the banner says how far it is,
notices by itself (every 15 s) that more batches were stored than when the page was drawn,
and its Refresh redraws the page with the new games (the cached figures follow the database)."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import expect

from pmim_analytics.demo import SMALL_DEMO, BuildProgress, StatusWriter, builder_lock, demo_steps
from pmim_analytics.store.info import db_info
from tests.support.browser import CHROMIUM, ROOT, WAIT_MS, scratch_copy, streamlit_server

pytestmark = pytest.mark.browser
PATHS: dict[str, Path] = {}


@pytest.fixture(scope="module")
def server(small_demo_db: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    if not Path(CHROMIUM).exists():
        pytest.skip("Debian's chromium is not installed (make test runs scripts/ensure-chromium.sh)")
    tmp = tmp_path_factory.mktemp("refresh")
    db, data = scratch_copy(small_demo_db, tmp)
    PATHS.update(db=db, rep=tmp / "rep", tmp=tmp)
    old = os.environ.get("PMIM_DEMO_DIR")
    os.environ["PMIM_DEMO_DIR"] = str(tmp / "rep")  # the server's banner reads this folder's status
    try:
        with streamlit_server(db, data, tmp) as url:
            yield url
    finally:
        if old is None:
            os.environ.pop("PMIM_DEMO_DIR", None)
        else:
            os.environ["PMIM_DEMO_DIR"] = old


def test_the_banner_offers_a_refresh_once_more_batches_are_stored(page, server: str) -> None:  # noqa: ANN001
    db, rep = PATHS["db"], PATHS["rep"]
    steps = demo_steps(SMALL_DEMO)
    before = db_info(db).games
    with builder_lock(rep) as mine:  # this test plays the builder
        assert mine
        status = StatusWriter(rep, "small", steps, db)
        for s in steps[:3]:
            status.done(s)
        status.update(BuildProgress("start", steps[3].name, 3, 11, 12, 52, 1.0))
        page.goto(server)
        expect(page.get_by_text("demo still building: 3 of 11 batches").first).to_be_visible(timeout=WAIT_MS)
        expect(page.get_by_text(f"{before:,} games in").first).to_be_visible(timeout=WAIT_MS)
        # a batch is stored: two more games in the database, and the status counts it
        sim = subprocess.run(
            [sys.executable, "-m", "pmim_analytics", "simulate", "--blue", "data/armies/v3-balanced.yaml", "--red",
             "data/armies/v3-fast-gev.yaml", "--games", "2", "--seed", "77", "--workers", "1", "--out",
             str(PATHS["tmp"] / "new"), "--ingest", "--db", str(db)], cwd=ROOT, capture_output=True, text=True,
            timeout=600)
        assert sim.returncode == 0, sim.stderr
        status.done(steps[3])
        status.update(BuildProgress("start", steps[4].name, 4, 11, 20, 52, 2.0))
        notice = page.get_by_text("4 of 11 batches stored: 1 more since this page was drawn")
        expect(notice).to_be_visible(timeout=WAIT_MS)  # the banner looked again by itself
        page.get_by_role("button", name="Refresh").click()
        expect(page.get_by_text(f"{before + 2:,} games in").first).to_be_visible(timeout=WAIT_MS)
        expect(notice).to_have_count(0, timeout=WAIT_MS)
        expect(page.get_by_text("This page shows the 4 batches stored when it was drawn").first).to_be_visible(
            timeout=WAIT_MS)
