"""A rules version as plain rows, shaped like the database's ``rules_*`` tables.

One mapping from the models to table rows, used both by the store (which loads them into
DuckDB) and by the analytics (which build Polars frames from them).
"""

from __future__ import annotations

from typing import Any

from pmim_analytics.rules.models import RulesVersion, Warmech


def version_row(rules: RulesVersion) -> dict[str, Any]:
    """The ``rules_versions`` row of ``rules``."""
    return {"rules_id": rules.id, "name": rules.name, "parent": rules.parent, "is_variant": rules.is_variant}


def unit_rows(rules: RulesVersion) -> list[dict[str, Any]]:
    """Every unit type of ``rules`` as ``rules_units`` rows (Warmech HP summed over locations)."""
    rows = []
    for u in rules.iter_units():
        mech = u if isinstance(u, Warmech) else None
        rows.append({
            "rules_id": rules.id, "code": u.code, "name": u.name, "kind": u.kind,
            "body": mech.body if mech else None, "weight_class": rules.weight_class(mech) if mech else None,
            "tons": mech.tons if mech else None,
            "hp": sum(mech.location_hp().values()) if mech else u.hp,
            "mov": u.mov, "def": u.def_, "arm": u.arm, "spt": u.spt, "pts": u.pts,
        })
    return rows


def weapon_rows(rules: RulesVersion) -> list[dict[str, Any]]:
    """Every weapon of ``rules`` as ``rules_weapons`` rows."""
    return [{"rules_id": rules.id, "code": w.code, "name": w.name, "rng": w.rng, "acc": w.acc, "rpt": w.rpt,
             "strength": w.strength, "ton": w.ton} for w in rules.weapons]
