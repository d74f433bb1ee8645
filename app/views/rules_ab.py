"""Rules A → B: what changes from one rules id to another, on paired games (``pmim report impact``
in the browser), with the design notes of the ``pmim balance propose`` run that wrote B when one is
stored. B may also be a proposal a stored run wrote that has no games yet: then the rules diff and
the design notes show, and the paired parts say how to play it. Linkable:
``/rules_ab?a=v3&b=v3-llaser-rpt4``."""

from __future__ import annotations

import _shared as sh
import polars as pl
import streamlit as st

from pmim_analytics.analytics import impact
from pmim_analytics.analytics.levels import BotLevelError, level_name
from pmim_analytics.errors import PmimError
from pmim_analytics.report.dashboard_figures import impact_figure
from pmim_analytics.report.design_notes import DesignNotes, proposal_variants, simulate_command, stored_design_notes
from pmim_analytics.rules import load_rules, rules_label
from pmim_analytics.rules.diff import diff_rules

st.title("Rules A → B: what a change of rules does")
f = sh.sidebar()


def _defaults(ids: list[str], b_ids: list[str]) -> tuple[str, str]:
    """A and B from the address, else v3 and its first variant in the database, else the first two
    (B from ``b_ids``: the rules ids with games, then the unplayed proposals)."""
    a, b = st.query_params.get("a"), st.query_params.get("b")
    if a in ids and b in b_ids:
        return a, b
    base = "v3" if "v3" in ids else ids[0]
    others = [r for r in b_ids if r != base]
    variants = [r for r in others if r.startswith(base)]
    return base, (variants or others)[0]


def _keep_in_url() -> None:
    st.query_params["a"] = st.session_state["ab_a"]
    st.query_params["b"] = st.session_state["ab_b"]


@st.cache_data(show_spinner=False, max_entries=4)
def _proposals(db: str, version: tuple[int, int]) -> list[tuple[str, str]]:
    return proposal_variants(db)


@st.cache_data(show_spinner=False, max_entries=16)
def _notes(db: str, version: tuple[int, int], variant: str) -> list[DesignNotes]:
    return stored_design_notes(db, variant=variant)


def _proposal_notes(f: sh.Filters, b: str) -> list[DesignNotes]:
    """The design notes of the `pmim balance propose` run that wrote B, when one is stored (returned)."""
    notes = sh.with_retry(lambda: _notes(f.db, f.version, b))
    if not notes:
        return notes
    st.header(f"Design notes: how the search proposed {b}")
    st.markdown(notes[0].markdown(level=3, with_heading=False))
    if len(notes) > 1:
        st.caption(f"{len(notes) - 1} earlier run(s) wrote {b} too; these are the newest run's notes.")
    return notes


def _no_games_yet(f: sh.Filters, a: str, b: str, notes: list[DesignNotes]) -> None:
    """The paired parts for a B with no games: one sentence, with the command that plays it."""
    try:
        choice = f.level_for((a,))
        bot = choice.level if choice.key != "human" else None
    except BotLevelError:
        bot = None
    bot = bot or (notes[0].bot if notes else "greedy")
    cmd = simulate_command(b, bot, f.db)
    how = (f"play it at {level_name(bot)} with the lists A was played with, e.g. `{cmd}` (one command per matchup), "
           "and reload this page" if cmd else f"its variant file is not in this data folder, so it cannot be played "
           f"here; copy `{b}.yaml` into data/rules/variants first")
    st.info(f"B ({b}) has no games yet, so there is nothing to pair (the change per list, per unit type and the "
            f"games paired need games of both rules ids): {how}.", icon="🎲")


def body() -> None:
    if sh.empty_state(f, "the rules comparison"):
        return
    ids = sh.database_rules_ids(f)
    unplayed = [v for v, _ in sh.with_retry(lambda: _proposals(f.db, f.version)) if v not in ids]
    b_ids = ids + unplayed
    if len(ids) < 1 or len(b_ids) < 2:
        st.info("The database holds games of one rules id only: there is nothing to compare yet.", icon="⚖️")
        return
    a0, b0 = _defaults(ids, b_ids)
    for key, value, options in (("ab_a", a0, ids), ("ab_b", b0, b_ids)):
        if st.session_state.get(key) not in options:
            st.session_state[key] = value

    def b_label(r: str) -> str:
        return f"{rules_label(r)} (a proposal, no games yet)" if r in unplayed else rules_label(r)

    c = st.columns(2)
    a = c[0].selectbox("A (before)", ids, key="ab_a", on_change=_keep_in_url, format_func=rules_label)
    b = c[1].selectbox("B (after)", b_ids, key="ab_b", on_change=_keep_in_url, format_func=b_label)
    _keep_in_url()
    if a == b:
        st.info("Pick two different rules ids.", icon="⚖️")
        return
    st.caption("This page's address names A and B: share it to show this comparison. The sidebar's source filter "
               "and bot level apply; its rules filter does not.")

    st.header("What the rules change")
    try:
        changes = diff_rules(load_rules(a), load_rules(b))
    except PmimError:
        st.write("One of them is a rules id only the database knows, so its rules cannot be compared here.")
    else:
        if changes:
            sh.table(pl.DataFrame([{"table": ch.table, "item": ch.item, "what": ch.what, "old": ch.old,
                                    "new": ch.new} for ch in changes]),
                     {"table": "Part", "item": "Item", "what": "Change", "old": f"In {a}", "new": f"In {b}"},
                     key="ab_diff")
        else:
            st.write(f"{a} and {b} have the same rules.")
    notes = _proposal_notes(f, b)
    if b in unplayed:
        _no_games_yet(f, a, b, notes)
        return

    try:
        choice = f.level_for((a, b))
    except BotLevelError as e:
        st.warning(f"No paired comparison: {e}.", icon="🤖")
        return
    st.header("Paired change per list")
    name = level_name(choice.key)
    if choice.missing:
        st.info(f"No bars: {', '.join(choice.missing)} {'has' if len(choice.missing) == 1 else 'have'} no games "
                f"at bot level {name}, and levels are never pooled; pick a level both have in the sidebar.",
                icon="🤖")
        return
    picked = f.picked_level is not None and f.picked_level == choice.key
    st.caption(f"Both rules ids at bot level **{name}** (both sides; "
               + ("picked in the sidebar" if picked else choice.reason)
               + f"; games {', '.join(f'{r}: {n:,}' for r, n in sorted(choice.games.items()))}), as "
               f"`pmim report impact --rules {a},{b} --bot {choice.level}` reads them.")
    imp = sh.impact(f, a, b, choice.key)
    comps = impact.with_verdicts(imp.compositions)
    if comps.height == 0:
        st.info("No list played the same matchup with the same bots and sides under both rules ids, so nothing "
                "can be paired: see below which lists were left out and why.", icon="🔗")
    else:
        for line in comps.sort("list")["verdict_line"].to_list():
            st.markdown(f"- {line}")
        st.plotly_chart(impact_figure(comps, provenance=sh.provenance_of(f, (a, b), choice.key)), key="ab_impact")
        sh.table(comps, {"source": "Source", "list": "List", "games_a": f"Games {a}", "games_b": f"Games {b}",
                         "win_a": f"Win % {a}", "win_b": f"Win % {b}", "win_diff": "Change (points)",
                         "win_diff_lo": "95% from", "win_diff_hi": "95% to", "vp_margin_diff": "VP margin change",
                         "verdict": "Verdict"},
                 percent=("win_a", "win_b", "win_diff", "win_diff_lo", "win_diff_hi"), key="ab_lists")
        sh.legend(impact.VERDICTS)
    st.caption("Paired: a game counts only when a game with the same lists (by content), the same bots and the "
               "same sides was played under the other rules id; the rules id with more games of such a pairing "
               "has them weighted down. Changes are B minus A with 95% intervals clustered by game.")

    st.header("Paired change per unit type")
    if imp.units.height == 0:
        st.write("No unit type was fielded in paired games under both rules ids.")
    else:
        sh.impact_units_table(imp.units, a, b, pts_digits=0, key="ab_units")

    st.header("Games paired, and the lists left out")
    if imp.pairing.height == 0:
        st.write(f"Neither {a} nor {b} has engine games at {name}: only engine games are paired (a logged game "
                 "has no seed to pair it on), so there is nothing to pair here.")
        return
    sh.table(imp.pairing, {"rules_id": "Rules", "games": "Games", "paired": "Paired", "strata": "Pairings",
                           "left_out": "Left out", **{r: r.capitalize() for r in impact.REASONS}}, key="ab_pairing")
    if imp.unpaired.height:
        sh.table(imp.unpaired, {"rules_id": "Rules", "source": "Source", "list": "List", "reason": "Why left out",
                                "games": "Games left out"}, key="ab_unpaired")
        sh.legend({"list not played": "the list was never fielded under the other rules id",
                   "matchup not played": "both lists were, but never against each other",
                   "other bots": "they met, but played by other bots",
                   "sides swapped": "they met with these bots, but on the other sides"})
    else:
        st.write("Every game of both rules ids was paired.")


sh.page_errors(body)
