"""Replay viewer: a game on the Take and Hold board, step by step, with its events and VP."""

from __future__ import annotations

import re

import _shared as sh
import streamlit as st

from pmim_analytics.replay.fold import fold_events
from pmim_analytics.replay.show import describe_event
from pmim_analytics.replay.steps import has_positions, iter_steps, round_vp
from pmim_analytics.report.board import board_figure
from pmim_analytics.report.dashboard_figures import game_vp_figure

st.title("Replay viewer")
f = sh.sidebar()
STEP = "replay_step"
#: Sized so that the controls and the whole board fit a 1440x900 screen together.
BOARD_HEIGHT = 540
EVENTS_HEIGHT = 250
#: Events of the round shown before the current step (older ones are left out so it stays in view).
EVENTS_BEFORE = 2


def _escape(text: str) -> str:
    """Event text as literal Markdown (unit ids and arrows, never formatting)."""
    return re.sub(r"([\\`*_{}\[\]<>#|~$])", r"\\\1", text)


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
    gid = st.selectbox(f"Game (the newest {listed.height} of the selection, {len(manual)} manual)", list(rows),
                       format_func=lambda g: _label(rows[g]), key="replay_game")
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
    c = st.columns([1, 1, 2, 6], vertical_alignment="bottom")
    c[0].button("◀ Prev", on_click=_step_by, args=(-1, step_rounds), key="replay_prev", disabled=total < 2,
                use_container_width=True)
    c[1].button("Next ▶", on_click=_step_by, args=(1, step_rounds), key="replay_next", disabled=total < 2,
                use_container_width=True)
    rounds = list(first_of_round)
    c[2].selectbox("Jump to round", rounds, key="replay_round", on_change=_jump, args=(first_of_round,),
                   format_func=lambda r: "deployment" if r == 0 else ("no round" if r is None else f"round {r}"))
    if total > 1:
        c[3].slider("Step (deployment, each activation, each round's scoring)", 1, total, key=STEP,
                    on_change=_sync_round, args=(step_rounds,))
    step = steps[st.session_state[STEP] - 1]

    board = fold_events(game.units["unit_id"].to_list(), events, upto=step.upto_seq)
    left, right = st.columns([3, 2])
    with left:
        if has_positions(events):
            title = (f"{game.info['blue']} (blue) vs {game.info['red']} (red), rules {game.info['rules_id']} — "
                     f"VP blue {board.blue_vp}, red {board.red_vp}")
            fig = board_figure(sh.scenario(game.info["scenario"]), board, game.unit_labels, title=title)
            fig.update_layout(height=BOARD_HEIGHT, margin={"l": 0, "r": 0, "t": 28, "b": 0},
                              title={"font": {"size": 13}, "y": 0.99}, showlegend=False)
            fig.update_traces(selector={"mode": "markers+text"}, marker_size=19, textfont_size=8)
            st.plotly_chart(fig, key="board", config={"displayModeBar": False})
            st.caption("Circles: units by side (hover for type, weapons, damage, lost locations); ✕ in the "
                       "side's paler colour: destroyed; lines: this round's attacks (solid hit, dotted miss); "
                       "numbers on the edges: columns and rows, as the events write a hex (col,row).")
        else:
            st.info("This game was logged without positions (a summary or quick log), so there is no board to "
                    "draw; its events and result are listed here.", icon="🗺️")
    with right:
        st.subheader(f"Step {st.session_state[STEP]} of {total}: {step.label}")
        when = "the game" if step.round is None else "the deployment" if step.round == 0 else f"round {step.round}"
        shown = [(i, ev) for i, ev in enumerate(events) if ev.round == step.round or (step.first <= i <= step.last)]
        before = [k for k, (i, _) in enumerate(shown) if i < step.first]
        skip = max(0, len(before) - EVENTS_BEFORE)
        st.markdown(f"**Events of {when}** (▶ = this step" + (f"; {skip} earlier events of {when} above it "
                                                              "are left out" if skip else "") + ")")
        lines = [f"▶ **{ev.seq} · {_escape(describe_event(ev))}**" if step.first <= i <= step.last
                 else f"{ev.seq} · {_escape(describe_event(ev))}" for i, ev in shown[skip:]]
        with st.container(height=EVENTS_HEIGHT, key="replay_events"):
            st.markdown("  \n".join(lines))
        vp = game_vp_figure(round_vp(events), step.round)
        vp.update_layout(height=210, margin={"l": 50, "r": 10, "t": 40, "b": 40})
        st.plotly_chart(vp, key="game_vp", config={"displayModeBar": False})
    with st.expander("Units"):
        st.dataframe(game.units, hide_index=True)


sh.page_errors(body)
