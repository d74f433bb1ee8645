"""Replay viewer: a game on the Take and Hold board, step by step, with its events and VP."""

from __future__ import annotations

import _shared as sh
import polars as pl
import streamlit as st

from pmim_analytics.replay.fold import fold_events
from pmim_analytics.replay.show import describe_event
from pmim_analytics.replay.steps import has_positions, iter_steps, round_vp
from pmim_analytics.report.board import board_figure
from pmim_analytics.report.dashboard_figures import game_vp_figure

st.title("Replay viewer")
f = sh.sidebar()
STEP = "replay_step"


def _label(r: dict) -> str:
    result = f"{r['winner']} won ({r['reason']})" if r["winner"] else f"draw ({r['reason']})"
    vp = f", VP {r['blue_vp']}–{r['red_vp']}" if r["blue_vp"] is not None else ""
    return f"{r['source']} · {r['rules_id']} · {r['blue']} (blue) vs {r['red']} (red) · {result}{vp} · {r['game_id']}"


def _sync_round(rounds: list[int | None]) -> None:
    st.session_state["replay_round"] = rounds[st.session_state[STEP] - 1]


def _step_by(n: int, rounds: list[int | None]) -> None:
    st.session_state[STEP] = max(1, min(len(rounds), st.session_state.get(STEP, 1) + n))
    _sync_round(rounds)


def _jump(first_of_round: dict[int | None, int]) -> None:
    st.session_state[STEP] = first_of_round[st.session_state["replay_round"]] + 1


def body() -> None:
    if sh.empty_state(f, "the replay viewer"):
        return
    listed = sh.games(f, limit=500)
    if listed.height == 0:
        st.warning("The filters select no games: widen them in the sidebar.", icon="🔎")
        return
    rows = {r["game_id"]: r for r in listed.iter_rows(named=True)}
    manual = [g for g, r in rows.items() if r["source"] == "manual"]
    st.caption(f"The newest {listed.height} games of the selection ({len(manual)} manual).")
    gid = st.selectbox("Game", list(rows), format_func=lambda g: _label(rows[g]), key="replay_game")
    if st.session_state.get("replay_shown") != gid:
        st.session_state["replay_shown"] = gid
        st.session_state[STEP] = 1
        st.session_state.pop("replay_round", None)
    game = sh.game(f, gid)
    events = game.events
    steps = iter_steps(events)
    if not steps:
        st.info("This game has no events to replay.")
        return
    total = len(steps)
    st.session_state[STEP] = max(1, min(st.session_state.get(STEP, 1), total))
    step_rounds = [s.round for s in steps]

    first_of_round: dict[int | None, int] = {}
    for i, s in enumerate(steps):
        first_of_round.setdefault(s.round, i)
    c = st.columns([1, 1, 2, 6])
    c[0].button("◀ Prev", on_click=_step_by, args=(-1, step_rounds), key="replay_prev", disabled=total < 2)
    c[1].button("Next ▶", on_click=_step_by, args=(1, step_rounds), key="replay_next", disabled=total < 2)
    rounds = list(first_of_round)
    c[2].selectbox("Jump to round", rounds, key="replay_round", on_change=_jump, args=(first_of_round,),
                   format_func=lambda r: "deployment" if r == 0 else ("no round" if r is None else f"round {r}"))
    if total > 1:
        c[3].slider("Step (deployment, each activation, each round's scoring)", 1, total, key=STEP,
                    on_change=_sync_round, args=(step_rounds,))
    step = steps[st.session_state[STEP] - 1]
    st.subheader(f"Step {st.session_state[STEP]} of {total}: {step.label}")

    board = fold_events(game.units["unit_id"].to_list(), events, upto=step.upto_seq)
    left, right = st.columns([3, 2])
    with left:
        if has_positions(events):
            title = (f"{game.info['blue']} (blue) vs {game.info['red']} (red), rules {game.info['rules_id']} — "
                     f"VP blue {board.blue_vp}, red {board.red_vp}")
            fig = board_figure(sh.scenario(game.info["scenario"]), board, game.unit_labels, title=title)
            fig.update_layout(height=700, margin={"l": 0, "r": 0, "t": 40, "b": 0})
            fig.update_traces(selector={"mode": "markers+text"}, marker_size=21, textfont_size=9)
            fig.for_each_trace(lambda t: t.update(marker_size=13, opacity=0.5)
                               if (t.name or "").endswith("(destroyed)") else None)
            st.plotly_chart(fig, key="board")
            st.caption("Circles: units by side (hover for type, weapons, damage, lost locations); "
                       "grey ✕: destroyed; lines: this round's attacks (solid hit, dotted miss).")
        else:
            st.info("This game was logged without positions (a summary or quick log), so there is no board to "
                    "draw; its events and result are listed here.", icon="🗺️")
    with right:
        when = "the game" if step.round is None else "the deployment" if step.round == 0 else f"round {step.round}"
        st.markdown(f"**Events of {when}** (▶ = this step)")
        shown = [(i, ev) for i, ev in enumerate(events)
                 if ev.round == step.round or (step.first <= i <= step.last)]
        table = pl.DataFrame({
            "": ["▶" if step.first <= i <= step.last else "" for i, _ in shown],
            "seq": [ev.seq for _, ev in shown],
            "round": [ev.round for _, ev in shown],
            "event": [describe_event(ev) for _, ev in shown],
        }, schema={"": pl.Utf8, "seq": pl.Int64, "round": pl.Int64, "event": pl.Utf8})
        st.dataframe(table, hide_index=True, height=460, key="events", column_config={
            "": st.column_config.TextColumn("", width=30), "seq": st.column_config.NumberColumn("seq", width=55),
            "round": st.column_config.NumberColumn("round", width=55),
            "event": st.column_config.TextColumn("event", width="large")})
        st.plotly_chart(game_vp_figure(round_vp(events), step.round), key="game_vp")
    with st.expander("Units"):
        st.dataframe(game.units, hide_index=True)


sh.page_errors(body)
