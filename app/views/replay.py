"""Replay viewer: a game on the Take and Hold board, step by step, with a timeline of kills and
objective changes, autoplay, its events and VP; the address names the game and the step."""

from __future__ import annotations

import re
import time
from typing import TYPE_CHECKING, Any

import _shared as sh
import streamlit as st

from pmim_analytics.errors import PmimError
from pmim_analytics.replay.fold import fold_events
from pmim_analytics.replay.show import describe_event
from pmim_analytics.replay.steps import Step, has_positions, iter_steps, round_vp
from pmim_analytics.replay.timeline import Moment, next_kill, previous_kill, timeline
from pmim_analytics.report.board import board_figure
from pmim_analytics.report.dashboard_figures import game_vp_figure

if TYPE_CHECKING:
    import plotly.graph_objects as go

# compact: the title, the game and the whole board fit a 1280x720 screen
st.html("<style>[data-testid='stMainBlockContainer'] {padding-top: 2.2rem;} "
        "[data-testid='stMainBlockContainer'] h1 {font-size: 2rem; padding-bottom: 0.2rem;} "
        "[data-testid='stMainBlockContainer'] h3 {font-size: 1.15rem; padding: 0.2rem 0;}</style>")
st.title("Replay viewer")
f = sh.sidebar()
STEP = "replay_step"
PLAYING = "replay_playing"
#: Sized so that the title, the game, and the whole board fit a 1280x720 screen together.
BOARD_HEIGHT = 480
TIMELINE_HEIGHT = 140
EVENTS_HEIGHT = 200
#: Seconds between two steps of autoplay.
AUTOPLAY_EVERY = 1.5
#: Events of the round shown before the current step (older ones are left out so it stays in view).
EVENTS_BEFORE = 2
KIND_MARK = {"kill": "✕ kill", "objective": "⚑ objective", "vp": "VP"}


def _escape(text: str) -> str:
    """Event text as literal Markdown (unit ids and arrows, never formatting)."""
    return re.sub(r"([\\`*_{}\[\]<>#|~$])", r"\\\1", text)


def _label(r: dict[str, Any]) -> str:
    result = f"{r['winner']} won ({r['reason']})" if r["winner"] else f"draw ({r['reason']})"
    vp = f", VP {r['blue_vp']}–{r['red_vp']}" if r["blue_vp"] is not None else ""
    return f"{r['source']} · {r['rules_id']} · {r['blue']} (blue) vs {r['red']} (red) · {result}{vp} · {r['game_id']}"


def _stop() -> None:
    """Any control stops autoplay."""
    if st.session_state.get(PLAYING):
        st.session_state[PLAYING] = False


def _go(step: int, rounds: list[int | None]) -> None:
    """Show step ``step`` (1-based, clamped) with its round in the round box."""
    st.session_state[STEP] = max(1, min(len(rounds), step))
    st.session_state["replay_round"] = rounds[st.session_state[STEP] - 1]


def _sync_round(rounds: list[int | None]) -> None:
    _stop()
    _go(st.session_state[STEP], rounds)


def _step_by(n: int, rounds: list[int | None]) -> None:
    _stop()
    _go(st.session_state.get(STEP, 1) + n, rounds)


def _to_kill(direction: int, moments: list[Moment], rounds: list[int | None]) -> None:
    _stop()
    here = st.session_state.get(STEP, 1) - 1
    target = next_kill(moments, here) if direction > 0 else previous_kill(moments, here)
    if target is not None:
        _go(target + 1, rounds)


def _jump(first_of_round: dict[int | None, int]) -> None:
    _stop()
    st.session_state[STEP] = first_of_round[st.session_state["replay_round"]] + 1


def _to_moment(moments: list[Moment], rounds: list[int | None]) -> None:
    _stop()
    k = st.session_state.get("replay_moment")
    if k is not None:
        _go(moments[k].step + 1, rounds)


def _toggle_play() -> None:
    st.session_state[PLAYING] = not st.session_state.get(PLAYING, False)


@st.cache_data(show_spinner=False, max_entries=16)
def _plan(db: str, version: tuple[int, int], game_id: str) -> tuple[list[Step], list[Moment]]:
    """The viewer steps and the timeline of a game (computed once per game)."""
    events = sh.game_by_id(db, version, game_id).events
    steps = iter_steps(events)
    return steps, timeline(events, steps)


@st.cache_resource(show_spinner=False, max_entries=64)
def _board(db: str, version: tuple[int, int], game_id: str, step: int) -> go.Figure:
    """The board at a step, drawn once (kept per process: a step shown again costs nothing)."""
    game = sh.game_by_id(db, version, game_id)
    steps, _ = _plan(db, version, game_id)
    board = fold_events(game.units["unit_id"].to_list(), game.events, upto=steps[step].upto_seq)
    title = (f"{game.info['blue']} (blue) vs {game.info['red']} (red), rules {game.info['rules_id']} — "
             f"VP blue {board.blue_vp}, red {board.red_vp}")
    fig = board_figure(sh.scenario(game.info["scenario"]), board, game.unit_labels, title=title)
    fig.update_layout(height=BOARD_HEIGHT, margin={"l": 0, "r": 0, "t": 28, "b": 0},
                      title={"font": {"size": 13}, "y": 0.99}, showlegend=False)
    fig.update_traces(selector={"mode": "markers+text"}, marker_size=18, textfont_size=8)
    return fig


def _from_url(ids: list[str]) -> None:
    """Open the game and step the address names (``?game=...&step=...``), once per address."""
    want = (st.query_params.get("game"), st.query_params.get("step"))
    if want[0] is None or st.session_state.get("replay_url_done") == want:
        return
    st.session_state["replay_url_done"] = want
    if want[0] in ids:
        st.session_state["replay_game"] = st.session_state["replay_shown"] = want[0]
        try:
            st.session_state[STEP] = max(1, int(want[1] or 1))
        except ValueError:
            st.session_state[STEP] = 1
        st.session_state.pop("replay_round", None)


@st.fragment(run_every=AUTOPLAY_EVERY)
def _ticker(total: int, rounds: list[int | None]) -> None:
    """While autoplay is on: every few seconds, the next step (a rerun of the page)."""
    # a tick, not the call inside the page's own run (which has just drawn this step)
    if not st.session_state.get(PLAYING) or time.monotonic() - st.session_state.get("replay_drawn_at", 0.0) < \
            AUTOPLAY_EVERY * 0.8:
        return
    if st.session_state.get(STEP, 1) >= total:
        st.session_state[PLAYING] = False
    else:
        _go(st.session_state.get(STEP, 1) + 1, rounds)
    st.rerun(scope="app")


def body() -> None:
    if sh.empty_state(f, "the replay viewer"):
        return
    listed = sh.games(f, limit=500)
    rows = {r["game_id"]: r for r in listed.iter_rows(named=True)}
    linked = st.query_params.get("game")
    if linked and linked not in rows:  # a linked game older than the newest 500, or outside the filters
        try:
            rows[linked] = sh.game(f, linked).info
        except PmimError:
            st.warning(f"The address names game {linked}, which is not in this database.", icon="🔗")
    if not rows:
        st.warning("The filters select no games: widen them in the sidebar.", icon="🔎")
        return
    _from_url(list(rows))
    manual = [g for g, r in rows.items() if r["source"] == "manual"]
    gid = st.selectbox(f"Game (the newest {listed.height} of the selection, {len(manual)} manual)", list(rows),
                       format_func=lambda g: _label(rows[g]), key="replay_game")
    if st.session_state.get("replay_shown") != gid:
        st.session_state["replay_shown"] = gid
        st.session_state[STEP] = 1
        st.session_state[PLAYING] = False
        st.session_state.pop("replay_round", None)
    game = sh.game(f, gid)
    events = game.events
    steps, moments = sh.with_retry(lambda: _plan(f.db, f.version, gid))
    if not steps:
        st.info("This game has no events to replay.")
        return
    total = len(steps)
    st.session_state[STEP] = max(1, min(st.session_state.get(STEP, 1), total))
    step_rounds = [s.round for s in steps]
    here = st.session_state[STEP] - 1
    st.query_params["game"] = gid
    st.query_params["step"] = str(here + 1)
    st.session_state["replay_url_done"] = (gid, str(here + 1))

    first_of_round: dict[int | None, int] = {}
    for i, s in enumerate(steps):
        first_of_round.setdefault(s.round, i)
    step = steps[here]
    left, right = st.columns([3, 2])
    with left:
        if has_positions(events):
            st.plotly_chart(_board(f.db, f.version, gid, here), key="board", config={"displayModeBar": False})
        else:
            st.info("This game was logged without positions (a summary or quick log), so there is no board to "
                    "draw; its events and result are listed here.", icon="🗺️")
        vp = game_vp_figure(round_vp(events), step.round)
        vp.update_layout(height=200, margin={"l": 50, "r": 10, "t": 40, "b": 30})
        st.plotly_chart(vp, key="game_vp", config={"displayModeBar": False})
    with right:
        playing = bool(st.session_state.get(PLAYING))
        c = st.columns(3, gap="small")
        c[0].button("◀ Prev", on_click=_step_by, args=(-1, step_rounds), key="replay_prev", disabled=total < 2,
                    use_container_width=True)
        c[1].button("Next ▶", on_click=_step_by, args=(1, step_rounds), key="replay_next", disabled=total < 2,
                    use_container_width=True)
        c[2].button("■ Pause" if playing else "▶ Play", on_click=_toggle_play, key="replay_play",
                    disabled=total < 2 or (here + 1 >= total and not playing), use_container_width=True,
                    help=f"Autoplay: a step every {AUTOPLAY_EVERY:g} s")
        c = st.columns(3, gap="small", vertical_alignment="bottom")
        c[0].button("◀ Kill", on_click=_to_kill, args=(-1, moments, step_rounds), key="replay_prev_kill",
                    disabled=previous_kill(moments, here) is None, use_container_width=True,
                    help="The previous step where a unit is destroyed")
        c[1].button("Kill ▶", on_click=_to_kill, args=(1, moments, step_rounds), key="replay_next_kill",
                    disabled=next_kill(moments, here) is None, use_container_width=True,
                    help="The next step where a unit is destroyed")
        rounds = list(first_of_round)
        c[2].selectbox("Round", rounds, key="replay_round", on_change=_jump, args=(first_of_round,),
                       label_visibility="collapsed",
                       format_func=lambda r: "deployment" if r == 0 else ("no round" if r is None else f"round {r}"))
        if total > 1:
            st.slider("Step", 1, total, key=STEP, on_change=_sync_round, args=(step_rounds,),
                      help="Deployment, each activation, each round's scoring", label_visibility="collapsed")
        st.subheader(f"Step {here + 1} of {total}: {step.label}")
        timeline_box(moments, here, step_rounds)
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
    if has_positions(events):
        st.caption("Circles: units by side (hover for type, weapons, damage, lost locations); ✕ in the "
                   "side's paler colour: destroyed; lines: this round's attacks (solid hit, dotted miss); "
                   "numbers on the edges: columns and rows, as the events write a hex (col,row). The page's "
                   "address names the game and the step: share it to show this moment.")
    with st.expander("Units"):
        sh.table(game.units, {"unit_id": "Unit", "side": "Side", "code": "Code", "type": "Type", "kind": "Kind",
                              "weapons": "Weapons", "pts": "PTS"})
    st.session_state["replay_drawn_at"] = time.monotonic()
    _ticker(total, step_rounds)


def timeline_box(moments: list[Moment], here: int, rounds: list[int | None]) -> None:
    """The kills, objective changes and VP changes; a click jumps to the step that shows one."""
    kills = sum(m.kind == "kill" for m in moments)
    st.markdown(f"**Timeline**: {kills} kills, {sum(m.kind == 'objective' for m in moments)} objective changes "
                "(click to jump)")
    if not moments:
        st.caption("Nothing was destroyed and no objective changed hands in this game.")
        return
    at = [k for k, m in enumerate(moments) if m.step <= here]
    st.session_state["replay_moment"] = at[-1] if at else None
    with st.container(height=TIMELINE_HEIGHT, key="replay_timeline"):
        st.radio("Timeline", list(range(len(moments))), key="replay_moment", label_visibility="collapsed",
                 on_change=_to_moment, args=(moments, rounds),
                 format_func=lambda k: (f"{'deploy' if moments[k].round == 0 else f'R{moments[k].round}'} · "
                                        f"{KIND_MARK[moments[k].kind]} · {moments[k].text}"))


sh.page_errors(body)
