"""Compositions: win rates with intervals per rules version, VP by round, game length, matchups."""

from __future__ import annotations

import _shared as sh
import polars as pl
import streamlit as st

from pmim_analytics.report import figures
from pmim_analytics.report.dashboard_figures import length_figure, matchup_difference_heatmap

st.title("Compositions across rules versions")
f = sh.sidebar()


def body() -> None:
    if sh.empty_state(f, "the composition comparison"):
        return
    prov = sh.provenance(f)
    if sh.no_selection(f, prov):
        return
    sh.level_caption(f)
    comps = sh.report("compositions", f)
    by_games = comps.group_by("composition").agg(pl.col("games").sum()).sort(["games", "composition"],
                                                                             descending=[True, False])
    names = by_games["composition"].to_list()
    default = [f.composition] if f.composition in names else [n for n in names if not n.startswith("random")][:6]
    picked = st.multiselect("Compositions to compare", names, default=default, key=f"comp_pick_{f.composition or ''}",
                            help="Army lists by name; random armies are named 'random N'.")
    sources = sorted(comps["source"].unique().to_list())
    source = st.radio("Games from", sources, index=sources.index("engine") if "engine" in sources else 0,
                      horizontal=True, key="comp_source") if len(sources) > 1 else (sources[0] if sources else None)
    if not picked:
        st.info("Pick two or more compositions above.")
        return
    sel = comps.filter(pl.col("composition").is_in(picked))
    st.plotly_chart(figures.win_rate_figure(sel, prov, source=source), key="win_rates")
    with st.expander("The numbers"):
        sh.table(sel, {"rules_id": "Rules", "source": "Source", "composition": "Composition", "games": "Games",
                       "wins": "Wins", "draws": "Draws", "losses": "Losses", "win_rate": "Win %",
                       "win_lo": "95% from", "win_hi": "95% to", "vp_margin": "VP margin (mean)",
                       "mean_rounds": "Rounds (mean)"},
                 percent=("win_rate", "win_lo", "win_hi"), digits={"mean_rounds": 1})

    q = sh.report("quality", f)
    st.header("VP by round and game length")
    rids = sorted(q.vp_by_round["rules_id"].unique().to_list())
    drawn = st.multiselect("Rules versions to draw (two lines each: blue and red)", rids, default=rids[:3],
                           max_selections=4, key="vp_rules", help="Up to four at a time, so the lines stay readable.")
    vp = q.vp_by_round.filter(pl.col("rules_id").is_in(drawn or rids[:3]))
    st.plotly_chart(figures.vp_by_round_figure(vp, prov, source=source), key="vp_rounds")
    lengths = q.lengths.filter(pl.col("rules_id").is_in(drawn or rids[:3]))
    st.plotly_chart(length_figure(lengths, prov, source=source), key="lengths")
    st.caption("VP by round and game length are over every game of the selection (all compositions).")

    st.header("Matchups")
    m = sh.report("matchups", f).filter(pl.col("composition").is_in(picked) & pl.col("opp_composition").is_in(picked))
    ids = sorted(m["rules_id"].unique().to_list())
    if not ids:
        st.info("These compositions never met each other in the selection.")
        return
    tabs = st.tabs([f"rules {r}" for r in ids])
    for tab, rid in zip(tabs, ids, strict=True):
        tab.plotly_chart(figures.matchup_heatmap(m, rid, prov, source=source), key=f"matchups_{rid}")
    # the diff pairs lists by content, so a list and its translation to another version are one row
    by_list = sh.report("matchups_by_list", f).filter(pl.col("list").is_in(picked) & pl.col("opp_list").is_in(picked))
    ids = sorted(by_list["rules_id"].unique().to_list())
    if len(ids) >= 2:
        c = st.columns(2)
        a = c[0].selectbox("Difference from", ids, index=0, key="diff_a")
        b = c[1].selectbox("to", ids, index=1, key="diff_b")
        st.plotly_chart(matchup_difference_heatmap(by_list, a, b, prov, key="list", source=source),
                        key="matchup_diff")
        st.caption("Lists are matched by their units and weapons, so a list translated to another rules version "
                   "(`pmim army translate`) is compared with itself. ~ marks a saturated pairing (won or lost "
                   "95-100% of the time: a change cannot show), * a change whose interval excludes 0.")


sh.page_errors(body)
