"""Log a match: armies from files or built here, a summary-form result or a pasted log, checked, then saved."""

from __future__ import annotations

import datetime as dt

import _shared as sh
import polars as pl
import streamlit as st

from pmim_analytics.errors import PmimError
from pmim_analytics.replay.manual import LOG_SUFFIX, MAX_PASTE_BYTES, parse_log
from pmim_analytics.replay.manual.summary_form import REASONS, SummaryForm, format_summary_log, inline_army
from pmim_analytics.rules import army_violations, data_dir, load_army
from pmim_analytics.rules.army import parse_army
from pmim_analytics.store.ingest import ingest_paths

st.title("Log a match")
f = sh.sidebar()
st.caption(f"Games are checked against the rules, saved as `.pmimlog` files under "
           f"`{sh.env_path('PMIM_LOG_DIR', 'replays/manual')}` and ingested into `{f.db}`. "
           "The notation is in docs/manual-logs.md.")

EXAMPLE = """rules: v3
date: 2025-06-21
blue player: Ann
red player: Cem
blue army: v3-balanced
red army: v3-infantry-swarm

R4 B:GE1 destroyed
rounds: 9
result: blue vp 11-7
"""
STARTER = pl.DataFrame({"type": ["Timber Wolf", "Tyrant", "Infantry"], "weapons": ["GG ML", "HAC", "LAC"],
                        "count": [1, 2, 3]})


def army_feedback(army, rules_id: str) -> bool:  # noqa: ANN001
    """Points and every violation of an army under a rules id; True when it is legal."""
    sc = sh.scenario()
    roster, problems = army_violations(army, rules_id, sc)
    st.metric("Points", f"{roster.points} / {sc.points_limit}",
              delta=f"{sc.points_limit - roster.points} to spare" if roster.points <= sc.points_limit else
              f"{roster.points - sc.points_limit} over", delta_color="normal" if roster.points <= sc.points_limit
              else "inverse")
    if problems:
        for p in problems:
            st.error(p, icon="🚫")
    else:
        st.success(f"Legal under {rules_id}: {len(roster.units)} units, {roster.warmech_count} Warmechs.", icon="✅")
    return not problems


def army_picker(side: str, rules_id: str) -> tuple[str | None, str | None]:
    """(army for the log's tag, its name if built here); (None, None) while it cannot be read."""
    st.subheader(f"{side.capitalize()} army")
    mode = st.radio("Army from", ["a file", "built here"], horizontal=True, key=f"{side}_mode")
    if mode == "a file":
        files = sorted(p.stem for p in (data_dir() / "armies").glob("*.yaml"))
        pref = [n for n in files if n.startswith(rules_id.split("-")[0] + "-")] or files
        default = pref[0 if side == "blue" else min(1, len(pref) - 1)]
        name = st.selectbox("Army file (data/armies)", files, index=files.index(default), key=f"{side}_file")
        try:
            army_feedback(load_army(data_dir() / "armies" / f"{name}.yaml"), rules_id)
        except PmimError as e:
            st.error(e.render())
        return name, None
    name = st.text_input("Army name", value=f"{side} list", key=f"{side}_name")
    r = sh.rules(rules_id)
    unit_names = [u.name for u in r.warmechs] + [u.name for u in r.chassis]
    table = st.data_editor(STARTER, num_rows="dynamic", key=f"{side}_build", column_config={
        "type": st.column_config.SelectboxColumn("unit type", options=unit_names, required=True),
        "weapons": st.column_config.TextColumn("weapons (codes, space-separated)",
                                               help=", ".join(f"{w.code} = {w.name}" for w in r.weapons)),
        "count": st.column_config.NumberColumn("count", min_value=1, max_value=20, step=1, default=1)})
    entries = [{"type": t, "weapons": (w or "").replace(",", " ").split(), "count": int(c or 1)}
               for t, w, c in table.select("type", "weapons", "count").iter_rows() if t]
    if not entries:
        st.warning("Add at least one unit.")
        return None, None
    try:
        army = parse_army({"name": name or side, "rules": rules_id, "units": entries}, f"{side} army")
        army_feedback(army, rules_id)
    except PmimError as e:
        st.error(e.render())
        return None, None
    return inline_army(army), name


def check_and_save(text: str, key: str) -> None:
    """Parse the log text, show its errors with line numbers, and offer to save it."""
    game, errors = parse_log(text, "log", strict=False)
    if errors:
        st.error(f"{len(errors)} problem{'s' if len(errors) > 1 else ''} to fix before saving:", icon="🚫")
        for e in errors:
            w = e.where
            pos = f"line {w.line}" + (f", column {w.column}" if w.column else "") if w and w.line else "log"
            st.markdown(f"- **{pos}**: {e.message}")
    with st.expander("The log text", expanded=bool(errors)):
        st.code(text, language=None, line_numbers=True)
    if game is None or errors:
        return
    end = game.events[-1]
    st.success(f"Valid: {game.header.sides['blue'].name} (blue) vs {game.header.sides['red'].name} (red), "
               f"{(w + ' wins') if (w := getattr(end, 'winner', None)) else 'a draw'}, {len(game.events)} "
               f"event{'s' if len(game.events) != 1 else ''}. Game id {game.header.game_id}.",
               icon="✅")
    if st.button("Save to the database", type="primary", key=f"save_{key}"):
        folder = sh.env_path("PMIM_LOG_DIR", "replays/manual")
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"{game.header.played or dt.date.today().isoformat()}-{game.header.game_id}{LOG_SUFFIX}"
        path.write_text(text, encoding="utf-8")
        result = ingest_paths([path], f.db)
        if result.rejected:
            st.error(f"Not saved: {result.rejected[0]}")
        elif result.duplicates:
            st.info(f"This game is already in the database (saved again as {path.name}).")
        else:
            st.success(f"Saved {path.name} and {result.summary()}. It now shows on every page.", icon="💾")


def body() -> None:
    ids = sh.rules_ids()
    rules_id = st.selectbox("Rules version or variant", ids, index=ids.index("v3") if "v3" in ids else 0,
                            key="log_rules")
    form_tab, paste_tab = st.tabs(["Summary form", "Paste a log"])
    with form_tab:
        cols = st.columns(2)
        armies = {}
        for side, col in zip(("blue", "red"), cols, strict=True):
            with col:
                armies[side] = army_picker(side, rules_id)
                st.text_input("Player", key=f"{side}_player")
        st.subheader("Result")
        c = st.columns(4)
        winner = c[0].radio("Winner", ["blue", "red", "draw"], horizontal=True, key="winner")
        reason = c[1].selectbox("How", REASONS, key="reason",
                                help="vp: more than 10 VP and ahead; wipeout; round_limit; manual: as the players say")
        counted = c[2].checkbox("VP counted", value=True, key="vp_counted")
        rounds = c[3].number_input("Rounds played (0 = not known)", 0, 20, 0, key="rounds")
        v = st.columns(3)
        blue_vp = v[0].number_input("Blue VP", 0, 99, 11, key="blue_vp", disabled=not counted)
        red_vp = v[1].number_input("Red VP", 0, 99, 7, key="red_vp", disabled=not counted)
        played = v[2].date_input("Played on", value=None, key="played")
        destroyed = st.text_area("Units destroyed (one a line: `B:GE1`, `R4 B:GE1` for round 4, "
                                 "`B:TW1 LA` for a location)", key="destroyed", height=100)
        if None in (armies["blue"][0], armies["red"][0]):
            st.info("Fix the armies above to check the result.")
        else:
            form = SummaryForm(rules_id, armies["blue"][0], armies["red"][0], winner, reason,
                               blue_vp if counted else None, red_vp if counted else None, rounds or None,
                               tuple(destroyed.splitlines()), played.isoformat() if played else None,
                               st.session_state.get("blue_player") or None, st.session_state.get("red_player") or None,
                               armies["blue"][1], armies["red"][1])
            check_and_save(format_summary_log(form), "form")
    with paste_tab:
        st.markdown("Paste a log in the notation (a detailed log typed at the table, or a summary). "
                    "Its `rules:` line decides the rules version.")
        text = st.text_area("Manual log", height=320, placeholder=EXAMPLE, key="pasted", max_chars=MAX_PASTE_BYTES)
        if text.strip():
            check_and_save(text, "paste")


sh.page_errors(body)
