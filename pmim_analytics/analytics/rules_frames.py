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
from pmim_analytics.rules.models import RulesVersion, Warmech


def rules_units_frame(rules: RulesVersion) -> pl.DataFrame:
    """Every unit type of ``rules`` as rows of ``rules_units`` (Warmech HP summed over locations)."""
    rows = []
    for u in rules.iter_units():
        mech = isinstance(u, Warmech)
        rows.append({
            "rules_id": rules.id, "code": u.code, "name": u.name, "kind": u.kind,
            "body": u.body if mech else None, "weight_class": rules.weight_class(u) if mech else None,
            "tons": u.tons if mech else None, "hp": sum(u.location_hp().values()) if mech else u.hp,
            "mov": u.mov, "def": u.def_, "arm": u.arm, "spt": u.spt, "pts": u.pts,
        })
    return pl.DataFrame(rows, schema=SCHEMAS["rules_units"])


def rules_weapons_frame(rules: RulesVersion) -> pl.DataFrame:
    """Every weapon of ``rules`` as rows of ``rules_weapons``."""
    rows = [{"rules_id": rules.id, "code": w.code, "name": w.name, "rng": w.rng, "acc": w.acc, "rpt": w.rpt,
             "strength": w.strength, "ton": w.ton} for w in rules.weapons]
    return pl.DataFrame(rows, schema=SCHEMAS["rules_weapons"])


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
