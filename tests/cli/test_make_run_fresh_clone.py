"""`make run` on a fresh clone in a folder with spaces, as a new user runs it: the dashboard
answers with the core demo while the rest builds in the background, every stage prints a line
when piped, and a second `make run` reuses everything. It installs a virtual environment (a
minute or two), so it runs only when selected: ``pytest -m fresh_clone``. It prints the seconds
to the first answer; ``scripts/time_make_run.py`` also waits for the whole demo."""

from __future__ import annotations

import importlib.util
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from pmim_analytics.demo import FULL_DEMO, core_size, demo_steps, read_status

ROOT = Path(__file__).resolve().parents[2]
pytestmark = [pytest.mark.slow, pytest.mark.fresh_clone]


@pytest.fixture(autouse=True)
def _only_when_selected(request: pytest.FixtureRequest) -> None:
    if "fresh_clone" not in (request.config.getoption("-m") or ""):
        pytest.skip("installs a fresh clone: select it with -m fresh_clone")
    if shutil.which("make") is None or shutil.which("python3.11") is None or shutil.which("git") is None:
        pytest.skip("needs make, git and python3.11")


def _script():  # noqa: ANN202 (the module)
    spec = importlib.util.spec_from_file_location("time_make_run", ROOT / "scripts" / "time_make_run.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def test_make_run_on_a_fresh_clone_answers_from_the_core_and_a_second_run_reuses_it(tmp_path: Path) -> None:
    if subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=ROOT, capture_output=True,
                      text=True).stdout.strip():
        print("note: the clone takes the committed HEAD; uncommitted changes are not in it")
    work = tmp_path / "a folder with spaces"
    work.mkdir()
    t = _script().time_make_run(work, full=False, again=True, timeout=900, echo=False)
    print("\n" + t.text())
    text = [line for _, line in t.lines]
    assert t.first_answer is not None, "\n".join(text[-40:])
    assert " " in str(t.clone)

    def at(pattern: str) -> int:
        found = [i for i, line in enumerate(text) if re.search(pattern, line)]
        assert found, f"no line matches {pattern!r}:\n" + "\n".join(text[-60:])
        return found[0]

    # a line per stage, in order, and the core's progress line by line (output piped, not a terminal)
    steps = demo_steps(FULL_DEMO)
    core_games, core_steps = core_size(FULL_DEMO)
    order = [at(r"make run \[1/4\] set-up: installing"), at(r"make run \[2/4\] checks"),
             at(r"make run \[3/4\] core demo"), at(r"^core demo: simulated demo-tactician-v3-"),
             at(rf"^core demo: {core_steps} of {len(steps)} batches, {core_games:,} of "
                rf"{sum(s.games for s in steps):,} games stored"),
             at(r"building the rest of the demo in the background \(process \d+\)"),
             at(r"make run \[4/4\] dashboard: http://127\.0\.0\.1:\d+")]
    assert order == sorted(order)
    if t.games_shown:  # judged in Chromium: the Overview counts the core's games (and whatever landed since)
        logs = len(list((ROOT / "data" / "playtests").glob("*.pmimlog")))
        assert int(t.games_shown.replace(",", "")) >= core_games - FULL_DEMO.ladder_games + logs
    # the second run installs nothing and builds no core again
    again = [line for _, line in t.again]
    assert t.again_answer is not None, "\n".join(again[-40:])
    assert not any("installing" in line or "simulated" in line for line in again)
    assert any(line.startswith("core demo ready") or "already stored" in line for line in again)
    status = read_status(t.clone / "replays" / "demo")
    assert status and status["core_done"] and status["state"] in ("stopped", "done")
