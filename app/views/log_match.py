"""Log a match: armies from files or built here, a summary-form result or a pasted log, checked, then saved."""

from __future__ import annotations

import datetime as dt
from typing import TYPE_CHECKING

import _armies
import _shared as sh
import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from pmim_analytics.errors import PmimError
from pmim_analytics.replay.manual import LOG_SUFFIX, MAX_PASTE_BYTES, parse_log
from pmim_analytics.replay.manual.summary_form import (
    REASONS,
    SummaryForm,
    check_summary_form,
    format_summary_log,
    inline_army,
)
from pmim_analytics.rules import army_violations, data_dir, load_army
from pmim_analytics.rules.army import parse_army
from pmim_analytics.store.ingest import ingest_paths

if TYPE_CHECKING:
    from pmim_analytics.model.record import GameRecord
    from pmim_analytics.rules import ArmyList

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


def army_feedback(army: ArmyList, rules_id: str) -> bool:
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
        files = _armies.army_files()
        version = rules_id.split("-")[0] + "-"
        stems = sorted(files, key=lambda n: (not n.startswith(version), n))  # this version's lists first
        name = st.selectbox("Army (data/armies)", stems, index=None, key=f"{side}_file",
                            format_func=lambda n: f"{files[n]} ({n})", placeholder="Choose an army list")
        if name is None:
            return None, None
        try:
            army_feedback(load_army(data_dir() / "armies" / f"{name}.yaml"), rules_id)
        except PmimError as e:
            st.error(e.render())
        return name, None
    name = st.text_input("Army name", value=f"{side} list", key=f"{side}_name")
    entries = _armies.unit_entries(_armies.STARTER, rules_id, f"{side}_build")
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
    offer_save(game, text, key)


def offer_save(game: GameRecord, text: str, key: str) -> None:
    """Say what the valid game is and save it on request (file under the log folder, then ingest)."""
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


def summary_form(rules_id: str) -> None:
    """The form, empty at first; each error is shown under the field it concerns."""
    slots: dict[str, DeltaGenerator] = {}
    cols = st.columns(2)
    armies = {}
    for side, col in zip(("blue", "red"), cols, strict=True):
        with col:
            armies[side] = army_picker(side, rules_id)
            slots[f"{side}_army"] = st.empty()
            st.text_input("Player", key=f"{side}_player")
            slots[f"{side}_player"] = st.empty()
    st.subheader("Result")
    c = st.columns(4)
    winner = c[0].radio("Winner", ["blue", "red", "draw"], index=None, horizontal=True, key="winner")
    slots["winner"] = c[0].empty()
    reason = c[1].selectbox("How", REASONS, index=None, key="reason", placeholder="Choose how it ended",
                            help="vp: more than 10 VP and ahead; wipeout; round_limit; manual: as the players say")
    slots["reason"] = c[1].empty()
    counted = c[2].checkbox("VP counted", value=True, key="vp_counted")
    rounds = c[3].number_input("Rounds played (empty = not known)", 1, 20, value=None, key="rounds")
    slots["rounds"] = c[3].empty()
    v = st.columns(3)
    blue_vp = v[0].number_input("Blue VP", 0, 99, value=None, key="blue_vp", disabled=not counted)
    red_vp = v[1].number_input("Red VP", 0, 99, value=None, key="red_vp", disabled=not counted)
    slots["vp"] = v[0].empty()
    played = v[2].date_input("Played on", value=None, key="played")
    slots["date"] = v[2].empty()
    destroyed = st.text_area("Units destroyed, one a line, in any order (`B:GE1`, `R4 B:GE1` for round 4, "
                             "`B:TW1 LA` for a location)", key="destroyed", height=100)
    slots["destroyed"] = st.empty()
    slots["form"] = st.empty()
    missing = [label for label, value in (("the blue army", armies["blue"][0]), ("the red army", armies["red"][0]),
                                          ("the winner", winner), ("how the game ended", reason)) if value is None]
    if missing:
        st.info(f"Fill in {', '.join(missing)} to check the result.", icon="✏️")
        return
    blue_army, red_army = armies["blue"][0], armies["red"][0]
    assert blue_army is not None and red_army is not None and winner is not None and reason is not None  # none missing
    if counted and (blue_vp is None) != (red_vp is None):
        slots["vp"].error("Enter both VP totals, or untick 'VP counted'.", icon="🚫")
        return
    form = SummaryForm(rules_id, blue_army, red_army, winner, reason,
                       blue_vp if counted else None, red_vp if counted else None, rounds or None,
                       tuple(destroyed.splitlines()), played.isoformat() if played else None,
                       st.session_state.get("blue_player") or None, st.session_state.get("red_player") or None,
                       armies["blue"][1], armies["red"][1])
    game, errors = check_summary_form(form)
    if errors:
        by_field: dict[str, list[str]] = {}
        for e in errors:
            by_field.setdefault(e.field if e.field in slots else "form", []).append(
                f"**{e.label}**: {e.message}")
        for field, messages in by_field.items():
            slots[field].error("  \n".join(messages), icon="🚫")
        st.error(f"{len(errors)} problem{'s' if len(errors) > 1 else ''} to fix before saving (shown at "
                 "the fields above).", icon="🚫")
        return
    assert game is not None  # no errors: the form read as a game
    offer_save(game, format_summary_log(form), "form")


def body() -> None:
    ids = sh.rules_ids()
    rules_id = st.selectbox("Rules version or variant", ids, index=ids.index("v3") if "v3" in ids else 0,
                            key="log_rules")
    form_tab, paste_tab = st.tabs(["Summary form", "Paste a log"])
    with form_tab:
        summary_form(rules_id)
    with paste_tab:
        st.markdown("Paste a log in the notation (a detailed log typed at the table, or a summary). "
                    "Its `rules:` line decides the rules version. Under a variant with optional rules it also "
                    "has their lines: `B:GR1 rush 0812-0808`, `R2 initiative 2-5`, `B:GR1 MAC overheat 4`.")
        text = st.text_area("Manual log", height=320, placeholder=EXAMPLE, key="pasted", max_chars=MAX_PASTE_BYTES)
        if text.strip():
            check_and_save(text, "paste")


sh.page_errors(body)
