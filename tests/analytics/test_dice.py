"""The dice-maths table against exact fractions computed independently here."""

from __future__ import annotations

from fractions import Fraction
from itertools import permutations, product
from math import ceil

import pytest

from pmim_analytics.analytics.dice import dice_rows, dice_table, expected_hits_to_kill, p_hit
from pmim_analytics.rules import find_unit, load_rules
from pmim_analytics.rules.models import Warmech


def enumerate_p_hit(acc: int, defense: int) -> Fraction:
    hits = sum(1 for a, b in product(range(1, 7), repeat=2) if a + b + acc >= defense)
    return Fraction(hits, 36)


def forward_expected_hits(mech: Warmech, chart: tuple[str, ...], damage: int) -> Fraction:
    """E[hits] = sum over k of P(still standing after k hits), by pushing probability forward."""
    hp = mech.location_hp()
    kill = [("left_torso", "right_torso")] if mech.body == "humanoid" else [("center_torso",)]
    state0 = tuple(sorted(hp.items()))
    dist = {state0: Fraction(1)}
    expected = Fraction(0)
    while dist:
        expected += sum(dist.values())  # P(T > k)
        nxt: dict = {}
        for state, p in dist.items():
            left = dict(state)
            live = [loc for loc in chart if left.get(loc, 0) > 0]
            for loc in live:
                after = dict(left)
                after[loc] = max(0, after[loc] - damage)
                if any(all(after[x] == 0 for x in cond) for cond in kill):
                    continue
                key = tuple(sorted(after.items()))
                nxt[key] = nxt.get(key, Fraction(0)) + p / len(live)
        dist = nxt
    return expected


def test_p_hit_matches_enumeration_for_every_acc_and_def() -> None:
    for acc in range(0, 5):
        for defense in range(2, 17):
            assert p_hit(acc, defense) == enumerate_p_hit(acc, defense)


@pytest.mark.parametrize("rules_id", ["v1", "v2", "v3", "v3-llaser-rpt4"])
def test_every_row_of_the_table_is_exact(rules_id: str) -> None:
    rules = load_rules(rules_id)
    rows = dice_rows(rules)
    assert len(rows) == len(rules.weapons) * len(rules.iter_units())
    for r in rows:
        w = next(x for x in rules.weapons if x.code == r.weapon)
        u = find_unit(rules, r.target_code)
        p = enumerate_p_hit(w.acc, u.def_)
        dmg = max(0, w.strength - u.arm) * w.rpt
        assert (r.p_hit, r.damage_on_hit, r.expected_damage) == (p, dmg, p * dmg)
        if dmg == 0:
            assert r.expected_attacks_to_kill is None
        elif not isinstance(u, Warmech):
            assert r.expected_attacks_to_kill == Fraction(ceil(u.hp / dmg)) / p


def test_gauss_gun_against_a_timber_wolf_is_a_coupon_problem() -> None:
    # Every location of a v3 Timber Wolf falls to one 3-damage hit, and hits never land on a
    # destroyed location, so the hits follow a random order of the six locations: it dies when
    # the later of its two torsos comes up.
    orders = list(permutations(range(6)))
    mean_position = Fraction(sum(max(o.index(4), o.index(5)) + 1 for o in orders), len(orders))
    assert mean_position == Fraction(14, 3)
    row = next(r for r in dice_rows(load_rules("v3"), target="TW", weapon="GG"))
    assert row.expected_hits_to_kill == mean_position
    assert row.expected_attacks_to_kill == mean_position / Fraction(26, 36)
    assert row.min_hits_to_kill == 2


@pytest.mark.parametrize("rules_id,mech,damage", [
    ("v3", "PA", 2), ("v3", "PA", 1), ("v3", "GR", 2), ("v3", "CO", 1), ("v3", "SH", 3),
    ("v1", "CO", 2), ("v2", "CO", 1), ("v3", "MJ", 3),
])
def test_warmech_hits_to_kill_equal_a_forward_calculation(rules_id: str, mech: str, damage: int) -> None:
    rules = load_rules(rules_id)
    m = find_unit(rules, mech)
    assert isinstance(m, Warmech)
    chart = rules.hit_charts[m.body]
    assert expected_hits_to_kill(m, damage, chart) == forward_expected_hits(m, chart, damage)


def test_infantry_range_column_applies_the_light_weapon_penalty() -> None:
    t = dice_table(load_rules("v3"), target="IN")
    rng = dict(zip(t["weapon"], t["rng_infantry"], strict=True))
    assert rng["LL"] == 4 and rng["LAC"] == 3 and rng["LPC"] == 1
    assert rng["GG"] is None and rng["HPB"] is None
    v1 = dice_table(load_rules("v1"), target="IN")
    assert dict(zip(v1["weapon"], v1["rng_infantry"], strict=True))["SA"] == 1


def test_light_laser_cannot_hurt_a_warmech_and_rpt4_one_shots_infantry() -> None:
    v3 = {(r.weapon, r.target_code): r for r in dice_rows(load_rules("v3"), weapon="LL")}
    assert v3[("LL", "PA")].damage_on_hit == 0 and v3[("LL", "PA")].expected_attacks_to_kill is None
    assert v3[("LL", "IN")].min_hits_to_kill == 2
    rpt4 = {r.target_code: r for r in dice_rows(load_rules("v3-llaser-rpt4"), weapon="LL")}
    assert rpt4["IN"].min_hits_to_kill == 1
    assert rpt4["IN"].expected_attacks_to_kill == 1 / Fraction(26, 36)


# -- heat (optional rule): exact overheat odds ---------------------------------------------
def test_the_supplements_worked_example_in_pmim_terms() -> None:
    """Heat rating 6; two 15-ton weapons (3 heat each) make 6, no roll; then a 5-ton weapon
    overheats on a 1, a 10-ton weapon after it on 3 or less, another 5-ton weapon on 4 or less."""
    from pmim_analytics.analytics.dice import overheat_sequence_table

    t = overheat_sequence_table(6, [3, 3, 1, 2, 1], ["HL", "HAC", "LL", "ML", "LAC"])
    assert t["total_heat"].to_list() == [3, 6, 7, 9, 10]
    assert t["excess"].to_list() == [0, 0, 1, 3, 4]
    assert t["p_overheat_exact"].to_list() == ["0", "0", "1/6", "1/2", "2/3"]
    # at least one overheat over the three rolls: 1 - 5/6 * 1/2 * 1/3 = 31/36
    assert t["p_any_overheat_exact"].to_list()[-1] == "31/36"


def test_overheat_odds_use_the_variants_ratings_and_weapon_heat() -> None:
    from pmim_analytics.analytics.dice import warmech_overheat_table
    from pmim_analytics.rules import load_rules

    t = warmech_overheat_table(load_rules("v3-heat"), "TW", ["GG", "ML"])  # medium: rating 4; 4 + 2 heat
    assert t["excess"].to_list() == [0, 2] and t["p_overheat_exact"].to_list() == ["0", "1/3"]
    import pytest
    with pytest.raises(ValueError, match="no heat rule"):
        warmech_overheat_table(load_rules("v3"), "TW", ["GG"])


def test_observed_overheat_rates_match_the_exact_odds_over_10000_engine_rolls() -> None:
    """Through the engine: at each excess 1-6 a Warmech fires once and the driver's optional-rule
    dice decide; the observed rate stays within 4 standard errors of the exact chance."""
    from math import sqrt

    from pmim_analytics.engine.actions import ActivateUnit, FireWeapon
    from pmim_analytics.engine.dice import optional_rule_dice
    from pmim_analytics.engine.spec import GameSpec
    from pmim_analytics.engine.state import GameState
    from pmim_analytics.model.events import OverheatRoll
    from pmim_analytics.rules.mechanics import overheat_chance
    from pmim_analytics.rules.optional import OptionalRules
    from tests.support.positions import roster

    b = roster("v3", [("GR", ("HAC", "HL", "ML"), (0, 0))], "b")
    r = roster("v3", [("PA", ("HL", "HAC"), (0, 0))], "r")
    dice = optional_rule_dice(15, 0)
    per_level = 1700  # 6 levels: 10,200 rolls
    for excess in range(1, 7):
        optional = OptionalRules.model_validate({"heat": {"ratings": {"heavy": 0, "medium": 0, "light": 0,
                                                                      "ultralight": 0}, "weapons": {"HAC": excess}}})
        spec = GameSpec.create("v3", "take-and-hold", b, r, optional_rules=optional)
        start = GameState.from_position(spec, {"B:GR1": (5, 5), "R:PA1": (5, 3)})
        start.apply(ActivateUnit("B:GR1"))
        start.apply(FireWeapon("B:GR1", "LA", "R:PA1"))
        start.apply_roll((1, 1))  # a miss: the overheat roll comes next
        overheated = 0
        for _ in range(per_level):
            st = start.clone()
            st.apply_roll(dice.roll(1))
            ev = st.events[-1]
            assert isinstance(ev, OverheatRoll) and ev.excess == excess
            overheated += ev.overheated
        p = float(overheat_chance(excess))
        se = sqrt(p * (1 - p) / per_level)
        assert abs(overheated / per_level - p) <= 4 * se + 1e-12, (excess, overheated / per_level, p)


def test_pmim_dice_overheat_prints_the_exact_odds_and_refuses_a_version_without_heat() -> None:
    from tests.support.cli import pmim_in_process  # the output is the point, not the process

    ok = pmim_in_process("dice", "--rules", "v3-heat", "--overheat", "Timber Wolf:GG,ML", "--exact", "--format", "csv")
    assert ok.returncode == 0, ok.stderr
    rows = [line.split(",") for line in ok.stdout.strip().splitlines()]
    assert rows[0][:5] == ["shot", "weapon", "heat", "total_heat", "excess"]
    assert [r[1] for r in rows[1:]] == ["GG", "ML"] and rows[2][6] == "1/3"
    bad = pmim_in_process("dice", "--rules", "v3", "--overheat", "Timber Wolf:GG")
    assert bad.returncode == 2 and "no heat rule" in bad.stderr and "Traceback" not in bad.stderr


def test_the_luck_index_counts_overheat_and_initiative_dice() -> None:
    """Hand-made events: blue made two overheat rolls (excess 1 and 3: expected 1/6 + 1/2) and
    overheated once; blue won the initiative in 3 of 4 decided rounds (a tie is not counted)."""
    import math

    import polars as pl

    from pmim_analytics.analytics.luck import luck_summary, with_optional_dice
    from pmim_analytics.analytics.optional_rules import optional_dice_luck

    rows = [
        {"game_id": "g", "type": "overheat_roll", "unit": "B:TW1", "needed": 1, "hit": False, "side": None},
        {"game_id": "g", "type": "overheat_roll", "unit": "B:TW1", "needed": 3, "hit": True, "side": None},
        *({"game_id": "g", "type": "initiative_roll", "unit": None, "needed": None, "hit": None, "side": s}
          for s in ("blue", "blue", None, "red", "blue")),
    ]
    ev = pl.DataFrame(rows, schema={"game_id": pl.Utf8, "type": pl.Utf8, "unit": pl.Utf8, "needed": pl.Int64,
                                    "hit": pl.Boolean, "side": pl.Utf8})
    t = {r["side"]: r for r in optional_dice_luck(ev).iter_rows(named=True)}
    exp, var = 1 / 6 + 1 / 2, 1 / 6 * 5 / 6 + 1 / 4
    assert t["blue"]["expected_overheats"] == pytest.approx(exp)
    assert t["blue"]["heat_z"] == pytest.approx((exp - 1) / math.sqrt(var))  # one overheat: unlucky
    assert t["blue"]["initiative_z"] == pytest.approx((3 - 2) / 1.0) and t["red"]["initiative_z"] == -1.0
    assert t["red"]["heat_z"] is None
    luck = pl.DataFrame({"game_id": ["g", "g"], "rules_id": ["v3-x"] * 2, "source": ["engine"] * 2,
                         "side": ["blue", "red"], "luck_z": [0.5, -0.5], "won": [True, False]})
    combined = {r["side"]: r["dice_z"] for r in with_optional_dice(luck, optional_dice_luck(ev)).iter_rows(named=True)}
    assert combined["blue"] == pytest.approx((0.5 + t["blue"]["heat_z"] + 1.0) / math.sqrt(3))
    assert combined["red"] == pytest.approx((-0.5 - 1.0) / math.sqrt(2))
    # without optional-rule dice the index is the damage luck, as before
    plain = with_optional_dice(luck, optional_dice_luck(ev.head(0)))
    assert plain["dice_z"].to_list() == [0.5, -0.5]
    assert luck_summary(plain)["luckier_won"].to_list() == [1]
