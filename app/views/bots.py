"""Bots: the rated ladder (``pmim bots ladder``) and whether verdicts hold as play gets stronger."""

from __future__ import annotations

from pathlib import Path

import _shared as sh
import plotly.graph_objects as go
import streamlit as st

from pmim_analytics.analytics.flags import LEGEND, family_note
from pmim_analytics.analytics.robustness import flag_lines, levels_wide, robustness_tables
from pmim_analytics.analytics.skill_axis import SKILLS, skill_label, skill_lines, skill_tables
from pmim_analytics.store.ladder import read_ladder_ratings, read_ladder_runs
from pmim_analytics.store.readers import DuckDBData

st.title("Bots: strength and robust verdicts")
f = sh.sidebar()


def ladder() -> None:
    st.header("The bot ladder")
    if not Path(f.db).exists():
        st.info(f"No database at `{f.db}` yet, so there is no ladder to show.", icon="📭")
        return
    runs = sh.with_retry(lambda: read_ladder_runs(f.db), "the ladder runs")
    if runs.height == 0:
        st.info("No ladder run in this database yet. Rate the bots with "
                "`.venv/bin/pmim bots ladder --rules v3` and reload this page.", icon="🪜")
        return
    labels = [f"{r['rules_id']}: {r['games']} games, bots {r['bots']} "
              f"(seed {r['seed']}, {r['created_at']:%Y-%m-%d %H:%M})" for r in runs.iter_rows(named=True)]
    pick = st.selectbox("Run", range(len(labels)), format_func=lambda k: labels[k], key="ladder_run")
    run_id = runs["run_id"][pick]
    ratings = sh.with_retry(lambda: read_ladder_ratings(run_id, f.db), "the ratings")
    fig = go.Figure(go.Scatter(
        x=ratings["rating"], y=ratings["bot"], mode="markers",
        error_x={"type": "data", "symmetric": False, "array": (ratings["hi"] - ratings["rating"]).to_list(),
                 "arrayminus": (ratings["rating"] - ratings["lo"]).to_list()}))
    fig.update_layout(title=f"Bradley-Terry ratings, Elo scale, 95% bootstrap intervals (run {run_id})",
                      xaxis_title="rating (first bot listed = 0)", yaxis={"autorange": "reversed"}, height=360)
    st.plotly_chart(fig, key="ladder_ratings")
    sh.table(ratings, {"bot": "Bot", "rating": "Rating", "lo": "95% from", "hi": "95% to", "games": "Games",
                       "score": "Score", "ms_per_decision": "ms per decision", "games_per_s": "Games / s",
                       "adherence": "Adherence %", "vp_per_round": "VP per round"},
             percent=("adherence",), digits={"rating": 0, "lo": 0, "hi": 0, "score": 3, "ms_per_decision": 3,
                                             "games_per_s": 1})
    st.caption("Adherence: share of the objectives within reach of a side's units that it held a unit at by the "
               "end of the round. games/s: a game of the bot against itself on one core, from its thinking time.")


def robustness() -> None:
    st.header("Do verdicts hold as the bots get stronger?")
    if sh.empty_state(f, "the robustness comparison"):
        return
    st.caption("This section compares bot levels, so it reads every level of the selection, each in a column of "
               "its own (never pooled); the sidebar's bot level does not apply here.")
    data = DuckDBData(f.db, f.rules_ids, "engine")
    comps, matches = sh.with_retry(lambda: robustness_tables(data.matchup_cells()), "the robustness tables")
    if comps.height == 0:
        st.info("No engine games where both sides had the same bot in this selection.")
        return
    lines = flag_lines(matches)
    for line in lines:
        st.warning(line, icon="⚖️")
    if not lines:
        st.success("No matchup verdict changes with bot strength in this selection.")
    for title, table, key in (("Compositions", comps, "composition"), ("Matchups", matches, "matchup")):
        st.subheader(title)
        wide, order = levels_wide(table, key)
        sh.table(wide, {"rules_id": "Rules", key: key.capitalize(), "flag": "Flag", **{b: b for b in order}},
                 key=f"robust_{key}")
    flags = set(comps["flag"].to_list()) | set(matches["flag"].to_list())
    sh.legend({w: m for w, m in LEGEND.items() if w in flags or w in ("flips", "vanishes", "shrinks", "holds")})
    st.caption("Score % (a draw counts half) with 95% Wilson intervals and games, per bot level from random to "
               "the strongest; a flag is a two-proportion test of the strongest level against a weaker one, "
               "Benjamini-Hochberg adjusted over the table's rows.")
    st.subheader("At the skill of the table")
    s_comps, s_matches = sh.with_retry(lambda: skill_tables(data.matchup_cells()), "the skill tables")
    if s_comps.height == 0:
        st.info("No games of a bot below skill 1 in this selection (the demo plays search at skills 0.5, 0.75 "
                "and 0.9).")
        return
    for line in skill_lines(s_matches):
        st.warning(line, icon="🎓")
    labels = {"rules_id": "Rules", "bot": "Bot", **{skill_label(x): skill_label(x) for x in SKILLS}, "flag": "Verdict"}
    for table, key in ((s_comps, "composition"), (s_matches, "matchup")):
        shown = table.select("rules_id", "bot", key, *[skill_label(x) for x in SKILLS], "flag")
        sh.table(shown, {**labels, key: key.capitalize()}, key=f"skill_{key}")
    st.caption("The strongest bot with games below skill 1, both sides at the same skill (1 = its best play). "
               "'expert only': a verdict at skill 1 that a lower skill does not share; 'casual only': the other "
               "way round. " + family_note(max(s_matches["family"].to_list(), default=0),
                                                "matchups"))


sh.page_errors(ladder)
sh.page_errors(robustness)
