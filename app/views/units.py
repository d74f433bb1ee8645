"""Units: damage, damage per point, survival, VP per point, implied costs next to PTS."""

from __future__ import annotations

import _shared as sh
import polars as pl
import streamlit as st

from pmim_analytics.analytics.implied_costs import COST_VERDICTS
from pmim_analytics.report import figures
from pmim_analytics.report.dashboard_figures import (
    add_top_axis,
    implied_cost_figure,
    most_common_codes,
    unit_metric_figure,
)

st.title("Units: what each type does for its points")
f = sh.sidebar()

METRICS = {
    "Damage per point": ("damage_per_pt", "damage_per_pt_ci", "damage dealt per point of cost, per game"),
    "VP contribution per point": ("vp_per_pt", "vp_per_pt_ci", "VP share per point of cost, per game"),
    "Damage dealt per game": ("damage_dealt", "damage_dealt_ci", "damage dealt per unit per game"),
    "Survival to the end": ("survival_rate", None, "share of games the unit survives"),
}


def body() -> None:
    if sh.empty_state(f, "the unit statistics"):
        return
    prov = sh.provenance(f)
    if sh.no_selection(f, prov):
        return
    sh.level_caption(f)
    units = sh.report("units", f)
    sources = sorted(units["source"].unique().to_list())
    source = st.radio("Games from", sources, index=sources.index("engine") if "engine" in sources else 0,
                      horizontal=True, key="units_source") if len(sources) > 1 else (sources[0] if sources else None)
    metric = st.selectbox("Measure", list(METRICS), key="units_metric")
    col, ci, axis = METRICS[metric]
    fig = unit_metric_figure(units, col, ci, metric, axis, prov, source=source)
    if fig.layout.height and fig.layout.height > 700:  # tall: the axis on top too, readable without scrolling
        add_top_axis(fig)
    st.plotly_chart(fig, key="unit_metric")

    st.header("Survival (Kaplan-Meier)")
    surv = sh.report("survival", f)
    ids = sorted(surv["rules_id"].unique().to_list())
    if ids:
        c = st.columns([1, 3])
        rid = c[0].selectbox("Rules version", ids, index=ids.index("v3") if "v3" in ids else 0, key="km_rules")
        names: dict[str, str] = dict(surv.filter(pl.col("rules_id") == rid).select("code", "type").unique().iter_rows())
        top = most_common_codes(surv, rid, 6, source)
        codes = c[1].multiselect("Unit types", sorted(names, key=names.__getitem__), default=top, key=f"km_codes_{rid}",
                                 format_func=names.__getitem__, max_selections=8,
                                 help="Up to 8 at a time, so the curves stay readable; the six most fielded "
                                      "types to start with.")
        st.plotly_chart(figures.km_figure(surv, rid, prov, codes or top, source=source), key="km")
    else:
        st.info("No unit survival data in this selection.")

    st.header("Implied point costs")
    fit = sh.report("costs", f)
    st.plotly_chart(implied_cost_figure(fit.table, prov), key="costs")
    for r in fit.summary.iter_rows(named=True):
        st.caption(f"{r['rules_id']}: {r['message']}")
    sh.legend({k: v for k, v in COST_VERDICTS.items() if k in set(fit.table["verdict"].to_list())})
    with st.expander("Unit table"):
        # unknown is not zero: a figure with nothing recorded behind it reads "not recorded",
        # and the unit-games a log did not record are counted, not folded in as 0 or survived
        def known(expr: pl.Expr, missing: str) -> pl.Expr:
            return pl.when(pl.col(missing) == pl.col("units")).then(pl.lit("not recorded")).otherwise(
                expr.cast(pl.Utf8))
        shown = units.select("rules_id", "source", "type", "units", "pts",
                             known(pl.col("damage_per_pt").round(3), "combat_not_recorded").alias("damage_per_pt"),
                             pl.col("vp_per_pt").round(4),
                             known((pl.col("hit_rate") * 100).round(1), "combat_not_recorded").alias("hit"),
                             known((pl.col("survival_rate") * 100).round(1), "fate_not_recorded").alias("survives"),
                             known(pl.col("kills"), "combat_not_recorded").alias("kills"),
                             "combat_not_recorded", "fate_not_recorded")
        sh.table(shown, {"rules_id": "Rules", "source": "Source", "type": "Unit type", "units": "Unit-games",
                         "pts": "PTS", "damage_per_pt": "Damage / pt", "vp_per_pt": "VP / pt", "hit": "Hit %",
                         "survives": "Survives %", "kills": "Kills", "combat_not_recorded": "Combat not recorded",
                         "fate_not_recorded": "Fate not recorded"}, digits={"pts": 1, "vp_per_pt": 4})


sh.page_errors(body)
