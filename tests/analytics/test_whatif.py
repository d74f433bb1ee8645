"""What-if: exact kill curves, base against variant, and variants built from edits."""

from __future__ import annotations

from fractions import Fraction

import pytest

from pmim_analytics.analytics.dice import dice_rows
from pmim_analytics.analytics.whatif import dice_comparison, hits_to_kill_distribution, kill_curves, kill_within
from pmim_analytics.rules import load_rules
from pmim_analytics.rules.catalogue import find_unit
from pmim_analytics.rules.variant_edit import (
    VariantFieldError,
    build_variant,
    is_pricing_only,
    nest_overrides,
    write_variant,
)


def test_light_laser_against_infantry_by_hand() -> None:
    # v3: L. Laser ACC 2, RPT 3, STR 1; Infantry DEF 8, ARM 0, HP 4. A hit needs 2d6 >= 6 (26/36 = 13/18)
    # and deals 3, so two hits kill: P(kill within n) = P(at least 2 hits in n).
    p = Fraction(13, 18)
    got = kill_within(load_rules("v3"), "LL", "Infantry", 3)
    assert got == [0, 0, p * p, p**3 + 3 * p * p * (1 - p)]
    # RPT 4 deals 4: one hit kills.
    assert kill_within(load_rules("v3-llaser-rpt4"), "LL", "IN", 2) == [0, p, 1 - (1 - p) ** 2]


def test_no_damage_never_kills() -> None:
    assert kill_within(load_rules("v3"), "LL", "MJ", 10) == [0] * 11  # STR 1 against ARM 2


@pytest.mark.parametrize("target", ["MJ", "DR", "GN", "RA", "TW"])
def test_warmech_distribution_matches_the_expected_hits(target: str) -> None:
    r = load_rules("v3")
    row = dice_rows(r, target, "HAC")[0]
    u = find_unit(r, target)
    dist = hits_to_kill_distribution(u, row.damage_on_hit, r.hit_charts[u.body])
    assert sum(dist.values()) == 1
    assert min(dist) == row.min_hits_to_kill
    assert sum(h * q for h, q in dist.items()) == row.expected_hits_to_kill
    curve = kill_within(r, "HAC", target, 40)
    assert all(a <= b for a, b in zip(curve, curve[1:], strict=False))


def test_comparison_keeps_only_what_changed() -> None:
    t = dice_comparison(load_rules("v3"), load_rules("v3-llaser-rpt4"))
    assert t.select("weapon", "target_code").rows() == [("LL", "IN")]
    assert t["expected_attacks_to_kill_exact_base"].item() == "36/13"
    assert t["expected_attacks_to_kill_exact_variant"].item() == "18/13"
    assert dice_comparison(load_rules("v3"), load_rules("v3-mjolnir-16")).height == 0
    curves = kill_curves([load_rules("v3"), load_rules("v3-llaser-rpt4")], "LL", ["IN"], 1)
    assert curves.filter(curves["attacks"] == 1)["p_kill_exact"].to_list() == ["0", "13/18"]


def test_bad_edits_are_refused_with_their_field() -> None:
    with pytest.raises(VariantFieldError) as e:
        build_variant("v3", "v3-ll-rpt0", "LL RPT 0", nest_overrides({("weapons", "LL", "rpt"): 0}))
    assert e.value.field == "weapons.LL.rpt"
    with pytest.raises(VariantFieldError) as e:
        build_variant("v3", "v3-mj", "MJ", nest_overrides({("warmechs", "MJ", "hp.torso"): -1}))
    assert e.value.field == "warmechs.MJ.hp.torso"
    with pytest.raises(VariantFieldError) as e:
        build_variant("v3", "v3-mj", "MJ", nest_overrides({("warmechs", "MJ", "hp.center"): 3}))
    assert e.value.field.startswith("warmechs.MJ") and "humanoid" in e.value.message
    with pytest.raises(VariantFieldError) as e:
        build_variant("v3", "v3-llaser-rpt4", "again", nest_overrides({("weapons", "LL", "rpt"): 5}))
    assert e.value.field == "id"
    with pytest.raises(VariantFieldError) as e:
        build_variant("v3", "Bad Id!", "x", nest_overrides({("weapons", "LL", "rpt"): 5}))
    assert e.value.field == "id"
    with pytest.raises(VariantFieldError) as e:
        build_variant("v3", "v3-same", "same", nest_overrides({("weapons", "LL", "rpt"): 3}))
    assert e.value.field == "overrides"


def test_a_written_variant_loads_like_any_other(data_copy) -> None:  # noqa: ANN001
    overrides = nest_overrides({("weapons", "LL", "rpt"): 4, ("warmechs", "MJ", "pts"): 16})
    assert not is_pricing_only(overrides)
    assert is_pricing_only(nest_overrides({("warmechs", "MJ", "pts"): 16}))
    path = write_variant("v3", "v3-ll4-mj16", "v3 with LL RPT 4, MJ 16", overrides, "made in a test")
    assert path.parent == data_copy / "rules" / "variants"
    v = load_rules("v3-ll4-mj16")
    assert v.base == "v3" and find_unit(v, "MJ").pts == 16
    assert next(w for w in v.weapons if w.code == "LL").rpt == 4


def test_which_edited_items_a_list_fields() -> None:
    from pmim_analytics.rules import load_army, validate_army
    from pmim_analytics.rules.catalogue import data_dir
    from pmim_analytics.rules.variant_edit import edited_codes_fielded, variant_overrides

    assert variant_overrides("v3-llaser-rpt4") == {"weapons": {"LL": {"rpt": 4}}}
    assert variant_overrides("v3") == {}
    balanced = validate_army(load_army(data_dir() / "armies" / "v3-balanced.yaml"), rules_id="v3")
    swarm = validate_army(load_army(data_dir() / "armies" / "v3-infantry-swarm.yaml"), rules_id="v3")
    assert edited_codes_fielded(balanced, variant_overrides("v3-llaser-rpt4")) == ["LL"]
    assert edited_codes_fielded(swarm, variant_overrides("v3-llaser-rpt4")) == []
    assert edited_codes_fielded(swarm, variant_overrides("v3-mjolnir-16")) == ["MJ"]
