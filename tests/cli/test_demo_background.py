"""``pmim demo --core`` then ``--background``: the quick core, the rest built batch by batch in a
process of its own, its status, a second run that goes on instead of starting again, and a
builder killed in the middle of storing a batch (nothing of that batch in the database).

Real processes on the small plan (52 games in 11 batches, the ladder one of them)."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from pmim_analytics.demo import FULL_DEMO, LOG_FILE, SMALL_DEMO, core_size, demo_status, demo_steps
from pmim_analytics.store.connection import read_frame
from pmim_analytics.store.ingest import PAUSE_HOOK_ENV

ROOT = Path(__file__).resolve().parents[2]
STEPS = demo_steps(SMALL_DEMO)
GAMES = {s.name: s.games for s in STEPS if not s.is_ladder}


def pmim(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pmim_analytics", *args], capture_output=True, text=True,
                          cwd=ROOT, env={**os.environ, **(env or {})}, timeout=300)


def demo(tmp: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    return pmim("demo", "--plan", "small", "--replays", str(tmp / "rep"), "--db", str(tmp / "demo.duckdb"), *args,
                env=env)


@pytest.fixture(scope="module")
def core_built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The small demo's core, built once (a test takes a copy: :func:`with_core`)."""
    tmp = tmp_path_factory.mktemp("core")
    r = demo(tmp, "--core")
    assert r.returncode == 0, r.stderr
    (tmp / "core.out").write_text(r.stdout)
    (tmp / "core.err").write_text(r.stderr)
    return tmp


def with_core(core_built: Path, tmp: Path) -> None:
    shutil.copy(core_built / "demo.duckdb", tmp / "demo.duckdb")
    shutil.copytree(core_built / "rep", tmp / "rep", ignore=shutil.ignore_patterns("*.lock"))


def stored(db: Path) -> dict[str, int]:
    f = read_frame("SELECT batch, count(*) AS n FROM games WHERE source = 'engine' GROUP BY batch", db=db)
    return dict(zip(f["batch"].to_list(), f["n"].to_list(), strict=True))


def wait_for(check, seconds: float = 240.0, what: str = "") -> None:  # noqa: ANN001
    deadline = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < deadline, f"gave up waiting for {what}"
        time.sleep(0.5)


def test_the_core_is_counted_as_the_steps_mark_it() -> None:
    for spec in (FULL_DEMO, SMALL_DEMO):
        core = [s for s in demo_steps(spec) if s.core]
        assert core_size(spec) == (sum(s.games for s in core), len(core))
        assert core[-1].is_ladder and all(s.bot == spec.core_bot for s in core)
    assert core_size(FULL_DEMO) == (550, 11)  # 10 pairings x 40 tactician games, 150 ladder games


def test_core_then_background_builds_the_rest_and_says_how_far(core_built: Path, tmp_path: Path) -> None:
    with_core(core_built, tmp_path)
    # piped, the progress is plain lines: one per simulated batch and per stored group
    assert "core demo: simulated demo-v3-v3-balanced-vs-v3-tank-heavy" in (core_built / "core.err").read_text()
    assert "core demo: 4 of 11 batches, 20 of 52 games stored" in (core_built / "core.err").read_text()
    core = {s.name: s.games for s in STEPS if s.core and not s.is_ladder}
    assert stored(tmp_path / "demo.duckdb") == core
    ladder = read_frame("SELECT bots, games FROM ladder_runs", db=tmp_path / "demo.duckdb")
    assert ladder.rows() == [("random,greedy", SMALL_DEMO.ladder_games)]
    st = demo_status(tmp_path / "rep")
    assert st is not None and st.core_done and (st.steps_done, st.steps_total) == (4, 11)
    assert st.state == "stopped" and "`pmim demo --background` finishes it" in st.sentence()

    # a second --core goes on from where it is: nothing simulated or loaded again
    again = demo(tmp_path, "--core")
    assert again.returncode == 0, again.stderr
    assert "4 of 11 batches already stored" in again.stderr and "core demo: simulated" not in again.stderr
    assert "this run loaded 0 games" in again.stdout

    bg = demo(tmp_path, "--core", "--background")  # what make run does: the core is there, so straight on
    assert bg.returncode == 0, bg.stderr
    assert "building the rest of the demo in the background (process" in bg.stdout
    pid = json.loads((tmp_path / "rep" / "status.json").read_text())["pid"]
    try:
        wait_for(lambda: (s := demo_status(tmp_path / "rep")) is not None and s.state == "done",
                 what="the background build")
    finally:
        if demo_status(tmp_path / "rep").building:  # type: ignore[union-attr]
            os.killpg(pid, signal.SIGKILL)
    assert stored(tmp_path / "demo.duckdb") == GAMES
    log = (tmp_path / "rep" / LOG_FILE).read_text()
    assert "demo: 4 of 11 batches already stored; going on" in log and "demo: 11 of 11 batches" in log
    status = pmim("demo", "--status", "--replays", str(tmp_path / "rep"))
    assert status.stdout.strip() == "demo complete: 11 batches, 52 games"
    # and a whole build is not started again
    last = demo(tmp_path)
    assert last.returncode == 0 and "this run loaded 0 games" in last.stdout


def test_a_builder_killed_while_storing_leaves_no_half_batch_and_the_next_run_completes(core_built: Path,
                                                                                      tmp_path: Path) -> None:
    with_core(core_built, tmp_path)
    # the builder pauses inside its first ingest's transaction (the logs came with the core, so
    # that is the first group of new batches): killed there, none of the group may show
    bg = demo(tmp_path, "--background", env={PAUSE_HOOK_ENV: "1:60"})
    assert bg.returncode == 0, bg.stderr
    pid = json.loads((tmp_path / "rep" / "status.json").read_text())["pid"]
    log = tmp_path / "rep" / LOG_FILE
    try:
        wait_for(lambda: "pausing before commit" in log.read_text(), what="the builder to store a group")
        assert "demo: storing the batches simulated so far" in log.read_text()
        st = demo_status(tmp_path / "rep")
        assert st is not None and st.building and "demo still building: 4 of 11 batches" in st.sentence()
    finally:
        os.killpg(pid, signal.SIGKILL)
    wait_for(lambda: not demo_status(tmp_path / "rep").building, 30, "the lock to go")  # type: ignore[union-attr]
    st = demo_status(tmp_path / "rep")
    assert st is not None and st.state == "stopped" and st.steps_done == 4
    have = stored(tmp_path / "demo.duckdb")
    assert have == {s.name: s.games for s in STEPS if s.core and not s.is_ladder}
    # on disk: every batch folder is whole (simulated batches wait to be stored), no partial one
    rep = tmp_path / "rep"
    assert not list(rep.glob(".partial-*"))
    assert all((f / ".complete").exists() for f in rep.glob("demo-*"))

    again = demo(tmp_path)
    assert again.returncode == 0, again.stderr
    # the killed run's batches were whole: only stored now (the random armies come after them)
    assert [line for line in again.stderr.splitlines() if "demo: simulated" in line] == [
        line for line in again.stderr.splitlines() if "demo: simulated demo-random-v3 " in line]
    assert "demo: simulated demo-random-v3 " in again.stderr
    assert stored(tmp_path / "demo.duckdb") == GAMES
    assert demo_status(tmp_path / "rep").state == "done"  # type: ignore[union-attr]


def test_stop_rolls_back_the_batch_in_flight(core_built: Path, tmp_path: Path) -> None:
    with_core(core_built, tmp_path)
    bg = demo(tmp_path, "--background", env={PAUSE_HOOK_ENV: "1:60"})
    assert bg.returncode == 0, bg.stderr
    log = tmp_path / "rep" / LOG_FILE
    pid = json.loads((tmp_path / "rep" / "status.json").read_text())["pid"]
    try:
        wait_for(lambda: "pausing before commit" in log.read_text(), what="the builder to store a group")
        stop = pmim("demo", "--stop", "--replays", str(tmp_path / "rep"))
        assert stop.returncode == 0 and f"process {pid}" in stop.stdout
        wait_for(lambda: not demo_status(tmp_path / "rep").building, 60, "the builder to stop")  # type: ignore[union-attr]
    finally:
        if demo_status(tmp_path / "rep").building:  # type: ignore[union-attr]
            os.killpg(pid, signal.SIGKILL)
    assert "interrupted after 4 of 11 batches" in log.read_text()
    assert stored(tmp_path / "demo.duckdb") == {s.name: s.games for s in STEPS if s.core and not s.is_ladder}
    assert pmim("demo", "--status", "--replays", str(tmp_path / "rep")).stdout.startswith(
        "demo build stopped at 4 of 11 batches")


@pytest.mark.parametrize(("args", "says"), [
    (("--status", "--stop"), "--status and --stop cannot be combined"),
    (("--plan", "huge"), "unknown --plan 'huge'; choose one of full, small"),
])
def test_bad_demo_options_are_refused_in_one_sentence(tmp_path: Path, args: tuple[str, ...], says: str) -> None:
    r = pmim("demo", "--replays", str(tmp_path / "rep"), "--db", str(tmp_path / "x.duckdb"), *args)
    assert r.returncode == 2 and says in r.stderr and "Traceback" not in r.stderr
    assert not (tmp_path / "x.duckdb").exists()


def test_a_folder_of_one_plan_is_not_mixed_with_another(tmp_path: Path) -> None:
    (tmp_path / "rep").mkdir()
    (tmp_path / "rep" / "status.json").write_text(json.dumps({"demo": "full", "state": "stopped"}))
    r = demo(tmp_path, "--core")
    assert r.returncode == 2 and "holds the full demo; build the small one in another folder" in r.stderr


def test_the_dashboard_says_the_demo_is_still_building(small_demo_db: Path, tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    from streamlit.testing.v1 import AppTest

    from pmim_analytics.demo import BuildProgress, StatusWriter, builder_lock

    steps = demo_steps(SMALL_DEMO)
    monkeypatch.setenv("PMIM_DB", str(small_demo_db))
    monkeypatch.setenv("PMIM_DEMO_DIR", str(tmp_path / "rep"))
    app = str(ROOT / "app" / "streamlit_app.py")
    with builder_lock(tmp_path / "rep") as mine:
        assert mine
        status = StatusWriter(tmp_path / "rep", "small", steps, small_demo_db)
        for s in steps[:3]:
            status.done(s)
        status.update(BuildProgress("start", steps[3].name, 3, 11, 12, 52, 1.0))
        at = AppTest.from_file(app, default_timeout=90).run()
        banners = [i.value for i in at.info if "demo still building" in i.value]
        assert banners and banners[0].startswith("demo still building: 3 of 11 batches (12 of 52 games)")
        # another database: not its demo, no banner
        monkeypatch.setenv("PMIM_DB", str(tmp_path / "other.duckdb"))
        at = AppTest.from_file(app, default_timeout=90).run()
        assert not [i for i in at.info if "demo still building" in i.value]
    monkeypatch.setenv("PMIM_DB", str(small_demo_db))
    at = AppTest.from_file(app, default_timeout=90).run()  # the builder is gone: a stopped build is a caption
    assert not [i for i in at.info if "demo still building" in i.value]
    assert any("demo build stopped at 3 of 11 batches" in c.value for c in at.caption)


def test_the_estimate_counts_each_bot_at_its_own_pace_from_its_first_batch(tmp_path: Path) -> None:
    from pmim_analytics.demo import BuildProgress, StatusWriter

    steps = demo_steps(SMALL_DEMO)  # 3 tactician batches of 4 games, the ladder, random and greedy batches
    status = StatusWriter(tmp_path, "small", steps, tmp_path / "x.duckdb")

    def simulated(i: int, seconds: float) -> None:
        status.rate(steps[i].bot, steps[i].games, seconds)
        status.update(BuildProgress("simulated", steps[i].name, 0, 11, 0, 52, 1.0))

    simulated(0, 2.0)  # tactician: 0.5 s a game; random and greedy have no pace yet
    assert status.data["seconds_left"] is None
    simulated(4, 0.4)  # random: 0.1 s a game
    assert steps[4].bot == "random" and status.data["seconds_left"] is None
    simulated(5, 0.8)  # greedy: 0.2 s a game; now every bot still to play has a pace
    left = {s.bot: 0.0 for s in steps}
    for s in steps[1:4] + steps[6:]:
        left[s.bot] += s.games * {"tactician": 0.5, "random": 0.1, "greedy": 0.2}[s.bot]
    assert status.data["seconds_left"] == pytest.approx(sum(left.values()), abs=0.1)
    # read back with no builder holding the folder: a stopped build promises no time
    assert demo_status(tmp_path) is not None and demo_status(tmp_path).seconds_left is None  # type: ignore[union-attr]
