"""Counts without bounds: every count option has a documented ceiling, checked before any work.

Each case asks for 10^12 of something. It runs first as the real ``pmim``, capped, its memory
measured (see :func:`tests.adversarial.test_cli_attacks._rss_of`): it must exit 2 with little
memory (a MemoryError or a growing process is the failure). Then, once it is known to stop,
the same command line runs in the test process (:func:`tests.support.cli.pmim_in_process`) for
its one sentence, with no traceback. A count below its floor (``--min-games``) is no memory
matter: it runs in the test process only.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from pmim_analytics.limits import (
    MAX_BOOTSTRAP,
    MAX_CALIBRATE_GAMES,
    MAX_GAMES,
    MAX_GAMES_PER_PAIRING,
    MAX_LADDER_GAMES,
    MAX_RESAMPLES,
    MAX_WORKERS,
)
from pmim_analytics.rules import load_army, validate_army
from pmim_analytics.rules.catalogue import REPO_ROOT
from pmim_analytics.sim.batch import BatchSpec
from pmim_analytics.sim.runner import run_batch
from tests.adversarial.test_cli_attacks import MAX_RSS_MB, _rss_of, good_replays, pmim
from tests.conftest import ARMIES
from tests.support.cli import pmim_in_process

__all__ = ["good_replays"]

HUGE = str(10**12)
BLUE = str(REPO_ROOT / "data" / "armies" / "v3-balanced.yaml")
RED = str(REPO_ROOT / "data" / "armies" / "v3-tank-heavy.yaml")


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory, good_replays: list[Path]) -> Path:
    path = tmp_path_factory.mktemp("db") / "pmim.duckdb"
    assert pmim("ingest", *map(str, good_replays), "--db", str(path), "-q").code == 0
    return path


@pytest.mark.parametrize(("args", "says"), [
    (["simulate", "--blue", BLUE, "--red", RED, "--games", HUGE, "--workers", "1"], f"{MAX_GAMES:,}"),
    (["bots", "ladder", "--games-per-pairing", HUGE, "--no-store"], f"{MAX_GAMES_PER_PAIRING:,}"),
    (["bots", "ladder", "--games-per-pairing", str(MAX_GAMES_PER_PAIRING), "--no-store"], f"{MAX_LADDER_GAMES:,}"),
    (["bots", "ladder", "--bootstrap", HUGE, "--no-store"], f"{MAX_BOOTSTRAP:,}"),
    (["simulate", "--blue", BLUE, "--red", RED, "--workers", HUGE], str(MAX_WORKERS)),
    (["bots", "ladder", "--workers", "100000", "--no-store"], str(MAX_WORKERS)),
    (["bots", "ladder", "--bots", f"random,search:budget={HUGE}", "--no-store"], "use 0 to 100000"),
    (["simulate", "--blue", BLUE, "--red", RED, "--blue-bot", f"search:budget={HUGE}", "--games", "1"],
     "use 0 to 100000"),
    *[(["balance", "propose", "--bot", "greedy", option, HUGE, "--no-store"], f"less than or equal to {ceiling}")
      for option, ceiling in (("--budget", MAX_GAMES), ("--pairs-per-round", MAX_GAMES),
                              ("--verify-games", MAX_GAMES), ("--resamples", MAX_RESAMPLES))],
])
def test_a_count_over_its_ceiling_is_refused_before_any_work(tmp_path: Path, args: list[str], says: str) -> None:
    assert _rss_of(args, tmp_path) < MAX_RSS_MB  # exit 2, capped
    r = pmim_in_process(*args, cwd=tmp_path)
    said = " ".join(r.stderr.replace("\u2502", " ").split())  # a usage error is boxed and wrapped
    assert r.returncode == 2 and says in said and "MemoryError" not in said, r.stderr
    assert not list(tmp_path.iterdir())  # nothing written


def test_calibrate_refuses_a_huge_game_count(tmp_path: Path, db: Path) -> None:
    args = ["calibrate", "--games", HUGE, "--db", str(db)]
    assert _rss_of(args, tmp_path) < MAX_RSS_MB  # exit 2, capped
    r = pmim_in_process(*args)
    assert r.returncode == 2 and f"{MAX_CALIBRATE_GAMES:,}" in r.stderr, r.stderr


@pytest.mark.parametrize("cmd", [["report", "meta", "--rules", "v3"], ["report", "robustness"],
                                 ["report", "compositions"], ["report", "matchups"]])
@pytest.mark.parametrize("value", ["-1", "0"])
def test_min_games_below_one_is_refused(db: Path, cmd: list[str], value: str) -> None:
    r = pmim_in_process(*cmd, "--min-games", value, "--db", str(db))
    assert r.returncode == 2 and "--min-games" in r.stderr, r.stderr


def test_a_batch_that_keeps_no_outcomes_counts_the_same_games() -> None:
    a = validate_army(load_army(ARMIES / "v3-balanced.yaml"), "v3")
    b = validate_army(load_army(ARMIES / "v3-tank-heavy.yaml"), "v3")
    batch = BatchSpec("v3", "take-and-hold", a, b, "random", "random", seed=5, games=6)
    kept = run_batch(batch, 2, part_size=2)
    streamed = run_batch(batch, 2, part_size=2, keep_outcomes=False)
    assert streamed.outcomes == [] and len(kept.outcomes) == 6
    assert (streamed.games, streamed.wins_a, streamed.wins_b, streamed.draws, streamed.reasons) == (
        kept.games, kept.wins_a, kept.wins_b, kept.draws, kept.reasons)


def test_a_sweep_file_asking_for_10_to_the_12_games_a_pairing_is_refused(tmp_path: Path) -> None:
    sweep = tmp_path / "huge.yaml"
    sweep.write_text(f"name: huge\nseed: 1\nrules: [v3]\ncompositions: [v3-balanced, v3-tank-heavy]\n"
                     f"games_per_pairing: {HUGE}\n", encoding="utf-8")
    r = pmim("sweep", str(sweep), "--out", str(tmp_path / "out"), "--no-ingest", timeout=60)
    assert r.code == 2 and "games_per_pairing" in r.err and str(MAX_GAMES) in r.err, r.err
    assert not (tmp_path / "out").exists()


def test_a_ladder_keeps_each_played_game_as_a_few_numbers_and_rates_the_same() -> None:
    """A ladder's games are rated together, so they stay in memory until the run ends: each is
    reduced to its result and adherence counts as its chunk of games comes back (its events
    dropped), so a full ladder of MAX_LADDER_GAMES games holds a few megabytes; the ratings are
    those the events give."""
    import pickle

    import polars as pl

    from pmim_analytics.analytics.adherence import adherence_by, side_adherence
    from pmim_analytics.botlab.ladder import (
        events_frames,
        games_frame,
        ladder_plan,
        play_ladder,
        play_ladder_game,
        rate,
    )
    from pmim_analytics.rules.catalogue import load_scenario

    plan = ladder_plan("v3", "random,greedy", 1, 3, armies=[Path(BLUE), Path(RED)])
    kept = play_ladder(plan)
    raw = [play_ladder_game(batch, i) for batch in plan.batches() for i in range(batch.games)]
    assert all(not g.events and not g.units and g.adherence is not None for g in kept)
    assert [(g.winner, g.vp, g.rounds) for g in kept] == [(g.winner, g.vp, g.rounds) for g in raw]
    scen = load_scenario(plan.scenario_id)
    gf = games_frame(raw).rename({"game_no": "game_id"})
    sides = side_adherence(*events_frames(raw), gf, [(c, r) for c, r in scen.objectives.hexes],
                           scen.objectives.radius)
    sides = sides.join(gf.select("game_id", "blue_bot", "red_bot"), on="game_id").with_columns(
        bot=pl.when(pl.col("side") == "blue").then(pl.col("blue_bot")).otherwise(pl.col("red_bot")))
    want = adherence_by(sides, "bot").sort("bot")
    got = rate(plan, kept, bootstrap=0)[1].select("bot", "adherence", "vp_per_round").sort("bot")
    assert got.to_dicts() == want.to_dicts()
    timing = ["ms_per_decision", "games_per_s"]  # each game was played twice: its thinking time differs
    assert rate(plan, raw, bootstrap=0)[1].drop(timing).equals(rate(plan, kept, bootstrap=0)[1].drop(timing))
    size = max(len(pickle.dumps(g)) for g in kept)
    print(f"a ladder game is kept in {size} bytes pickled (with its events: {max(len(pickle.dumps(g)) for g in raw)}); "
          f"{MAX_LADDER_GAMES:,} games: {size * MAX_LADDER_GAMES / 1e6:.1f} MB")
    assert size < 1024


def test_every_ceiling_is_documented_with_its_value() -> None:
    """docs/limits.md names every MAX_ constant of pmim_analytics.limits, with its value."""
    import re

    from pmim_analytics import limits

    doc = (REPO_ROOT / "docs" / "limits.md").read_text(encoding="utf-8")
    names = sorted(n for n in vars(limits) if n.startswith("MAX_") and isinstance(getattr(limits, n), int))
    assert "MAX_LADDER_GAMES" in names and "MAX_BOOTSTRAP" in names
    for name in names:
        row = next((line for line in doc.splitlines() if f"`{name}`" in line), None)
        assert row is not None, f"{name} is not in docs/limits.md"
        value = getattr(limits, name)
        shown = {f"{value:,}", str(value)} | ({f"{value // 1024**2} MB"} if value % 1024**2 == 0 else set())
        assert any(re.search(rf"\|\s*{re.escape(v)}\s*\|", row) for v in shown), (name, value, row)
