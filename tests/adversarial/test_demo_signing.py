"""The demo's quick core is stored without the rules check only because the pipeline signed
each file its simulation wrote: a forged replay put in a whole core folder before the demo
stores it is checked like any other (and refused), while the core's own games skip the check."""

from __future__ import annotations

from pathlib import Path

from pmim_analytics.demo import SMALL_DEMO, build_steps, demo_steps
from pmim_analytics.pipeline import COMPLETE_MARKER, SimRun, simulate_and_ingest
from pmim_analytics.store.connection import read_frame
from tests.adversarial.test_cli_attacks import good_replays
from tests.adversarial.test_signing import forge

__all__ = ["good_replays"]


def test_a_forged_replay_in_a_core_folder_is_checked_and_refused(tmp_path: Path, good_replays: list[Path]) -> None:
    steps = demo_steps(SMALL_DEMO)
    first = next(s for s in steps if s.core and s.batch is not None)
    assert first.batch is not None
    rep, db = tmp_path / "rep", tmp_path / "demo.duckdb"
    # an earlier build simulated the batch whole and stopped before storing it
    simulate_and_ingest([SimRun(first.batch, rep / first.name)], None, ingest=False, skip_complete=True, sign=True)
    assert (rep / first.name / COMPLETE_MARKER).exists()
    forge(good_replays[0], rep / first.name / "forged.jsonl")

    core = [s for s in steps if s.core and s.batch is not None]
    result = build_steps(core, db, rep, workers=1, logs=False, core_only=True)
    assert result.whole and not result.interrupted
    assert [r.render() for r in result.ingest.rejected if "forged.jsonl" in r.render()], result.ingest.rejected
    assert len(result.ingest.rejected) == 1
    stored = read_frame("SELECT batch, count(*) AS n FROM games GROUP BY batch ORDER BY batch", db=db)
    assert dict(stored.rows()) == {s.name: s.games for s in core}
    checks = read_frame("SELECT rules_checked, checked_by, count(*) AS n FROM game_checks GROUP BY ALL", db=db)
    # the core's own games: signed, so not replayed through the rules again
    assert checks.rows() == [(False, "skipped: written by this installation", sum(s.games for s in core))]
