"""Weapons & dice: the exact dice maths of a rules version, and observed against expected hit rates."""

from __future__ import annotations

import _shared as sh
import streamlit as st

from pmim_analytics.analytics.weapons import dice_test_note
from pmim_analytics.report import figures
from pmim_analytics.rules.variant_edit import is_pricing_only, variant_overrides

st.title("Weapons & dice")
f = sh.sidebar()

VALUES = {"Expected attacks to destroy": "expected_attacks_to_kill", "Expected damage per attack": "expected_damage",
          "Chance to hit": "p_hit"}


def body() -> None:
    st.header("Exact dice maths")
    st.caption("Computed from the rules alone (2d6 + ACC against DEF, damage (STR − ARM) × RPT): no games needed. "
               "To change a stat and see these numbers move, use the **What-if** page.")
    all_ids = sh.rules_ids()
    c = st.columns(2)
    default = f.rules_ids[0] if f.rules_ids and f.rules_ids[0] in all_ids else ("v3" if "v3" in all_ids else all_ids[0])
    rid = c[0].selectbox("Rules version or variant", all_ids, index=all_ids.index(default), key="dice_rules")
    value = c[1].selectbox("Show", list(VALUES), key="dice_value")
    if is_pricing_only(variant_overrides(rid)):
        st.info(f"{rid} changes points only, so its dice maths are exactly {sh.rules(rid).base}'s; what the price "
                "is worth is a question for the Units page's implied costs (see What-if).", icon="💰")
    d = sh.dice(rid)
    st.plotly_chart(figures.dice_heatmap(d, VALUES[value]), key="dice")

    st.header("Observed against expected hit rates")
    if sh.empty_state(f, "the observed hit rates"):
        return
    prov = sh.provenance(f)
    if sh.no_selection(f, prov):
        return
    sh.level_caption(f)
    w = sh.report("weapons", f)
    st.plotly_chart(figures.hit_rate_figure(w, prov), key="hit_rates")
    with st.expander("Weapon table"):
        sh.table(w, {"rules_id": "Rules", "source": "Source", "weapon": "Weapon", "target_kind": "Target",
                     "attacks": "Attacks", "hit_rate": "Hit %", "expected_hit_rate": "Expected hit %",
                     "hit_p": "p (observed vs expected)", "mean_damage": "Damage per attack",
                     "expected_mean_damage": "Expected damage per attack"},
                 percent=("hit_rate", "expected_hit_rate"), digits={"hit_p": 4})
        if note := dice_test_note(w):
            st.caption(note)


sh.page_errors(body)
