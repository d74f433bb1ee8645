"""Paired rules impact on hand-made games: which games pair, why the others do not, the figures."""

from __future__ import annotations

import math

import polars as pl
import pytest

from pmim_analytics.analytics import tables
from pmim_analytics.analytics.dataset import FrameData
from pmim_analytics.rules.army import list_key_of
from tests.support.gamebuilder import GameBuilder, frames_of

LISTS = {
    "A": [("TW1", "TW", ("GG", "ML")), ("IN1", "IN", ("LL",))],
    "B": [("TY1", "TY", ("HAC",)), ("IN1", "IN", ("LAC",))],
    "C": [("IN1", "IN", ("LL",)), ("IN2", "IN", ("LL",))],
    "D": [("GE1", "GE", ("LAC",))],
}
VAR = "v3-llaser-rpt4"


def game(gid: str, blue: str, red: str, winner: str | None, rules_id: str = "v3", bots: tuple[str, str] = ("greedy",
         "greedy"), vp: tuple[int, int] | None = None) -> GameBuilder:
    g = GameBuilder(gid, rules_id=rules_id)
    g.side("blue", blue, LISTS[blue], bots[0], f"{rules_id}-{blue}").side("red", red, LISTS[red], bots[1],
                                                                          f"{rules_id}-{red}")
    if vp is None:
        vp = (11, 5) if winner == "blue" else (5, 11)
    return g.final_vp(*vp).end(winner, "vp", 5)


def hand_games() -> list[GameBuilder]:
    v3 = [game(f"a{i}", "A", "B", "blue" if i == 0 else "red") for i in range(4)]   # A wins 1 of 4
    v3 += [game("a4", "A", "D", "blue"),                                           # D never under VAR
           game("a5", "A", "C", "blue"),                                           # A never met C under VAR
           game("a6", "A", "B", "blue", bots=("random", "greedy")),                # other bots
           game("a7", "B", "A", "blue")]                                           # sides swapped
    var = [game(f"b{i}", "A", "B", "red" if i == 0 else "blue", VAR) for i in range(4)]  # A wins 3 of 4
    var += [game("b4", "B", "C", "blue", VAR)]
    return v3 + var


def test_pairing_counts_and_reasons() -> None:
    imp = tables.impact_report(FrameData(frames_of(hand_games())), "v3", VAR)
    rows = {r["rules_id"]: r for r in imp.pairing.iter_rows(named=True)}
    v3, var = rows["v3"], rows[VAR]
    assert (v3["games"], v3["paired"], v3["left_out"], v3["strata"]) == (8, 4, 4, 1)
    assert (v3["list not played"], v3["matchup not played"], v3["other bots"], v3["sides swapped"]) == (1, 1, 1, 1)
    assert (var["games"], var["paired"], var["matchup not played"]) == (5, 4, 1)


def test_composition_impact_on_paired_games_by_hand() -> None:
    imp = tables.impact_report(FrameData(frames_of(hand_games())), "v3", VAR)
    a = imp.compositions.filter(pl.col("list") == "A").row(0, named=True)
    assert (a["games_a"], a["games_b"], a["win_a"], a["win_b"]) == (4, 4, 0.25, 0.75)
    # each game is a cluster of one: var = 4/3 * (0.75^2 + 3 * 0.25^2) / 4^2 = 0.0625 on each side
    half = 1.959963984540054 * math.sqrt(2 * 0.0625)
    assert a["win_diff"] == 0.5
    assert (a["win_diff_lo"], a["win_diff_hi"]) == (pytest.approx(0.5 - half), pytest.approx(0.5 + half))
    assert a["vp_margin_a"] == pytest.approx((6 - 18) / 4) and a["vp_margin_b"] == pytest.approx((18 - 6) / 4)
    assert not a["significant"]
    unpaired = tables.impact_report(FrameData(frames_of(hand_games())), "v3", VAR, paired=False)
    assert unpaired.compositions.filter(pl.col("list") == "A")["games_a"].item() == 8  # every v3 game has A


def test_a_stratum_played_more_under_one_rules_id_is_weighted_down() -> None:
    # 3 games A-B under v3 (A wins 1), 1 under the variant: each v3 game weighs 1/3
    v3 = [game(f"a{i}", "A", "B", "blue" if i == 0 else "red") for i in range(3)]
    v3 += [game("c0", "A", "C", "blue")]  # and one A-C game, played once under each
    var = [game("b0", "A", "B", "blue", VAR), game("d0", "A", "C", "red", VAR)]
    imp = tables.impact_report(FrameData(frames_of(v3 + var)), "v3", VAR)
    a = imp.compositions.filter(pl.col("list") == "A").row(0, named=True)
    # v3: (1/3 * 1 + 1) / (3 * 1/3 + 1) = 2/3 — as if each matchup were played once
    assert a["win_a"] == pytest.approx(2 / 3) and a["win_b"] == pytest.approx(0.5)


def test_lists_pair_by_content_not_by_name() -> None:
    # the same name on different contents under the variant: no pairing; other names, same content: paired
    v3 = [game(f"a{i}", "A", "B", "blue") for i in range(2)]
    var = []
    for i in range(2):
        g = GameBuilder(f"b{i}", rules_id=VAR)
        g.side("blue", "A", LISTS["C"], "greedy", "x").side("red", "Bee", LISTS["B"], "greedy", "y")
        var.append(g.final_vp(11, 0).end("blue", "vp", 5))
    imp = tables.impact_report(FrameData(frames_of(v3 + var)), "v3", VAR)
    assert imp.pairing.filter(pl.col("rules_id") == "v3")["paired"].item() == 0
    assert imp.compositions.height == 0
    assert list_key_of([("IN", "LL"), ("TY", "HAC")]) == list_key_of([("TY", "HAC"), ("IN", "LL")])


def test_unit_impact_of_a_planted_cost_change() -> None:
    # the same games under v3 and under a rules id where the Mjolnir costs 16 instead of 18
    games = []
    for rid in ("v3", "v3-mjolnir-16"):
        for i in range(3):
            g = GameBuilder(f"{rid}-{i}", rules_id=rid)
            g.side("blue", "M", [("MJ1", "MJ", ("HPB", "HPB"))], "greedy", f"{rid}-M")
            g.side("red", "B", LISTS["B"], "greedy", f"{rid}-B")
            g.vp(1, 0, "blue", blue=("B:MJ1",)).end_round(1)
            games.append(g.vp(2, 1 + i % 2, "blue", blue=("B:MJ1",)).end_round(2).end("blue", "vp", 2))
    imp = tables.impact_report(FrameData(frames_of(games)), "v3", "v3-mjolnir-16")
    mj = imp.units.filter(pl.col("code") == "MJ").row(0, named=True)
    assert (mj["pts_a"], mj["pts_b"]) == (18, 16)
    assert mj["vp_share_diff"] == 0.0  # the same play
    assert mj["vp_per_pt_a"] == pytest.approx(2 / 18) and mj["vp_per_pt_b"] == pytest.approx(2 / 16)
    assert mj["vp_per_pt_diff"] > 0
    # the export note's Mjolnir answer reads the same row, with its interval
    from pmim_analytics.report.note import QUESTIONS, _mjolnir

    line = _mjolnir(FrameData(frames_of(games)), QUESTIONS[2], ["v3", "v3-mjolnir-16"])[0]
    assert line.startswith("Mjolnir (engine games): 0.111 VP per point per game at 18 points")
    assert line.endswith("; change 0.014 [0.014, 0.014].")


def test_a_list_that_always_wins_is_flagged_saturated() -> None:
    v3 = [game(f"a{i}", "A", "B", "blue") for i in range(3)]
    var = [game(f"b{i}", "A", "B", "blue", VAR) for i in range(3)]
    imp = tables.impact_report(FrameData(frames_of(v3 + var)), "v3", VAR)
    a = imp.compositions.filter(pl.col("list") == "A").row(0, named=True)
    assert a["win_diff"] == 0.0 and a["saturated"] and not a["significant"]


def _twin_games(variant_blue_wins: list[bool]) -> list:
    """Heavy (blue) against Light (red), 6 games on seeds 0..5 under v3 (blue wins 0, 1, 2) and the
    same seeds under the variant (blue wins as given): twins by seed."""
    from tests.support.gamebuilder import GameBuilder

    heavy = [("TW1", "TW", ("GG", "ML")), ("TY1", "TY", ("HAC",))]
    light = [("IN1", "IN", ("LL",)), ("IN2", "IN", ("LAC",))]
    out = []
    for rules_id, wins in (("v3", [i < 3 for i in range(6)]), ("v3-llaser-rpt4", variant_blue_wins)):
        for i, won in enumerate(wins):
            g = GameBuilder(f"t-{rules_id}-{i}", rules_id=rules_id).side("blue", "Heavy", heavy)
            g.side("red", "Light", light)
            out.append(g.final_vp(*((11, 6) if won else (6, 11))).end("blue" if won else "red", "vp", 8))
    return out


def _with_seeds(frames):  # noqa: ANN001, ANN202
    from dataclasses import replace

    games = frames.games.with_columns(
        seed=pl.col("game_id").str.split("-").list.last().cast(pl.Int64), game_index=pl.lit(0, dtype=pl.Int32))
    return replace(frames, games=games)


def test_twins_on_the_same_seeds_give_a_paired_interval() -> None:
    from pmim_analytics.analytics import tables
    from pmim_analytics.analytics.dataset import FrameData
    from tests.support.gamebuilder import frames_of

    same = tables.impact_report(FrameData(_with_seeds(frames_of(_twin_games([i < 3 for i in range(6)])))), "v3",
                                "v3-llaser-rpt4").compositions
    heavy = same.filter(pl.col("list").str.contains("Heavy")).row(0, named=True)
    # identical copies: exactly 0 [0, 0], and the design says paired
    assert heavy["design"] == "paired" and (heavy["win_diff"], heavy["win_diff_lo"], heavy["win_diff_hi"]) == (0, 0, 0)
    # without seeds (every game on the builder's one seed) the same games are compared unpaired: a width
    unpaired = tables.impact_report(FrameData(frames_of(_twin_games([i < 3 for i in range(6)]))), "v3",
                                    "v3-llaser-rpt4").compositions
    row = unpaired.filter(pl.col("list").str.contains("Heavy")).row(0, named=True)
    assert row["design"] == "unpaired" and row["win_diff_hi"] > 0.2
