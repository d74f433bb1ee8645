"""Null tests of the paired impact report on engine games (bot level greedy on both sides, v3 rules,
the five v3 sample lists in a round robin, both sides of every pairing). The rules never differ,
so every interval that excludes 0 is a false flag. The intervals counted are the report's own:
per list the win-rate and VP-margin change, per unit type the VP share, VP per point, damage per
point and survival change (95%; "beyond 0" is what the report marks ``*``).

* Common random numbers: v3 and an identical copy of it, played on the same seeds, play the
  same games, so every change is exactly 0 with a zero-width interval: 0 false flags by construction.
* Different seeds: the v3 games are split at random into two halves within every stratum (so
  each half is a set of games with its own seeds, as two runs of identical rules would be) and
  the report compares the halves. 40 splits give 2,800 intervals; a calibrated 95% interval puts
  5% of them beyond 0. The splits share one pool of games and the intervals of one split share its
  games, so they are not independent tests: the test prints the split-to-split spread next to the
  rate (docs/analytics.md, "Null rates on engine games"; with the variance taken across strata
  instead of within them, the rate was 2.9%). The seeds are fixed: the counts are the same on
  every run.
"""

from __future__ import annotations

import os
import random
import shutil
from collections.abc import Iterator
from itertools import combinations
from pathlib import Path

import polars as pl
import pytest

from pmim_analytics.analytics import impact, lineups, tables
from pmim_analytics.replay.parquet import write_part
from pmim_analytics.rules import data_dir, load_army, validate_army
from pmim_analytics.rules.catalogue import clear_caches
from pmim_analytics.sim.batch import BatchSpec, play_batch_game
from pmim_analytics.store.ingest import ingest_paths
from pmim_analytics.store.readers import DuckDBData

BOT = "greedy"
LISTS = ("v3-balanced", "v3-fast-gev", "v3-infantry-swarm", "v3-mech-heavy", "v3-tank-heavy")
GAMES = 16  # per pairing and rules id, sides alternating: 8 per stratum, 160 games a rules id
SPLITS = 40
COMPOSITION = ("win", "vp_margin")
UNIT = ("vp_share", "vp_per_pt", "damage_per_pt", "survival")


def _play(folder: Path, rules_id: str, seed: int) -> None:
    rosters = [validate_army(load_army(data_dir() / "armies" / f"{n}.yaml"), rules_id=rules_id) for n in LISTS]
    records = []
    for i, (a, b) in enumerate(combinations(rosters, 2)):
        batch = BatchSpec(rules_id, "take-and-hold", a, b, BOT, BOT, seed + 1000 * i, GAMES, name=f"null-{rules_id}")
        records += [play_batch_game(batch, g) for g in range(GAMES)]
    write_part(folder / rules_id, 0, records)


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    root = tmp_path_factory.mktemp("null-impact")
    data = root / "data"
    for sub in ("rules", "scenarios", "armies"):
        shutil.copytree(data_dir() / sub, data / sub)
    (data / "rules" / "variants" / "v3-same.yaml").write_text(
        "id: v3-same\nname: v3 again\nbase: v3\ndescription: the same rules under another id\noverrides: {}\n")
    old = os.environ.get("PMIM_DATA")
    os.environ["PMIM_DATA"] = str(data)
    clear_caches()
    try:
        for rid in ("v3", "v3-same"):
            _play(root / "games", rid, 7)  # the same seeds: common random numbers
        path = root / "pmim.duckdb"
        assert ingest_paths([root / "games"], path).loaded == 2 * 10 * GAMES
        yield path
    finally:
        if old is None:
            os.environ.pop("PMIM_DATA", None)
        else:
            os.environ["PMIM_DATA"] = old
        clear_caches()


def _beyond(comps: pl.DataFrame, units: pl.DataFrame) -> tuple[int, int, int, int]:
    """(composition intervals, of them beyond 0, unit intervals, of them beyond 0)."""
    out = []
    for df, metrics in ((comps, COMPOSITION), (units, UNIT)):
        n = k = 0
        for m in metrics:
            lo, hi = df[f"{m}_diff_lo"], df[f"{m}_diff_hi"]
            ok = lo.is_not_null() & hi.is_not_null() & lo.is_not_nan() & hi.is_not_nan()
            n += int(ok.sum())
            k += int(((lo > 0) | (hi < 0)).filter(ok).sum())
        out += [n, k]
    return out[0], out[1], out[2], out[3]


def test_identical_rules_on_the_same_seeds_give_no_change_at_all(db: Path) -> None:
    imp = tables.impact_report(DuckDBData(db, ["v3", "v3-same"]), "v3", "v3-same")
    comps, units = imp.compositions, imp.units
    n_c, k_c, n_u, k_u = _beyond(comps, units)
    print(f"\nnull impact, identical rules on the same seeds (bot level {BOT}, {10 * GAMES} games a rules id, "
          f"paired design): list intervals beyond 0: {k_c} of {n_c}, unit intervals beyond 0: {k_u} of {n_u} (0%)")
    assert set(comps["design"]) == {"paired"} and comps.height == len(LISTS)
    assert n_u >= 40 and k_c == k_u == 0
    assert (comps["win_diff"] == 0).all() and (comps["win_diff_lo"] == 0).all() and (comps["win_diff_hi"] == 0).all()
    for m in UNIT:  # 0 up to the order floating-point sums are taken in (the games' ids differ)
        assert (units[f"{m}_diff"].abs() <= 1e-12).all(), m


def test_identical_rules_on_other_seeds_flag_about_5_percent(db: Path) -> None:
    data = DuckDBData(db, ["v3"])
    with data.session():
        games = lineups.with_list_keys(data.game_lineups(), tables.list_keys(data))
        per_game = data.unit_game_sums()
    strata = games.group_by(impact.STRATUM, maintain_order=True).agg("game_id")["game_id"].to_list()
    rng = random.Random(2026)
    totals = [0, 0, 0, 0]
    rates = []
    for _ in range(SPLITS):
        half = []
        for ids in strata:
            ids = sorted(ids)
            rng.shuffle(ids)
            half += ids[: len(ids) // 2]
        label = pl.when(pl.col("game_id").is_in(half)).then(pl.lit("A")).otherwise(pl.lit("B"))
        g = games.with_columns(rules_id=label)
        u = per_game.drop("rules_id").join(g.select("game_id", "rules_id"), on="game_id")
        p = impact.pair_games(g, "A", "B")
        comps, units = impact.composition_impact(p, "A", "B"), impact.unit_impact(p, u, "A", "B")
        assert set(comps["design"]) == {"unpaired"}  # other seeds: no twins
        got = _beyond(comps, units)
        totals = [t + x for t, x in zip(totals, got, strict=True)]
        rates.append((got[1] + got[3]) / (got[0] + got[2]))
    n_c, k_c, n_u, k_u = totals
    n, k = n_c + n_u, k_c + k_u
    mean = sum(rates) / len(rates)
    sd = (sum((r - mean) ** 2 for r in rates) / (len(rates) - 1)) ** 0.5
    print(f"\nnull impact, identical rules on other seeds (bot level {BOT}; {SPLITS} random halves of "
          f"{games.height} games, {games.height // 2} a side): {k} of {n} intervals beyond 0 ({k / n:.1%}); "
          f"lists {k_c} of {n_c} ({k_c / n_c:.1%}), unit types {k_u} of {n_u} ({k_u / n_u:.1%}); "
          f"rate per split {mean:.1%} ± {sd:.1%} (sd)")
    assert n >= 2500  # 40 splits x (5 lists x 2 + 15 types x 4)
    assert 0.025 <= k / n <= 0.075
