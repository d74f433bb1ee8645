"""Simulate: bot-vs-bot games between two compositions under a rules version; results are ingested."""

from __future__ import annotations

import os

import _armies
import _shared as sh
import streamlit as st

from pmim_analytics.analytics.stats import wilson_interval
from pmim_analytics.engine.bots import bot_names
from pmim_analytics.errors import PmimError
from pmim_analytics.rules import validate_army
from pmim_analytics.rules.variant_edit import is_pricing_only, variant_overrides
from pmim_analytics.sim.batch import BatchSpec, run_batch
from pmim_analytics.store.ingest import ingest_paths

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
    bots = bot_names()
    d = st.columns(4)
    bot_a = d[0].selectbox("Bot for A", bots, index=bots.index("tactician") if "tactician" in bots else 0, key="bot_a")
    bot_b = d[1].selectbox("Bot for B", bots, index=bots.index("tactician") if "tactician" in bots else 0, key="bot_b")
    games = d[2].number_input("Games", 1, 5000, 20, key="sim_games")
    seed = d[3].number_input("Seed", 0, 2**31 - 1, 1, key="sim_seed")
    if None in armies.values():
        st.info("Both armies must be legal under the rules chosen to play.")
        return
    try:
        army_a = validate_army(armies["A"], rules_id=rules_id)
        army_b = validate_army(armies["B"], rules_id=rules_id)
    except PmimError as e:
        st.error(f"These armies cannot play under {rules_id}: {e.render()}", icon="🚫")
        return
    if not st.button("Run the games", type="primary", key="sim_run"):
        return
    slug = "".join(ch if ch.isalnum() or ch in "-_" else "-" for ch in f"{army_a.name}-vs-{army_b.name}")
    name = f"dash-{rules_id}-{slug}-{bot_a}-{bot_b}-s{seed}-n{games}"
    folder = sh.env_path("PMIM_SIM_DIR", "replays/dashboard") / name
    bar = st.progress(0.0, text=f"Playing {games} games…")
    workers = 1 if games < 40 else max(1, min(4, os.cpu_count() or 1))
    batch = BatchSpec(rules_id, "take-and-hold", army_a, army_b, bot_a, bot_b, int(seed), int(games), name=name)
    summary = run_batch(batch, workers=workers, out=folder, fmt="parquet",
                        progress_callback=lambda done, total: bar.progress(done / total,
                                                                           text=f"Played {done} of {total} games"),
                        part_size=max(1, min(100, int(games) // 20 or 1)))
    bar.progress(1.0, text="Ingesting…")
    result = ingest_paths([folder], f.db)
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
