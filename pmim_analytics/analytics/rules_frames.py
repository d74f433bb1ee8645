"""Rules stats as frames shaped like ``rules_units`` / ``rules_weapons``, from the catalogue.

Analytics that need a rules version's stats (expected damage needs STR, RPT and ARM) read
them from the database's rules tables when present and fall back to these, built from
``data/rules`` with :func:`pmim_analytics.rules.load_rules`.
"""

from __future__ import annotations

from collections.abc import Iterable

import polars as pl

from pmim_analytics.analytics.frames import SCHEMAS
from pmim_analytics.errors import PmimError
from pmim_analytics.rules import load_rules
from pmim_analytics.rules.models import RulesVersion
from pmim_analytics.rules.rows import unit_rows, weapon_rows


def rules_units_frame(rules: RulesVersion) -> pl.DataFrame:
    """Every unit type of ``rules`` as rows of ``rules_units`` (Warmech HP summed over locations)."""
    return pl.DataFrame(unit_rows(rules), schema=SCHEMAS["rules_units"])


def rules_weapons_frame(rules: RulesVersion) -> pl.DataFrame:
    """Every weapon of ``rules`` as rows of ``rules_weapons``."""
    return pl.DataFrame(weapon_rows(rules), schema=SCHEMAS["rules_weapons"])


def complete_rules_frames(
    rules_ids: Iterable[str], units: pl.DataFrame, weapons: pl.DataFrame
) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Add catalogue rows for every rules id missing from ``units`` / ``weapons``.

    A rules id the catalogue does not know either (a database from another checkout) is
    left out; analytics then report its expectations as unknown.
    """
    have_u = set(units["rules_id"].unique().to_list())
    have_w = set(weapons["rules_id"].unique().to_list())
    add_u, add_w = [units], [weapons]
    for rid in sorted(set(rules_ids)):
        if rid in have_u and rid in have_w:
            continue
        try:
            rules = load_rules(rid)
        except PmimError:
            continue
        if rid not in have_u:
            add_u.append(rules_units_frame(rules))
        if rid not in have_w:
            add_w.append(rules_weapons_frame(rules))
    return pl.concat(add_u), pl.concat(add_w)
