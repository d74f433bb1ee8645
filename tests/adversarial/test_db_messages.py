"""A damaged database or a failed write is one sentence with exit 2, never DuckDB's raw text.

A database cut short at several sizes (a copy or a download that stopped), from its first
block to a few megabytes in, is refused by ``ingest``, ``db info`` and a report alike, and
left byte for byte as it was; ``ingest`` never exits 0 having loaded nothing into it.
"""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

from pmim_analytics.store.connection import rollback_quietly
from tests.adversarial.test_cli_attacks import good_replays, pmim

__all__ = ["good_replays"]


@pytest.fixture(scope="module")
def whole(tmp_path_factory: pytest.TempPathFactory, good_replays: list[Path]) -> Path:
    db = tmp_path_factory.mktemp("db") / "pmim.duckdb"
    assert pmim("ingest", *map(str, good_replays), "--db", str(db), "-q").code == 0
    return db


def test_a_database_cut_short_anywhere_is_one_sentence(tmp_path: Path, whole: Path,
                                                       good_replays: list[Path]) -> None:
    data = whole.read_bytes()
    sizes = sorted({n for n in (4096, 100_000, 1_000_000, 4 * 1024 * 1024, len(data) - 262_144) if 0 < n < len(data)})
    assert len(sizes) >= 4
    for n in sizes:
        cut = tmp_path / f"cut-{n}.duckdb"
        cut.write_bytes(data[:n])
        for args in (["ingest", str(good_replays[0]), "-q"], ["db", "info"], ["report", "units"]):
            r = pmim(*args, "--db", str(cut), timeout=60)
            assert r.code == 2, (n, args, r.code, r.out, r.err)
            assert "not a whole DuckDB database" in r.err and "IO Error" not in r.err and "Traceback" not in r.err
        assert cut.read_bytes() == data[:n]


def test_a_rollback_with_no_transaction_hides_nothing() -> None:
    con = duckdb.connect()
    rollback_quietly(con)  # DuckDB's own ROLLBACK raises "no transaction is active" here
    with pytest.raises(duckdb.TransactionException):
        con.execute("ROLLBACK")
    con.execute("BEGIN TRANSACTION")
    con.execute("CREATE TABLE t (x INT)")
    rollback_quietly(con)
    assert con.execute("SELECT count(*) FROM information_schema.tables WHERE table_name = 't'").fetchall() == [(0,)]
