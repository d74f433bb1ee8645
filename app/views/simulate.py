"""Simulate: bot-vs-bot games between two compositions under a rules version; results are ingested."""

from __future__ import annotations

import os

import _armies
import _shared as sh
import streamlit as st

from pmim_analytics.analytics.stats import wilson_interval
from pmim_analytics.errors import PmimError
from pmim_analytics.pipeline import SimRun, simulate_and_ingest
from pmim_analytics.rules import DEFAULT_SCENARIO, load_scenario, validate_army
from pmim_analytics.rules.variant_edit import is_pricing_only, variant_overrides
from pmim_analytics.sim import FIRST_PLAYER_HELP, FIRST_PLAYER_SETTINGS
from pmim_analytics.sim.batch import BatchSpec

st.title("Simulate")
f = sh.sidebar()
st.caption("The rules engine plays the games (army A is blue in even games, red in odd ones), writes them as a "
           f"Parquet batch under `{sh.env_path('PMIM_SIM_DIR', 'replays/dashboard')}` and ingests them into "
           f"`{f.db}`. The same settings and seed give the same games.")


def body() -> None:
    ids = sh.rules_ids()
    rules_id = st.selectbox("Rules version or variant", ids, index=ids.index("v3") if "v3" in ids else 0,
                            key="sim_rules", format_func=lambda r: f"{r}: {sh.rules(r).name}")
    if is_pricing_only(variant_overrides(rules_id)):
        st.info(f"{rules_id} changes points only: its dice are {sh.rules(rules_id).base}'s, so these games say what "
                "a list does with the points (build one that spends them), not whether the price is right; the "
                "implied-cost fit over random armies (Units page) prices units.", icon="💰")
    c = st.columns(2)
    armies = {}
    for i, (side, col) in enumerate(zip(("A", "B"), c, strict=True)):
        with col:
            armies[side] = _armies.army_input(f"sim_{side.lower()}", f"Army {side}", rules_id, default_index=i)
    bot_a, bot_b = sh.bot_inputs()
    d = st.columns(3)
    games = d[0].number_input("Games", 1, 5000, 20, key="sim_games")
    seed = d[1].number_input("Seed", 0, 2**31 - 1, 1, key="sim_seed")
    own = load_scenario(DEFAULT_SCENARIO).first_player
    first = d[2].selectbox("First player", [None, *FIRST_PLAYER_SETTINGS], key="sim_first",
                           format_func=lambda v: f"the scenario's ({own})" if v is None else v,
                           help=FIRST_PLAYER_HELP)
    list_a, list_b = armies["A"], armies["B"]
    if list_a is None or list_b is None:
        st.info("Both armies must be legal under the rules chosen to play.")
        return
    try:
        army_a = validate_army(list_a, rules_id=rules_id)
        army_b = validate_army(list_b, rules_id=rules_id)
    except PmimError as e:
        st.error(f"These armies cannot play under {rules_id}: {e.render()}", icon="🚫")
        return
    if not st.button("Run the games", type="primary", key="sim_run"):
        return
    slug = sh.slug(f"{army_a.name}-vs-{army_b.name}-{bot_a}-{bot_b}" + (f"-first-{first}" if first else ""))
    name = f"dash-{rules_id}-{slug}-s{seed}-n{games}"
    folder = sh.env_path("PMIM_SIM_DIR", "replays/dashboard") / name
    bar = st.progress(0.0, text=f"Playing {games} games…")
    workers = 1 if games < 40 else max(1, min(4, os.cpu_count() or 1))
    batch = BatchSpec(rules_id, DEFAULT_SCENARIO, army_a, army_b, bot_a, bot_b, int(seed), int(games), name=name,
                      first_player=first)

    def progress(_: int, played: int, total: int) -> None:
        bar.progress(played / total, text=f"Played {played} of {total} games")

    def before_ingest() -> None:
        bar.progress(1.0, text="Ingesting…")

    done = simulate_and_ingest(
        [SimRun(batch, folder, part_size=max(1, min(100, int(games) // 20 or 1)))], f.db, workers=workers,
        progress=progress, before_ingest=before_ingest)
    summary, result = done.summaries[0], done.ingest
    assert summary is not None and result is not None
    bar.empty()
    st.success(f"Played {summary.games} games of {army_a.name} against {army_b.name} under {rules_id}; "
               f"{result.summary()}.", icon="✅")
    m = st.columns(4)
    for col, label, k in ((m[0], f"{army_a.name} wins", summary.wins_a), (m[1], f"{army_b.name} wins", summary.wins_b),
                          (m[2], "Draws", summary.draws)):
        lo, hi = wilson_interval(k, summary.games)
        col.metric(label, k, f"{k / summary.games:.0%} (95%: {lo:.0%}–{hi:.0%})", delta_color="off")
    m[3].metric("Mean rounds", f"{summary.total_rounds / summary.games:.1f}")
    st.write("Endings: " + ", ".join(f"{k} {v}" for k, v in sorted(summary.reasons.items())))
    st.caption("Shares with Wilson 95% intervals over these games. The games are in the database now: the "
               "Compositions page and the Replay viewer show them.")


sh.page_errors(body)
