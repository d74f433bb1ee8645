"""Overview: who dominates each rules version at one bot level, what moved against the previous
version, what the database holds, the newest games, and the headline balance signals."""

from __future__ import annotations

import _shared as sh
import polars as pl
import streamlit as st

from pmim_analytics.analytics import balance
from pmim_analytics.analytics.flags import family_note
from pmim_analytics.analytics.implied_costs import COST_VERDICTS
from pmim_analytics.analytics.levels import level_name
from pmim_analytics.report.dashboard_figures import balance_figure, games_figure
from pmim_analytics.report.summary import composition_signals, cost_caveats, cost_signals, side_signals

st.title("PMIM balance overview")
f = sh.sidebar()


def glance() -> str | None:
    """The first screen: per rules id at the sidebar's bot level, the compositions by win rate and the movers."""
    st.header("Balance at a glance")
    cells = sh.report("cells", f)  # at the sidebar's level
    level = f.level
    if level is None or balance.level_games(cells).height == 0:
        st.info("No engine games where both sides played at one bot level in this selection, so no balance to "
                "show: simulate some (Simulate page), widen the sidebar's filters or pick another bot level.",
                icon="🎲")
        return None
    name = level_name(level)
    st.caption(f"Bot level **{name}** (both sides), from the sidebar: "
               + (f"{f.level_choice.reason}." if f.level_choice and f.picked_level is None else "picked there.")
               + " Levels are never pooled: another level is another question.")
    c = st.columns([2, 3])
    table = balance.balance_table(cells, level)
    ids = table.filter(pl.col("games") > 0)["rules_id"].unique(maintain_order=True).to_list()
    lines = [h for rid in ids if (h := balance.headline(table, rid, name))]
    for line in lines:
        st.markdown(f"- **{line.split(':', 1)[0]}**:{line.split(':', 1)[1]}")
    st.caption("Win rate of each composition over its games (mirrors left out, a draw is not a win), "
               "95% Wilson interval in brackets; the same numbers as `pmim report compositions` on these games.")
    if not ids:
        return level
    rid = c[0].selectbox("Rules version to chart", ids, index=ids.index("v3") if "v3" in ids else 0,
                         key="overview_rules")
    left, right = st.columns([3, 2])
    left.plotly_chart(balance_figure(table, rid, name, sh.provenance(f)), key="balance")
    with right:
        prev = balance.previous_rules(rid, ids)
        st.subheader(f"Movers: {prev} → {rid}" if prev else "Movers")
        if prev is None:
            st.write(f"No earlier rules version (or base of the variant) has games at {name} to compare {rid} "
                     "with.")
            return level
        moved = balance.movers(table, rid, prev)
        if moved.height == 0:
            st.write(f"No composition was played under both {prev} and {rid} at {name}.")
            return level
        sh.table(moved, {"composition": "Composition", "games_before": f"Games {prev}",
                         "win_before": f"Win % {prev}", "games": f"Games {rid}", "win_rate": f"Win % {rid}",
                         "change": "Change (points)", "change_lo": "95% from", "change_hi": "95% to"},
                 percent=("win_before", "win_rate", "change", "change_lo", "change_hi"), key="movers")
        st.caption(f"The compositions whose win rate changed most from {prev} to {rid}, both at {name}. "
                   "Separate games, not paired: the interval is Newcombe's. The **Rules A → B** page pairs the "
                   "games.")
    return level


def body() -> None:
    if sh.empty_state(f, "the overview"):
        return
    level = glance()
    st.header("What the database holds")
    info = sh.info(f)
    engine = sum(n for s, _, n, _ in info.by_source_rules if s == "engine")
    manual = sum(n for s, _, n, _ in info.by_source_rules if s == "manual")
    c = st.columns(4)
    c[0].metric("Games", f"{info.games:,}")
    c[1].metric("Engine games (bots)", f"{engine:,}")
    c[2].metric("Manual games (logged)", f"{manual:,}")
    c[3].metric("Rules versions and variants", len({r for _, r, _, _ in info.by_source_rules}))
    st.plotly_chart(games_figure([(s, r, n) for s, r, n, _ in info.by_source_rules]))
    st.caption("Games stored, every bot level and table play counted: an inventory, not a balance figure. "
               "Every figure below rests on the sidebar's bot level alone.")

    prov = sh.provenance(f)
    if sh.no_selection(f, prov):
        return
    st.header("Headline balance signals")
    st.caption(f"For the sidebar's selection: {prov.caption()}. Intervals are 95%.")
    comps = sh.report("compositions", f)
    fit = sh.report("costs", f)
    left, right = st.container(), st.container()  # full width each: every column fits at 1440 px
    with left:
        st.subheader("Largest win-rate gaps" + (f" at {level_name(level)}" if level else ""))
        at_level = balance.balance_table(sh.report("cells", f), level) if level else comps.clear()
        gaps = sh.only_composition(at_level, f).filter(pl.col("games") >= 10).with_columns(
            gap=(pl.col("win_rate") - 0.5).abs()).sort("gap", descending=True).head(8)
        if gaps.height == 0:
            st.write("No composition has 10 or more games (mirrors excluded) at one bot level in this selection.")
        else:
            sh.table(gaps, {"composition": "Composition", "rules_id": "Rules", "games": "Games",
                            "win_rate": "Win %", "win_lo": "95% from", "win_hi": "95% to"},
                     percent=("win_rate", "win_lo", "win_hi"), key="gaps")
        for s in composition_signals(at_level)[:4] + side_signals(sh.report("sides", f))[:2]:
            st.markdown(f"- {s}")
    with right:
        st.subheader("Cost suggestions" + (f" at {f.level_text}" if f.level else ""))
        priced = fit.table.filter(pl.col("verdict") == "mis-priced")
        tested = int(fit.table["p"].is_not_null().sum())
        if priced.height:
            sh.table(priced, {"type": "Unit type", "rules_id": "Rules", "pts": "PTS now",
                              "suggested_pts": "Implied PTS", "suggested_lo": "95% from", "suggested_hi": "95% to",
                              "direction": "Verdict", "q": "q (BH)", "games": "Games differing"},
                     digits={"pts": 0, "suggested_pts": 1, "suggested_lo": 1, "suggested_hi": 1, "q": 3})
            sh.legend({k: v for k, v in COST_VERDICTS.items() if k in ("mis-priced", "in line")})
            for s in cost_signals(fit.table)[:4]:
                st.markdown(f"- {s}")
        elif tested:
            st.write(f"No unit type is mis-priced in this selection ({tested} types tested).")
        else:
            st.write("No unit type could be tested for its price in this selection.")
        if tested:
            st.caption(family_note(tested, "unit types"))
        for s in cost_caveats(fit.summary):
            st.caption(s)

    opt = sh.report("optional_rules", f)
    if not opt.is_empty():
        st.header("Optional rules")
        st.caption("Games of variants that switch on optional rules (docs/rules-notes.md). Observed rates "
                   "sit beside the exact odds; intervals are 95%.")
        if opt.heat.height:
            st.subheader("Overheating")
            sh.table(opt.heat, {"rules_id": "Rules", "excess": "Heat over the rating", "rolls": "Rolls",
                                "overheats": "Overheats", "rate": "Overheat %", "rate_lo": "95% from",
                                "rate_hi": "95% to", "exact": "Exact %"},
                     percent=("rate", "rate_lo", "rate_hi", "exact"), key="overheat")
            sh.table(opt.weapons_lost, {"rules_id": "Rules", "weapon": "Weapon", "rolls": "Rolls",
                                        "lost": "Weapons lost to heat", "self_damage": "Damage to itself"},
                     key="weapons_lost")
        if opt.initiative.height:
            st.subheader("Rolled initiative")
            sh.table(opt.initiative, {"rules_id": "Rules", "rolls": "Rolls", "ties": "Ties", "rounds": "Rounds",
                                      "share": "Blue first %", "share_lo": "95% from", "share_hi": "95% to"},
                     percent=("share", "share_lo", "share_hi"), key="initiative")
        if opt.rushes.height:
            st.subheader("Rushes")
            sh.table(opt.rushes, {"rules_id": "Rules", "rushes": "Rushes", "games": "Games"}, key="rushes")

    st.header("Newest games")
    g = sh.games(f, limit=15).with_columns(vp=pl.format("{}–{}", "blue_vp", "red_vp"))
    sh.table(g, {"played": "Played", "source": "Source", "rules_id": "Rules", "blue": "Blue", "red": "Red",
                 "winner": "Winner", "reason": "How", "rounds": "Rounds", "vp": "VP blue–red", "game_id": "Game"})
    st.caption("Open any game in the **Replay viewer**.")


sh.page_errors(body)
