"""What-if dice maths: a variant side by side with its base, exactly.

Builds on :mod:`.dice`. :func:`kill_within` gives P(the target is destroyed within n
attacks of one weapon) for every n: the number of hits needed is a random variable (fixed
for a basic unit; for a Warmech its distribution comes from the same Markov chain of hit
locations as :func:`~.dice.expected_hits_to_kill`), and the number of hits in n attacks is
binomial with the chance to hit. Everything is a :class:`fractions.Fraction`.
"""

from __future__ import annotations

from fractions import Fraction
from functools import cache
from math import ceil, comb

import polars as pl

from pmim_analytics.analytics.dice import damage_on_hit, dice_table, hit_chain, p_hit
from pmim_analytics.errors import UnknownNameError
from pmim_analytics.rules.catalogue import find_unit, find_weapon
from pmim_analytics.rules.models import Chassis, RulesVersion, Warmech

#: The columns of :func:`dice_comparison` that say how a weapon fares against a target.
COMPARED = ("p_hit", "damage_on_hit", "expected_damage", "expected_attacks_to_kill")


def hits_to_kill_distribution(target: Chassis | Warmech, damage: int,
                              chart: tuple[str, ...] | None = None) -> dict[int, Fraction]:
    """P(exactly h hits destroy ``target``) for each h, with ``damage`` per hit ({} when 0).

    ``chart`` is the body's six-face hit-location chart (required for a Warmech); a face
    naming a destroyed or absent location is re-rolled. Raises ``ValueError`` without it.
    """
    if damage <= 0:
        return {}
    if isinstance(target, Chassis):
        return {ceil(target.hp / damage): Fraction(1)}
    return dict(_hit_distribution(*hit_chain(target, damage, chart)))


@cache
def _hit_distribution(faces: tuple[int, ...], kills: tuple[tuple[int, ...], ...],
                      start: tuple[int, ...]) -> tuple[tuple[int, Fraction], ...]:
    """Distribution of the number of hits until a kill set is all zero (forward over states)."""
    def dead(s: tuple[int, ...]) -> bool:
        return any(all(s[i] == 0 for i in cond) for cond in kills)

    out: dict[int, Fraction] = {}
    layer = {start: Fraction(1)}
    h = 0
    while layer:
        h += 1
        nxt: dict[tuple[int, ...], Fraction] = {}
        for state, p in layer.items():
            live = [i for i in faces if i >= 0 and state[i] > 0]
            for i in live:
                s = state[:i] + (state[i] - 1,) + state[i + 1:]
                q = p / len(live)
                if dead(s):
                    out[h] = out.get(h, Fraction(0)) + q
                else:
                    nxt[s] = nxt.get(s, Fraction(0)) + q
        layer = nxt
    return tuple(sorted(out.items()))


def _binomial_tail(n: int, k: int, p: Fraction) -> Fraction:
    """P(at least k successes in n trials with chance p)."""
    if k <= 0:
        return Fraction(1)
    if k > n:
        return Fraction(0)
    q = 1 - p
    return sum((comb(n, j) * p**j * q ** (n - j) for j in range(k, n + 1)), Fraction(0))


def kill_within(rules: RulesVersion, weapon: str, target: str, attacks: int) -> list[Fraction]:
    """P(one weapon destroys ``target`` within n attacks) for n = 0..``attacks``.

    ``weapon`` and ``target`` are codes or names of ``rules`` (raises
    :class:`~pmim_analytics.errors.UnknownNameError` for one that does not exist).
    """
    w = find_weapon(rules, weapon)
    u = find_unit(rules, target)
    p = p_hit(w.acc, u.def_)
    chart = rules.hit_charts[u.body] if isinstance(u, Warmech) else None
    dist = hits_to_kill_distribution(u, damage_on_hit(w.strength, w.rpt, u.arm), chart)
    return [sum((ph * _binomial_tail(n, h, p) for h, ph in dist.items()), Fraction(0)) for n in range(attacks + 1)]


def kill_curves(versions: list[RulesVersion], weapon: str, targets: list[str], attacks: int = 12) -> pl.DataFrame:
    """P(kill within n attacks) of one weapon against each target, under each rules version.

    Columns: rules_id, weapon, target_code, target, attacks, p_kill (float), p_kill_exact (text).
    A weapon or target missing from a version is left out for that version.
    """
    recs = []
    for r in versions:
        for t in targets:
            try:
                u = find_unit(r, t)
                w = find_weapon(r, weapon)
            except UnknownNameError:
                continue
            for n, pk in enumerate(kill_within(r, w.code, u.code, attacks)):
                recs.append({"rules_id": r.id, "weapon": w.code, "target_code": u.code, "target": u.name,
                             "attacks": n, "p_kill": float(pk),
                             "p_kill_exact": str(pk.numerator) if pk.denominator == 1 else f"{pk.numerator}/"
                                                                                            f"{pk.denominator}"})
    return pl.DataFrame(recs, schema={"rules_id": pl.Utf8, "weapon": pl.Utf8, "target_code": pl.Utf8,
                                      "target": pl.Utf8, "attacks": pl.Int64, "p_kill": pl.Float64,
                                      "p_kill_exact": pl.Utf8})


def dice_comparison(base: RulesVersion, variant: RulesVersion, changed_only: bool = True) -> pl.DataFrame:
    """Every weapon against every target under ``base`` and ``variant``, side by side.

    Columns: weapon, weapon_name, target_code, target, then ``<col>_base`` and ``<col>_variant``
    for each of :data:`COMPARED`, ``expected_attacks_to_kill_exact_base/_variant`` and
    ``attacks_change`` (variant minus base expected attacks to destroy; null where either
    cannot destroy it). ``changed_only`` keeps the pairs whose numbers differ.
    """
    keys = ["weapon", "target_code"]
    cols = [*COMPARED, "expected_attacks_to_kill_exact"]
    a = dice_table(base).select("weapon", "weapon_name", "target_code", "target", *cols)
    b = dice_table(variant).select(*keys, *cols)
    t = a.rename({c: f"{c}_base" for c in cols}).join(b.rename({c: f"{c}_variant" for c in cols}), on=keys,
                                                      how="inner")
    t = t.with_columns(attacks_change=pl.col("expected_attacks_to_kill_variant")
                       - pl.col("expected_attacks_to_kill_base"))
    if changed_only:
        differs = pl.lit(False)
        for c in COMPARED:
            differs = differs | pl.col(f"{c}_base").ne_missing(pl.col(f"{c}_variant"))
        t = t.filter(differs)
    return t.sort("weapon", "target_code")
