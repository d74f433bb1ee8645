"""A damaged database or a failed write is one sentence with exit 2, never DuckDB's raw text.

A database cut short at several sizes (a copy or a download that stopped), from its first
block to a few megabytes in, is refused by ``ingest``, ``db info`` and a report alike, and
left byte for byte as it was; ``ingest`` never exits 0 having loaded nothing into it.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import duckdb
import pytest

from pmim_analytics.rules.catalogue import REPO_ROOT
from pmim_analytics.store.connection import rollback_quietly
from tests.adversarial.test_cli_attacks import PMIM, Run, _cap, cpu_seconds, good_replays, pmim, timing

__all__ = ["good_replays"]


@pytest.fixture(scope="module")
def whole(tmp_path_factory: pytest.TempPathFactory, good_replays: list[Path]) -> Path:
    db = tmp_path_factory.mktemp("db") / "pmim.duckdb"
    assert pmim("ingest", *map(str, good_replays), "--db", str(db), "-q").code == 0
    return db


#: Runs the command lines given as JSON on stdin one after the other in this one process, each
#: as the console script runs it (tests/support/cli.py), and prints each one's exit code, stdout
#: and stderr as JSON. An exception other than a command's own exit ends it with a traceback.
MANY = """import json, sys
from tests.support.cli import pmim_in_process
results = []
for args in json.load(sys.stdin):
    r = pmim_in_process(*args)
    results.append([r.returncode, r.stdout, r.stderr])
json.dump(results, sys.stdout)
"""


def test_a_database_cut_short_anywhere_is_one_sentence(tmp_path: Path, whole: Path,
                                                       good_replays: list[Path]) -> None:
    data = whole.read_bytes()
    sizes = sorted({n for n in (4096, 100_000, 1_000_000, 4 * 1024 * 1024, len(data) - 262_144) if 0 < n < len(data)})
    assert len(sizes) >= 4
    runs = []
    for n in sizes:
        cut = tmp_path / f"cut-{n}.duckdb"
        cut.write_bytes(data[:n])
        for args in (["ingest", str(good_replays[0]), "-q"], ["db", "info"], ["report", "units"]):
            runs.append((n, [*args, "--db", str(cut)]))
    # one real process, capped as pmim() caps it, runs all 15 commands (a crash, a hang or a
    # memory blow-up of any of them fails the test): one start-up instead of fifteen
    child = subprocess.run([sys.executable, "-c", MANY], input=json.dumps([args for _, args in runs]),
                           capture_output=True, text=True, timeout=300, preexec_fn=_cap, cwd=REPO_ROOT,
                           env={**os.environ, "COLUMNS": "200"})
    assert child.returncode == 0, child.stderr
    results = json.loads(child.stdout)
    assert len(results) == len(runs) == 3 * len(sizes)
    for (n, args), (code, out, err) in zip(runs, results, strict=True):
        assert code == 2, (n, args, code, out, err)
        assert "not a whole DuckDB database" in err and "IO Error" not in err and "Traceback" not in err
    for n in sizes:
        assert (tmp_path / f"cut-{n}.duckdb").read_bytes() == data[:n]


def test_a_rollback_with_no_transaction_hides_nothing() -> None:
    con = duckdb.connect()
    rollback_quietly(con)  # DuckDB's own ROLLBACK raises "no transaction is active" here
    with pytest.raises(duckdb.TransactionException):
        con.execute("ROLLBACK")
    con.execute("BEGIN TRANSACTION")
    con.execute("CREATE TABLE t (x INT)")
    rollback_quietly(con)
    assert con.execute("SELECT count(*) FROM information_schema.tables WHERE table_name = 't'").fetchall() == [(0,)]


#: Run the command line as user nobody: Python and the program are loaded while still root (the
#: interpreter may live where nobody cannot read, as /root/.pyenv does), then the process drops to
#: uid/gid 65534. The CLI imports a command's modules (Polars among them) only when the command
#: runs, so every command is built here first, and the executors Polars and the store import late.
AS_NOBODY = """import os, sys
import concurrent.futures.process, concurrent.futures.thread  # noqa: E401
import pmim_analytics.cli as cli, pmim_analytics.store.ingest, pmim_analytics.store.info  # noqa: E401
cli.build_app()
os.setgroups([]); os.setgid(65534); os.setuid(65534)
sys.argv = ["pmim", *sys.argv[1:]]
sys.exit(cli.main())
"""


def _unprivileged(args: list[str], cwd: Path) -> Run:
    """``pmim ARGS`` as a user the file permissions hold back: nobody when we are root, else
    ourselves; capped and timed as :func:`tests.adversarial.test_cli_attacks.pmim` runs it."""
    cmd = [sys.executable, "-c", AS_NOBODY, *args] if os.geteuid() == 0 else [PMIM, *args]
    started, cpu = time.monotonic(), cpu_seconds()
    r = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=120, preexec_fn=_cap,
                       env={**os.environ, "HOME": str(cwd), "COLUMNS": "200"})
    return Run(r.returncode, r.stdout, r.stderr, 0.0, time.monotonic() - started, cpu_seconds() - cpu)


def test_a_database_in_a_read_only_folder_is_one_sentence(good_replays: list[Path], whole: Path) -> None:
    """A real read-only folder: the command runs as a user that cannot write there (root ignores
    the permission bits, so as root the command drops to nobody)."""
    top = Path(tempfile.mkdtemp(prefix="pmim-ro-"))  # not under pytest's own folder, which nobody cannot enter
    try:
        top.chmod(0o777)
        folder = top / "ro"
        folder.mkdir()
        shutil.copy(whole, folder / "pmim.duckdb")
        replay = shutil.copy(good_replays[0], top / "good.jsonl")
        for p in (folder / "pmim.duckdb", replay):
            p.chmod(0o644)
        folder.chmod(0o555)
        if os.geteuid() != 0:
            try:
                (folder / "probe").touch()
            except PermissionError:
                pass
            else:
                (folder / "probe").unlink()
                pytest.skip("this user can write into a folder with no write permission, and is not root "
                            "(so cannot become a user who cannot)")
        before = (folder / "pmim.duckdb").read_bytes()
        for db in ("ro/pmim.duckdb", "ro/new.duckdb"):  # a database there, and a new one
            r = _unprivileged(["ingest", "good.jsonl", "--db", db, "-q"], top)
            print(f"ingest into {db} in a read-only folder: refused after {timing(r.seconds, r.cpu)}")
            assert r.code == 2, (db, r.code, r.out, r.err)
            assert "cannot be written" in r.err and "Traceback" not in r.err, r.err
            assert "no transaction is active" not in r.err and "TransactionContext" not in r.err
            assert r.err.strip().count("\n") == 0, r.err  # one sentence
        assert (folder / "pmim.duckdb").read_bytes() == before and not (folder / "new.duckdb").exists()
        info = _unprivileged(["db", "info", "--db", "ro/pmim.duckdb"], top)  # reading it needs no write
        assert info.code == 0 and "Traceback" not in info.err, info.err
    finally:
        os.chmod(top / "ro", 0o755)
        shutil.rmtree(top, ignore_errors=True)
