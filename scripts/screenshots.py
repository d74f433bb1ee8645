"""Take the README's dashboard screenshots from the real app: ``streamlit run`` on a copy of a
database, Debian's Chromium driven by Playwright, the same steps a designer takes.

    .venv/bin/python scripts/screenshots.py                       # data/pmim.duckdb (make run builds it)
    .venv/bin/python scripts/screenshots.py --db other.duckdb --out /tmp/shots

The database and ``data/`` are copied first: the What-if step saves a variant and simulates it,
and neither may land in the repository. Writes ``docs/screenshots/*.png`` (or ``--out``). The
pages' icons are emoji: without an emoji font (Debian: ``fonts-noto-color-emoji``) they show as
empty boxes, so the script says so first.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.support.browser import (  # noqa: E402 (the repository root is put on the path first)
    ARGS,
    CHROMIUM,
    ROOT,
    WAIT_MS,
    enter_a_blue_vp_win_at_7_11,
    full_page_height,
    number,
    pick,
    scratch_copy,
    settle,
    streamlit_server,
)

WIDTH = 1440
SCREEN = {"width": WIDTH, "height": 900}


def shoot(page, out: Path, name: str, height: int | None = None, top: int = 0) -> None:  # noqa: ANN001
    """``name``.png: the page from ``top``, ``height`` pixels tall (the whole page when ``None``)."""
    full = full_page_height(page) + 40
    page.set_viewport_size({"width": WIDTH, "height": min(full, 7000)})
    page.wait_for_timeout(1000)
    h = min(height or full, full - top)
    page.screenshot(path=str(out / f"{name}.png"), clip={"x": 0, "y": top, "width": WIDTH, "height": h})
    page.set_viewport_size(SCREEN)
    print(f"wrote {out / f'{name}.png'} ({WIDTH}x{h})")


def top_of(page, locator) -> int:  # noqa: ANN001
    """A locator's distance from the top of the page, with the page grown to its full height."""
    page.set_viewport_size({"width": WIDTH, "height": min(full_page_height(page) + 40, 7000)})
    page.wait_for_timeout(500)
    box = locator.bounding_box()
    return int(box["y"]) if box else 0


def whatif(page, url: str, out: Path) -> None:  # noqa: ANN001
    page.goto(f"{url}/whatif")
    page.get_by_role("heading", name="What-if: change a stat, see what it does").first.wait_for(timeout=WAIT_MS)
    settle(page)
    pick(page, "Which", "L. Laser (LL)")
    number(page, "RPT (base 3)", 4)
    page.get_by_text("18/13").first.wait_for(state="attached", timeout=WAIT_MS)
    page.wait_for_selector(".js-plotly-plot .main-svg", timeout=WAIT_MS)
    settle(page)
    end = top_of(page, page.get_by_role("heading", name="Save as a variant").first)
    shoot(page, out, "whatif-edit", height=end + 60)
    page.get_by_label("Variant id (the file name)").fill("v3-llaser-rpt4-page")
    page.get_by_label("Name", exact=True).fill("v3 with L. Laser RPT 4 (from the What-if page)")
    page.get_by_label("Name", exact=True).press("Enter")
    settle(page)
    page.get_by_role("button", name="Save the variant").click()
    page.get_by_text("rules id v3-llaser-rpt4-page").first.wait_for(timeout=WAIT_MS)
    settle(page)
    pick(page, "Army A", "Balanced")
    pick(page, "Army B", "Infantry swarm")
    number(page, "Games under each", 40)
    page.get_by_role("button", name="Play 40 games under v3 and 40 under v3-llaser-rpt4-page").click()
    heading = page.get_by_role("heading", name="Paired impact: v3 → v3-llaser-rpt4-page").first
    heading.wait_for(timeout=600_000)
    page.wait_for_selector(".js-plotly-plot .main-svg", timeout=WAIT_MS)
    settle(page)
    start = top_of(page, page.get_by_role("heading", name="Simulate it against chosen lists").first)
    shoot(page, out, "whatif-impact", top=max(0, start - 20))


def overview(page, url: str, out: Path) -> None:  # noqa: ANN001
    page.set_viewport_size(SCREEN)
    page.goto(f"{url}/")
    page.get_by_role("heading", name="Balance at a glance").first.wait_for(timeout=WAIT_MS)
    page.wait_for_selector(".js-plotly-plot .main-svg", timeout=WAIT_MS)
    settle(page)
    page.wait_for_timeout(1000)
    page.screenshot(path=str(out / "overview.png"))  # the first screen at 1440x900
    print(f"wrote {out / 'overview.png'} (1440x900)")


def rules_ab(page, url: str, out: Path) -> None:  # noqa: ANN001
    page.goto(f"{url}/rules_ab?a=v3&b=v3-llaser-rpt4")
    page.get_by_role("heading", name="Paired change per list").first.wait_for(timeout=WAIT_MS)
    page.wait_for_selector(".js-plotly-plot .main-svg", timeout=WAIT_MS)
    settle(page)
    end = top_of(page, page.get_by_role("heading", name="Paired change per unit type").first)
    shoot(page, out, "rules-a-b", height=end + 60)


def compositions(page, url: str, out: Path) -> None:  # noqa: ANN001
    page.goto(f"{url}/compositions?rules=v2,v3&source=engine")
    page.get_by_role("heading", name="Compositions across rules versions").first.wait_for(timeout=WAIT_MS)
    page.wait_for_selector(".js-plotly-plot .main-svg", timeout=WAIT_MS)
    settle(page)
    picks = page.locator("[data-testid='stMultiSelect']").filter(has_text="Compositions to compare")
    picker = picks.locator("input").first
    for name in ("Heavy (Richard, playtest 1)", "Mjolnir and Paladin with infantry (Richard, playtest 2)"):
        if picks.get_by_text(name, exact=True).count():
            continue
        picker.click()  # the v2 playtest lists beside the v3 ones
        page.keyboard.type(name)
        page.get_by_role("option").filter(has_text=name).first.wait_for(timeout=30_000)
        page.keyboard.press("Enter")
        settle(page)
    page.keyboard.press("Escape")
    settle(page)
    end = top_of(page, page.get_by_role("heading", name="VP by round and game length").first)
    shoot(page, out, "compositions", height=end + 60)


def replay(page, url: str, out: Path) -> None:  # noqa: ANN001
    page.set_viewport_size(SCREEN)
    page.goto(f"{url}/replay?source=engine")
    page.get_by_role("heading", name="Step 1 of").first.wait_for(timeout=WAIT_MS)
    page.wait_for_selector(".js-plotly-plot .main-svg", timeout=WAIT_MS)
    settle(page)
    page.get_by_role("button", name="Kill ▶").click()  # the first kill, from the timeline's button
    settle(page)
    page.mouse.move(5, 890)  # no tooltip over the buttons
    page.wait_for_timeout(1000)
    page.screenshot(path=str(out / "replay-viewer.png"))  # exactly what a 1440x900 screen shows
    print(f"wrote {out / 'replay-viewer.png'} (1440x900)")


def summary_form(page, url: str, out: Path) -> None:  # noqa: ANN001
    page.goto(f"{url}/log_match")
    page.get_by_role("heading", name="Log a match").first.wait_for(timeout=WAIT_MS)
    settle(page)
    enter_a_blue_vp_win_at_7_11(page)
    page.locator("[data-testid='stAlertContentError']").first.wait_for(timeout=WAIT_MS)
    settle(page)
    start = top_of(page, page.get_by_role("heading", name="Result").first)
    shoot(page, out, "summary-form", top=max(0, start - 380), height=860)


def export(page, url: str, out: Path) -> None:  # noqa: ANN001
    page.goto(f"{url}/export?rules=v3,v3-llaser-rpt4,v3-heavy-def6,v2&source=engine")
    page.get_by_role("heading", name="Export for design notes").first.wait_for(timeout=WAIT_MS)
    settle(page)
    page.get_by_text("Prepare the export", exact=True).click()
    page.get_by_role("button", name="Design note (note.md)").wait_for(timeout=600_000)
    settle(page)
    page.get_by_text("Preview of note.md").click()
    page.wait_for_selector("[data-testid='stImage'] img", timeout=WAIT_MS)
    settle(page)
    shoot(page, out, "export")


#: In this order: the What-if step saves a variant and plays games, which would show on the other pages.
SHOTS = {"overview": overview, "rules-a-b": rules_ab, "compositions": compositions,
         "replay": replay, "summary-form": summary_form, "export": export,
         "whatif": whatif}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--db", type=Path, default=ROOT / "data" / "pmim.duckdb", help="the database to show (copied)")
    ap.add_argument("--out", type=Path, default=ROOT / "docs" / "screenshots", help="where the PNG files go")
    ap.add_argument("--only", choices=sorted(SHOTS), action="append", help="take only these (repeatable)")
    a = ap.parse_args()
    if not a.db.is_file():
        print(f"error: no database at {a.db}; build the demo with `make run` or `pmim demo`", file=sys.stderr)
        return 2
    if not Path(CHROMIUM).exists():
        print(f"error: no Chromium at {CHROMIUM}; run scripts/ensure-chromium.sh", file=sys.stderr)
        return 2
    fonts = subprocess.run(["fc-list"], capture_output=True, text=True).stdout if shutil.which("fc-list") else ""
    if "emoji" not in fonts.lower():
        print("warning: no emoji font (Debian: apt-get install fonts-noto-color-emoji); icons will be boxes",
              file=sys.stderr)
    from playwright.sync_api import sync_playwright

    a.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="pmim-shots-") as tmp:
        work = Path(tmp)
        db, data = scratch_copy(a.db, work)
        with streamlit_server(db, data, work) as url, sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
            try:
                page = browser.new_page(viewport=SCREEN)
                for name in a.only or SHOTS:
                    SHOTS[name](page, url, a.out)
            finally:
                browser.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
