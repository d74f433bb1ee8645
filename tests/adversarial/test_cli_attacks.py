"""The attack suite: hostile inputs against the real ``pmim`` command and real DuckDB files.

Every command runs in a child process whose address space is capped
(``resource.setrlimit(RLIMIT_AS)`` in the child), so an input that makes pmim allocate
without bound fails fast here instead of exhausting the machine. Where memory is the point
(:func:`_rss_of`) the child's data is also capped at :data:`MAX_RSS_MB` (``RLIMIT_DATA``: the
heap and every private mapping; the address space itself cannot be, DuckDB and the libraries
reserve more than that without using it), it must exit with its refusal, and its peak memory
is read back (``os.wait4``) and must stay under :data:`MAX_RSS_MB`. An ingest that refuses
hostile files and stores the good ones of the same run is held to the same peak (its largest
process, read back the same way by :func:`pmim`). Each case checks the one-sentence refusal,
the documented exit code, and that the good inputs of the same run are stored. Every run prints
its exit code, its wall time, its CPU time (user + system, its own waited-for processes
included) and its peak memory, with the load average: the cost of refusing a hostile input,
printed, never asserted (see them with ``pytest -s``). On a busy machine the wall time grows
with the load; the CPU time is what the refusal itself costs.
"""

from __future__ import annotations

import json
import os
import resource
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import duckdb
import pytest

from pmim_analytics.limits import MAX_COUNT_PER_ENTRY, MAX_JSON_DEPTH, MAX_REPLAY_BYTES
from pmim_analytics.replay.format import write_game
from pmim_analytics.rules import load_army, validate_army
from pmim_analytics.rules.catalogue import REPO_ROOT
from pmim_analytics.sim.batch import BatchSpec, play_batch_game
from tests.conftest import ARMIES

PMIM = str(Path(sys.executable).parent / "pmim")
AS_LIMIT = 3 * 1024**3  # address space: DuckDB and the libraries reserve ~1.5 GB of it
MAX_RSS_MB = 300
SAMPLE_LOG = REPO_ROOT / "data" / "playtests" / "sample-quick-v3.pmimlog"


@dataclass
class Run:
    code: int
    out: str
    err: str
    rss_mb: float
    seconds: float
    cpu: float = 0.0


def cpu_seconds() -> float:
    """User + system CPU of this process's waited-for children so far (each child counts its
    own waited-for children): the difference around one run is that run's CPU."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timing(seconds: float, cpu: float) -> str:
    """How long a run took, wall and CPU, with the machine's load: the printed figure."""
    return f"{seconds:.2f} s wall, {cpu:.2f} s CPU (load {os.getloadavg()[0]:.1f})"


def _cap() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (AS_LIMIT, AS_LIMIT))


def _short(args: list[str] | tuple[str, ...]) -> str:
    """The command line with each path cut to its file name (for the printed figures)."""
    return " ".join(Path(a).name if "/" in a else a for a in args)


# Every measured run is forked by a small launcher process, never by this (large) test process:
# Linux counts the memory of the process that forks into the child's peak (``ru_maxrss`` keeps
# the high-water mark across ``exec``), so a child forked here would carry this worker's own
# hundreds of MB, which grow with the tests it ran before. The launcher caps its child, runs it,
# and writes the child's exit status and resource use to a file.
LAUNCHER = """
import json, os, resource, sys
report, as_limit, data_limit, argv = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4:]
pid = os.fork()
if pid == 0:
    resource.setrlimit(resource.RLIMIT_AS, (as_limit, as_limit))
    if data_limit:
        resource.setrlimit(resource.RLIMIT_DATA, (data_limit, data_limit))
    os.execv(argv[0], argv)
_, status, usage = os.wait4(pid, 0)
with open(report, "w") as f:
    json.dump({"status": status, "cpu": usage.ru_utime + usage.ru_stime, "maxrss": usage.ru_maxrss}, f)
"""


def _launch(argv: list[str], cwd: Path, env: dict[str, str] | None, stdout: object, stderr: object, timeout: float,
            data_limit: int = 0) -> tuple[int, float, float]:
    """Run ``argv`` capped, through the launcher; its exit code, CPU seconds and peak memory (MB)."""
    with tempfile.TemporaryDirectory() as tmp:
        report = Path(tmp) / "usage.json"
        proc = subprocess.Popen([sys.executable, "-S", "-c", LAUNCHER, str(report), str(AS_LIMIT), str(data_limit),
                                 *argv], cwd=cwd, stdout=stdout, stderr=stderr, stdin=subprocess.DEVNULL,
                                env=env, start_new_session=True)
        try:
            proc.wait(timeout=timeout)  # a guard against a hang, not a speed check
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            raise AssertionError(f"{' '.join(argv)} hung for {timeout} s") from None
        found = json.loads(report.read_text())
    return os.waitstatus_to_exitcode(found["status"]), found["cpu"], found["maxrss"] / 1024


def pmim(*args: str, cwd: Path | None = None, timeout: float = 600, env: dict[str, str] | None = None) -> Run:
    """Run ``pmim ARGS`` capped; return exit code, output, and the run's own peak memory (the
    largest of its processes, read back with ``os.wait4`` by the launcher) and CPU."""
    started = time.monotonic()
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        code, cpu, rss = _launch([PMIM, *args], cwd or REPO_ROOT, {**os.environ, "COLUMNS": "200", **(env or {})},
                                 out, err, timeout)
        out.seek(0)
        err.seek(0)
        # as text=True reads them: UTF-8, and universal newlines
        stdout, stderr = (f.read().decode("utf-8", "replace").replace("\r\n", "\n").replace("\r", "\n")
                          for f in (out, err))
    seconds = time.monotonic() - started
    print(f"pmim {_short(args)}: exit {code} after {timing(seconds, cpu)}, peak {rss:.0f} MB")
    return Run(code, stdout, stderr, rss, seconds, cpu)


def _rss_of(args: list[str], cwd: Path, code: int = 2) -> float:
    """Peak memory (MB) of one run, measured on that child alone, its data capped at
    :data:`MAX_RSS_MB`; the run must end with exit ``code`` (its refusal), not a MemoryError."""
    started = time.monotonic()
    got, cpu, rss = _launch([PMIM, *args], cwd, None, subprocess.DEVNULL, subprocess.DEVNULL, 600,
                            data_limit=MAX_RSS_MB * 1024**2)
    print(f"pmim {_short(args)}: exit {got} after {timing(time.monotonic() - started, cpu)}, peak {rss:.0f} MB "
          f"(data capped at {MAX_RSS_MB} MB)")
    assert got == code, f"pmim {' '.join(args)} did not end with exit {code}"
    return rss


def games_in(db: Path) -> int:
    con = duckdb.connect(str(db), read_only=True)
    try:
        return con.execute("SELECT count(*) FROM games").fetchall()[0][0]
    finally:
        con.close()


@pytest.fixture(scope="module")
def good_replays(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    folder = tmp_path_factory.mktemp("good")
    a = validate_army(load_army(ARMIES / "v3-balanced.yaml"), "v3")
    b = validate_army(load_army(ARMIES / "v3-tank-heavy.yaml"), "v3")
    batch = BatchSpec("v3", "take-and-hold", a, b, "greedy", "greedy", seed=9, games=3)
    return [write_game(play_batch_game(batch, n), folder / f"good-{n}.jsonl") for n in range(3)]


def _log(folder: Path, name: str, player: str, edit: dict[str, str] | None = None) -> Path:
    """The sample quick log with another blue player (so another game), lines replaced by prefix."""
    p = folder / name
    p.write_text(_log_text(player, edit), encoding="utf-8")
    return p


def _log_text(player: str, edit: dict[str, str] | None = None) -> str:
    lines = SAMPLE_LOG.read_text(encoding="utf-8").splitlines()
    out = []
    for line in lines:
        if line.startswith("blue player:"):
            line = f"blue player: {player}"
        for prefix, new in (edit or {}).items():
            if line.startswith(prefix):
                line = new
        out.append(line)
    if edit and "scenario:" in edit and not any(x.startswith("scenario:") for x in lines):
        out.insert(next(i for i, x in enumerate(out) if x.startswith("rules:")) + 1, edit["scenario:"])
    return "\n".join(out) + "\n"


def test_an_army_entry_of_10_to_the_12_units_is_refused_at_once(tmp_path: Path) -> None:
    army = tmp_path / "huge.yaml"
    army.write_text("name: Huge\nrules: v3\nunits:\n  - type: IN\n    weapons: [LAC]\n    count: 1000000000000\n")
    r = pmim("army", "validate", str(army))
    assert r.code == 2 and "MAX_COUNT_PER_ENTRY" in r.err and "Traceback" not in r.err
    assert _rss_of(["army", "validate", str(army)], tmp_path) < MAX_RSS_MB


def test_an_army_list_of_a_million_units_is_refused_by_its_size(tmp_path: Path) -> None:
    army = tmp_path / "million.yaml"
    with army.open("w") as fh:
        fh.write("name: Million\nrules: v3\nunits:\n")
        fh.write("  - {type: IN, weapons: [LAC]}\n" * 1_000_000)
    r = pmim("army", "validate", str(army))
    assert r.code == 2 and "limit for an army list" in r.err
    assert _rss_of(["army", "validate", str(army)], tmp_path) < MAX_RSS_MB


def test_logs_with_a_huge_inline_army_an_impossible_result_or_a_path_as_scenario_are_refused(
        tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    logs.mkdir()
    _log(logs, "good-1.pmimlog", "Ann")
    _log(logs, "good-2.pmimlog", "Bea")
    _log(logs, "huge.pmimlog", "Cid", HUGE_ARMY)
    (logs / "vp.pmimlog").write_text(_impossible_result(), encoding="utf-8")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "evil.yaml").write_text((REPO_ROOT / "data" / "scenarios" / "take-and-hold.yaml").read_text())
    rel = os.path.relpath(outside / "evil", REPO_ROOT / "data" / "scenarios")
    _log(logs, "path.pmimlog", "Eve", {"scenario:": f"scenario: {rel}"})
    db = tmp_path / "pmim.duckdb"
    r = pmim("ingest", str(logs), "--db", str(db), "-q")
    assert r.code == 1 and "Traceback" not in r.err, r.err
    assert games_in(db) == 2 and r.rss_mb < MAX_RSS_MB
    lines = [x for x in r.err.splitlines() if x.startswith("rejected:")]
    assert len(lines) == 3
    assert any("huge.pmimlog" in x and str(MAX_COUNT_PER_ENTRY) in x for x in lines)
    assert any("vp.pmimlog" in x and "impossible" in x for x in lines)
    assert any("path.pmimlog" in x and "unknown scenario" in x and "take-and-hold" in x for x in lines)


def test_a_deep_json_header_a_fifo_and_dev_zero_are_refused_and_the_good_replays_load(
        tmp_path: Path, good_replays: list[Path]) -> None:
    folder = tmp_path / "in"
    folder.mkdir()
    for p in good_replays:
        (folder / p.name).write_bytes(p.read_bytes())
    (folder / "deep.jsonl").write_text("[" * 100_000 + "]" * 100_000 + "\n")
    os.mkfifo(folder / "x.jsonl")
    os.symlink("/dev/zero", folder / "zero.jsonl")
    db = tmp_path / "pmim.duckdb"
    named = [str(folder / n) for n in ("deep.jsonl", "x.jsonl", "zero.jsonl")] + [str(p) for p in good_replays]
    r = pmim("ingest", *named, "--db", str(db), "-q", timeout=600)
    assert r.code == 1 and "Traceback" not in r.err and "RecursionError" not in r.err, r.err
    assert games_in(db) == len(good_replays) and r.rss_mb < MAX_RSS_MB
    assert f"deeper than {MAX_JSON_DEPTH}" in r.err and r.err.count("not a regular file") == 2
    v = pmim("replay", "verify", *named, timeout=600)
    assert v.code == 2 and "3 file(s) unreadable" in v.err and f"{len(good_replays)} game(s) checked" in v.err


def test_a_replay_over_the_size_limit_is_refused_by_verify_and_ingest_alike(
        tmp_path: Path, good_replays: list[Path]) -> None:
    big = tmp_path / "big.jsonl"
    with big.open("wb") as fh:
        fh.write(good_replays[0].read_bytes())
        fh.write(b" " * (MAX_REPLAY_BYTES + 1))
    db = tmp_path / "pmim.duckdb"
    r = pmim("ingest", str(big), str(good_replays[1]), "--db", str(db), "-q")
    assert r.code == 1 and "too large" in r.err and games_in(db) == 1 and r.rss_mb < MAX_RSS_MB
    v = pmim("replay", "verify", str(big), str(good_replays[1]))
    assert v.code == 2 and "too large" in v.err and "1 game(s) checked" in v.err
    assert _rss_of(["replay", "verify", str(big)], tmp_path) < MAX_RSS_MB


def test_a_newer_or_truncated_database_is_left_as_it_was(tmp_path: Path, good_replays: list[Path]) -> None:
    db = tmp_path / "pmim.duckdb"
    assert pmim("ingest", str(good_replays[0]), "--db", str(db), "-q").code == 0
    newer = tmp_path / "newer.duckdb"
    newer.write_bytes(db.read_bytes())
    con = duckdb.connect(str(newer))
    con.execute("INSERT INTO schema_version (version) VALUES (999)")
    con.close()
    before = newer.read_bytes()
    for args in (["ingest", str(good_replays[1])], ["db", "info"], ["report", "units"]):
        r = pmim(*args, "--db", str(newer))
        assert r.code == 2 and "newer than this tool" in r.err and "Traceback" not in r.err, (args, r.err)
    assert newer.read_bytes() == before
    cut = tmp_path / "cut.duckdb"
    cut.write_bytes(db.read_bytes()[: 100_000])
    before = cut.read_bytes()
    r = pmim("ingest", str(good_replays[1]), "--db", str(cut))
    assert r.code == 2 and "not a whole DuckDB database" in r.err and cut.read_bytes() == before


def test_export_refuses_to_write_over_a_file_or_below_one(tmp_path: Path, good_replays: list[Path]) -> None:
    db = tmp_path / "pmim.duckdb"
    assert pmim("ingest", str(good_replays[0]), "--db", str(db), "-q").code == 0
    target = tmp_path / "notes.md"
    target.write_text("mine")
    for out in (target, target / "sub"):
        r = pmim("export", "--db", str(db), "--out", str(out))
        assert r.code == 2 and "is a file" in r.err and "Traceback" not in r.err
    assert target.read_text() == "mine"


def test_ctrl_c_inside_a_checked_ingest_exits_130_keeps_committed_batches_and_a_rerun_completes(
        tmp_path: Path, good_replays: list[Path]) -> None:
    folder = tmp_path / "in"
    logs = tmp_path / "logs"
    folder.mkdir()
    logs.mkdir()
    for p in good_replays:
        (folder / p.name).write_bytes(p.read_bytes())
    _log(logs, "a.pmimlog", "Ann")  # the manual logs are the second batch
    db = tmp_path / "pmim.duckdb"
    proc = subprocess.Popen([PMIM, "ingest", str(folder), str(logs), "--db", str(db), "-q"], cwd=REPO_ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, preexec_fn=_cap,
                            env={**os.environ, "PMIM_TEST_PAUSE_BEFORE_COMMIT": "2:60"})
    assert proc.stderr is not None
    deadline = time.monotonic() + 600
    while "pausing before commit 2" not in proc.stderr.readline():
        assert proc.poll() is None and time.monotonic() < deadline, "the ingest never reached batch 2"
    sent = time.monotonic()
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=300)  # a hang guard; the time taken is printed below
    print(f"Ctrl-C to exit: {time.monotonic() - sent:.2f} s")
    assert proc.returncode == 130 and "rolled back" in err
    assert f"loaded {len(good_replays)} games" in out and "1 input not read" in out
    assert games_in(db) == len(good_replays)  # batch 1 kept, batch 2 rolled back
    r = pmim("ingest", str(folder), str(logs), "--db", str(db), "-q")
    assert r.code == 0 and "loaded 1 game" in r.out and games_in(db) == len(good_replays) + 1


def test_an_army_named_like_a_formula_and_a_tag_exports_inert(tmp_path: Path) -> None:
    evil = '=HYPERLINK("http://evil.example","x")<img src=x onerror=alert(1)>'
    a = validate_army(load_army(ARMIES / "v3-balanced.yaml").model_copy(update={"name": evil}), "v3")
    b = validate_army(load_army(ARMIES / "v3-tank-heavy.yaml"), "v3")
    batch = BatchSpec("v3", "take-and-hold", a, b, "greedy", "greedy", seed=4, games=4)
    folder = tmp_path / "in"
    for n in range(4):
        write_game(play_batch_game(batch, n), folder / f"g{n}.jsonl")
    db = tmp_path / "pmim.duckdb"
    assert pmim("ingest", str(folder), "--db", str(db), "-q").code == 0
    out = tmp_path / "notes"
    # no PNG figures: Chromium cannot start under the address-space cap every pmim() run has
    r = pmim("export", "--db", str(db), "--out", str(out), "--no-png", timeout=300)
    assert r.code == 0, r.err
    for md in ("report.md", "note.md"):
        assert "<img" not in (out / md).read_text(encoding="utf-8")
    cells = []
    for csv in (out / "tables").glob("*.csv"):
        text = csv.read_text(encoding="utf-8")
        cells += [c.strip('"') for line in text.splitlines() for c in line.split(",")]
        assert not any(line.startswith(("=", "+", "@")) for line in text.splitlines())
    assert any(c.startswith("'=HYPERLINK") for c in cells)  # the name is there, as text
    assert not any(c.startswith("=") for c in cells)


HUGE_ARMY = {"blue army:": "blue army: 1000000000000xIN(LAC)"}


def _impossible_result() -> str:
    """A summary log (the header and the result only) with a result of 500 VP."""
    text = _log_text("Dan", {"result:": "result: blue vp 500-7"})
    return text[: text.index("\nR1\n")] + "\nresult: blue vp 500-7\n"


def bad_logs() -> dict[str, str]:
    """The logs this file writes to be refused (for test_reader_engine_differential.py)."""
    return {"attack: a huge inline army": _log_text("Cid", HUGE_ARMY),
            "attack: an impossible result": _impossible_result(),
            "attack: a path as scenario": _log_text("Eve", {"scenario:": "scenario: ../../outside/evil"})}
