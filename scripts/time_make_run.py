"""Time `make run` on a fresh clone: seconds to the dashboard's first answer, and to the whole demo.

Clones this repository (its committed HEAD) into a new folder whose path has spaces, runs
`make run` there on a free port with its output piped (as a log or CI sees it), and prints
each line it writes with the seconds since the start. The first answer is the Overview page
showing its game count in Chromium (Playwright, when installed; else the server's health
check). Then, unless --no-full, it waits for the background build to finish the demo. At the
end it stops the dashboard and the builder it started, and removes the clone (unless --keep).

    .venv/bin/python scripts/time_make_run.py            # both figures (the whole demo takes a while)
    .venv/bin/python scripts/time_make_run.py --no-full  # the first answer only, and a second `make run`
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = "/usr/bin/chromium"


@dataclass
class Timing:
    """What one timed run saw: the lines `make run` wrote (seconds since its start, line), the
    seconds to the set-up's end, to the first answer and to the whole demo (None if not reached),
    how the first answer was judged, and the clone's folder."""

    clone: Path
    lines: list[tuple[float, str]] = field(default_factory=list)
    setup: float | None = None
    first_answer: float | None = None
    answered_by: str = ""
    games_shown: str = ""
    banner: str = ""
    full_demo: float | None = None
    full_state: str = ""
    again: list[tuple[float, str]] = field(default_factory=list)
    again_answer: float | None = None

    def text(self) -> str:
        def s(x: float | None) -> str:
            return f"{x:.0f} s" if x is not None else "not reached"

        rows = [f"set-up (venv and install): {s(self.setup)}",
                f"first answer ({self.answered_by}): {s(self.first_answer)}"
                + (f", Overview shows {self.games_shown} games" if self.games_shown else ""),
                f"whole demo: {s(self.full_demo)}" + (f" ({self.full_state})" if self.full_state else "")]
        if self.again_answer is not None:
            rows.append(f"second make run, to the dashboard: {s(self.again_answer)}")
        return "\n".join(rows)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _env() -> dict[str, str]:
    """The user's environment without the settings that would point the clone at other data."""
    drop = {"PMIM_DB", "PMIM_DATA", "PMIM_DEMO_DIR", "VIRTUAL_ENV", "PYTHONPATH", "MAKEFLAGS", "MAKELEVEL", "MFLAGS"}
    env = {k: v for k, v in os.environ.items() if k not in drop}
    env["PATH"] = os.pathsep.join(p for p in env.get("PATH", "").split(os.pathsep) if ".venv" not in p)
    return env


def _reader(proc: subprocess.Popen, t0: float, lines: list[tuple[float, str]], echo: bool) -> threading.Thread:
    def run() -> None:
        assert proc.stdout is not None
        for raw in proc.stdout:
            line = raw.rstrip("\n")
            t = time.monotonic() - t0
            lines.append((t, line))
            if echo:
                print(f"[{t:6.1f} s] {line}", flush=True)

    th = threading.Thread(target=run, daemon=True)
    th.start()
    return th


def _healthy(url: str) -> bool:
    try:
        with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as r:
            return bool(r.status == 200)
    except OSError:
        return False


def _overview(url: str, timing: Timing, t0: float, deadline: float) -> float | None:
    """Open the Overview in Chromium and wait until it shows its game count; the seconds since t0."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        return None
    if not Path(CHROMIUM).exists():
        return None
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
        try:
            page = browser.new_page(viewport={"width": 1440, "height": 900})
            page.goto(url, timeout=max(1.0, deadline - time.monotonic()) * 1000)
            metric = page.locator("[data-testid='stMetric']").filter(has_text="Games").first
            metric.wait_for(timeout=max(1.0, deadline - time.monotonic()) * 1000)
            at = time.monotonic() - t0
            timing.games_shown = metric.locator("[data-testid='stMetricValue']").inner_text().strip()
            banner = page.get_by_text(re.compile("demo still building")).first
            try:
                banner.wait_for(timeout=3000)
                timing.banner = banner.inner_text().strip()
            except Exception:  # noqa: BLE001 - the demo may be whole already
                timing.banner = ""
            return at
        finally:
            browser.close()


def _wait_answer(proc: subprocess.Popen, url: str, timing: Timing, t0: float, timeout: float,
                 browser: bool) -> float | None:
    deadline = t0 + timeout
    while not _healthy(url):
        if proc.poll() is not None or time.monotonic() > deadline:
            return None
        time.sleep(0.25)
    if browser:
        at = _overview(url, timing, t0, deadline)
        if at is not None:
            timing.answered_by = "Overview in Chromium shows its game count"
            return at
    timing.answered_by = "dashboard health check"
    return time.monotonic() - t0


def _status(clone: Path) -> dict:
    try:
        return dict(json.loads((clone / "replays" / "demo" / "status.json").read_text()))
    except (OSError, ValueError):
        return {}


def _stop(proc: subprocess.Popen) -> None:
    """Stop `make run` and the dashboard under it (their own process group)."""
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGINT)
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


def _stop_builder(clone: Path) -> None:
    """Stop the background builder this run started: ask it (`pmim demo --stop`), then make sure."""
    pmim = clone / ".venv" / "bin" / "pmim"
    pid = _status(clone).get("pid")
    if pmim.exists():
        subprocess.run([str(pmim), "demo", "--stop"], cwd=clone, env=_env(), capture_output=True, timeout=120)
    if isinstance(pid, int):
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                return
            time.sleep(0.5)
        try:
            os.killpg(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def _make_run(clone: Path, port: int, lines: list[tuple[float, str]], echo: bool) -> tuple[subprocess.Popen, float]:
    t0 = time.monotonic()
    proc = subprocess.Popen(["make", "run", f"DASH_PORT={port}", "DASH_ADDRESS=127.0.0.1"], cwd=clone, env=_env(),
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, bufsize=1,
                            start_new_session=True)
    _reader(proc, t0, lines, echo)
    return proc, t0


def time_make_run(work: Path, *, full: bool = True, again: bool = False, timeout: float = 600,
                  full_timeout: float = 7200, browser: bool = True, echo: bool = True,
                  source: Path = ROOT) -> Timing:
    """Clone ``source`` into ``work`` (a folder with spaces is made under it), run `make run`, time it."""
    clone = work / "fresh clone of pmim analytics"
    subprocess.run(["git", "clone", "--quiet", str(source), str(clone)], check=True)
    timing = Timing(clone)
    port = _free_port()
    url = f"http://127.0.0.1:{port}"
    proc, t0 = _make_run(clone, port, timing.lines, echo)
    try:
        timing.first_answer = _wait_answer(proc, url, timing, t0, timeout, browser)
        if echo and timing.first_answer is not None:
            print(f"[{timing.first_answer:6.1f} s] first answer ({timing.answered_by})"
                  + (f": the Overview shows {timing.games_shown} games" if timing.games_shown else ""), flush=True)
        timing.setup = next((t for t, line in timing.lines if "[1/4] set-up:" in line and "is ready" in line), None)
        if full and timing.first_answer is not None:
            deadline = time.monotonic() + full_timeout
            told = -1
            while time.monotonic() < deadline:
                st = _status(clone)
                if echo and st.get("steps_done", told) // 10 != told // 10:
                    told = int(st["steps_done"])
                    print(f"[{time.monotonic() - t0:6.1f} s] demo: {told} of {st.get('steps_total')} batches stored, "
                          f"load average {os.getloadavg()[0]:.1f}", flush=True)
                if st.get("state") in ("done", "failed"):
                    timing.full_state = str(st["state"])
                    timing.full_demo = time.monotonic() - t0 if st["state"] == "done" else None
                    break
                time.sleep(2)
        if again and timing.first_answer is not None:
            _stop(proc)
            proc, t1 = _make_run(clone, port, timing.again, echo)
            timing.again_answer = _wait_answer(proc, url, Timing(clone), t1, timeout, browser=False)
    finally:
        _stop(proc)
        _stop_builder(clone)
    return timing


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--no-full", action="store_true", help="Do not wait for the whole demo.")
    ap.add_argument("--again", action="store_true", help="Then run `make run` a second time in the same clone.")
    ap.add_argument("--keep", action="store_true", help="Keep the clone (its path is printed).")
    ap.add_argument("--no-browser", action="store_true", help="Judge the first answer by the health check only.")
    ap.add_argument("--timeout", type=float, default=600, help="Seconds to wait for the first answer.")
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="pmim time make run "))
    try:
        t = time_make_run(work, full=not args.no_full, again=args.again, timeout=args.timeout,
                          browser=not args.no_browser)
        print(f"\nmake run on a fresh clone ({t.clone}), load average {os.getloadavg()[0]:.1f}:")
        print(t.text())
        if t.banner:
            print(f"banner at the first answer: {t.banner}")
    finally:
        if args.keep:
            print(f"kept {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)
    sys.exit(0 if t.first_answer is not None else 1)


if __name__ == "__main__":
    main()
