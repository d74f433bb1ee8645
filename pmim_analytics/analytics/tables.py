"""The report tables, one function each, over any :class:`~.dataset.GameData`.

These are what the CLI prints, the export writes and the dashboard shows: each takes a
selection of games (from frames or the database) and returns Polars frames.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import polars as pl

from pmim_analytics.analytics import (
    compositions,
    costs,
    impact,
    implied_costs,
    lineups,
    luck,
    optional_rules,
    quality,
    units,
    weapons,
)
from pmim_analytics.analytics.dataset import GameData


def unit_report(data: GameData, by_loadout: bool = False) -> pl.DataFrame:
    """Per unit type (or type and weapons): damage, hit rate, kills, survival, VP share, per point.

    Intervals are game-clustered (:mod:`.cluster`).
    """
    with data.session():
        sums, per_game = data.unit_sums(by_loadout), data.unit_game_sums(by_loadout)
    return units.unit_table(sums, units.unit_clusters(per_game))


def survival_report(data: GameData, by_loadout: bool = False) -> pl.DataFrame:
    """Kaplan-Meier survival by round per unit type (or type and weapons), with numbers at risk.

    Greenwood limits widened by each type's game-clustered design effect (:func:`.units.km_curves`).
    """
    with data.session():
        counts = data.survival_counts(by_loadout)
        table = unit_report(data, by_loadout)
    keys = [c for c in (*units.UNIT_KEYS, "weapons") if c in counts.columns]
    deff = table.select(*keys, deff=pl.col("survival_deff"))
    return units.km_curves(counts, design_effects=deff)


def weapon_report(data: GameData, by: str = "target_kind") -> pl.DataFrame:
    """Per weapon and target class: observed hit rate and damage against the exact expectation.

    Hit-rate and damage intervals are game-clustered (:mod:`.cluster`).
    """
    with data.session():
        ru, rw = data.rules_tables()
        table = weapons.weapon_table(data.attack_strata(), ru, rw, by=by)
        clusters = weapons.weapon_clusters(data.side_attack_strata(), ru, rw, by=by)
    return weapons.with_clustered_intervals(table, clusters, by)


def _cells(data: GameData, key: str) -> pl.DataFrame:
    with data.session():
        cells = data.matchup_cells()
        return compositions.with_lists(cells, list_keys(data)) if key == "list" else cells


def composition_report(data: GameData, key: str = "composition") -> pl.DataFrame:
    """Per composition: W/D/L, win rate with Wilson interval, VP margin, game length (no mirrors).

    ``key`` is ``composition`` (name), ``army_hash`` or ``list`` (content across rules ids).
    """
    return compositions.composition_table(_cells(data, key), key)


def matchup_report(data: GameData, key: str = "composition") -> pl.DataFrame:
    """Per composition and opponent composition: the row side's results (no mirrors).

    ``key`` as in :func:`composition_report`; ``list`` pairs a list with its translation.
    """
    return compositions.matchup_table(_cells(data, key), key)


def side_report(data: GameData) -> pl.DataFrame:
    """Blue-side and first-player win shares, with intervals and tests against one half."""
    return compositions.side_advantage(data.matchup_cells())


@dataclass(frozen=True)
class ImpactTables:
    """What changed between two rules ids: per list and per unit type, and which games were paired."""

    compositions: pl.DataFrame
    units: pl.DataFrame
    pairing: pl.DataFrame
    #: The lists of the games left out, per reason (:func:`.impact.unpaired_lists`).
    unpaired: pl.DataFrame = field(default_factory=pl.DataFrame)


def list_keys(data: GameData) -> pl.DataFrame:
    """Per rules id and army hash: the list key (content, whatever the rules id) and its label."""
    return lineups.list_keys(data.army_contents())


def impact_report(data: GameData, rules_a: str, rules_b: str, paired: bool = True) -> ImpactTables:
    """The change from ``rules_a`` to ``rules_b`` on paired games (see :mod:`.impact`).

    With ``paired=False`` every game of both rules ids counts, with weight 1 (the old,
    confounded comparison; ``pairing`` still says what pairing would have kept).
    """
    with data.session():
        games = lineups.with_list_keys(data.game_lineups(), list_keys(data))
        per_game = data.unit_game_sums()
    p = impact.pair_games(games, rules_a, rules_b)
    summary = impact.pairing_summary(p)
    unpaired = impact.unpaired_lists(p)
    if not paired:
        p = p.with_columns(paired=pl.lit(True), weight=pl.lit(1.0))
    return ImpactTables(impact.composition_impact(p, rules_a, rules_b),
                        impact.unit_impact(p, per_game, rules_a, rules_b), summary, unpaired)


def cost_report(data: GameData, resamples: int = implied_costs.RESAMPLES) -> costs.CostFit:
    """Implied point costs per rules id (:mod:`.implied_costs`: no type fixed, intervals from a
    bootstrap over games, BH-tested verdicts), with a summary saying what the games can support."""
    with data.session():
        lineups, rosters = data.game_lineups(), data.army_rosters()
    return implied_costs.fit_implied_costs(lineups, rosters, resamples)


def pinned_cost_report(data: GameData, alpha: float = costs.ALPHA) -> costs.CostFit:
    """The earlier fit (:func:`.costs.fit_costs`), whose median type is its yardstick: the stability
    benchmark's baseline."""
    with data.session():
        cells, rosters = data.game_cells(), data.army_rosters()
    return costs.fit_costs(cells, rosters, alpha)


@dataclass(frozen=True)
class LuckTables:
    """Luck per game and side, and how often the luckier side won."""

    sides: pl.DataFrame
    summary: pl.DataFrame


def luck_report(data: GameData) -> LuckTables:
    """Luck index of every side in every game with attack events (with the optional rules'
    overheat and initiative dice where there are any: ``heat_z``, ``initiative_z``, ``dice_z``)."""
    with data.session():
        ru, rw = data.rules_tables()
        sums = data.side_luck_sums(ru, rw)
        optional = optional_rules.optional_dice_luck(data.optional_rule_events())
    table = luck.with_optional_dice(luck.luck_from_sums(sums), optional)
    return LuckTables(table, luck.luck_summary(table))


@dataclass(frozen=True)
class OptionalRulesTables:
    """What the optional rules did: overheat rates by excess (with the exact odds), weapons lost
    to heat, initiative wins, rushes (:mod:`.optional_rules`)."""

    heat: pl.DataFrame
    weapons_lost: pl.DataFrame
    initiative: pl.DataFrame
    rushes: pl.DataFrame

    def is_empty(self) -> bool:
        """True when the selected games hold no optional-rule event."""
        return not any(t.height for t in (self.heat, self.weapons_lost, self.initiative, self.rushes))


def optional_rules_report(data: GameData) -> OptionalRulesTables:
    """The optional rules' effects in the selected games."""
    with data.session():
        ev = data.optional_rule_events()
    return OptionalRulesTables(optional_rules.heat_table(ev), optional_rules.heat_by_weapon(ev),
                               optional_rules.initiative_table(ev), optional_rules.rush_table(ev))


@dataclass(frozen=True)
class QualityTables:
    """Game length, endings, lead changes and VP by round."""

    outcomes: pl.DataFrame
    lengths: pl.DataFrame
    leads: pl.DataFrame
    vp_by_round: pl.DataFrame


def quality_report(data: GameData) -> QualityTables:
    """How long games last, how they end, how often the lead changes."""
    with data.session():
        counts, scores, winners = data.game_counts(), data.round_scores(), data.game_winners()
    leads = quality.lead_changes(scores, winners) if scores.height else None
    lead_summary = quality.lead_summary(leads) if leads is not None else pl.DataFrame(
        schema={"rules_id": pl.Utf8, "source": pl.Utf8, "games": pl.Int64, "mean_lead_changes": pl.Float64,
                "with_change": pl.Int64, "decisive": pl.Int64, "comebacks": pl.Int64,
                "share_with_change": pl.Float64, "comeback_rate": pl.Float64, "comeback_lo": pl.Float64,
                "comeback_hi": pl.Float64})
    return QualityTables(quality.outcome_table(counts), quality.length_distribution(counts), lead_summary,
                         quality.vp_by_round(scores))
