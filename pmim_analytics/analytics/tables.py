"""The report tables, one function each, over any :class:`~.dataset.GameData`.

These are what the CLI prints, the export writes and the dashboard shows: each takes a
selection of games (from frames or the database) and returns Polars frames.
"""

from __future__ import annotations

from dataclasses import dataclass

import polars as pl

from pmim_analytics.analytics import compositions, costs, impact, luck, optional_rules, quality, units, weapons
from pmim_analytics.analytics.dataset import GameData


def unit_report(data: GameData, by_loadout: bool = False) -> pl.DataFrame:
    """Per unit type (or type and weapons): damage, hit rate, kills, survival, VP share, per point."""
    return units.unit_table(data.unit_sums(by_loadout))


def survival_report(data: GameData, by_loadout: bool = False) -> pl.DataFrame:
    """Kaplan-Meier survival by round per unit type (or type and weapons)."""
    return units.km_curves(data.survival_counts(by_loadout))


def weapon_report(data: GameData, by: str = "target_kind") -> pl.DataFrame:
    """Per weapon and target class: observed hit rate and damage against the exact expectation."""
    with data.session():
        ru, rw = data.rules_tables()
        return weapons.weapon_table(data.attack_strata(), ru, rw, by=by)


def composition_report(data: GameData, key: str = "composition") -> pl.DataFrame:
    """Per composition: W/D/L, win rate with Wilson interval, VP margin, game length (no mirrors)."""
    return compositions.composition_table(data.matchup_cells(), key)


def matchup_report(data: GameData, key: str = "composition") -> pl.DataFrame:
    """Per composition and opponent composition: the row side's results (no mirrors)."""
    return compositions.matchup_table(data.matchup_cells(), key)


def side_report(data: GameData) -> pl.DataFrame:
    """Blue-side and first-player win shares, with intervals and tests against one half."""
    return compositions.side_advantage(data.matchup_cells())


@dataclass(frozen=True)
class ImpactTables:
    """What changed between two rules ids: per composition and per unit type."""

    compositions: pl.DataFrame
    units: pl.DataFrame


def impact_report(data: GameData, rules_a: str, rules_b: str, paired: bool = True) -> ImpactTables:
    """The change from ``rules_a`` to ``rules_b`` (both must be in the selection)."""
    with data.session():
        return ImpactTables(
            impact.composition_impact(data.matchup_cells(), rules_a, rules_b, paired),
            impact.unit_impact(data.unit_sums(count_games=False), rules_a, rules_b),
        )


def cost_report(data: GameData, alpha: float = costs.ALPHA) -> costs.CostFit:
    """Implied point costs per rules id, with a summary saying what the games can support."""
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
