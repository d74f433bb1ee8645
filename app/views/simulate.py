"""Simulate: bot-vs-bot games between two compositions under a rules version; results are ingested."""

from __future__ import annotations

import os

import _shared as sh
import streamlit as st

from pmim_analytics.engine.bots import bot_names
from pmim_analytics.errors import PmimError
from pmim_analytics.rules import data_dir, load_army, validate_army
from pmim_analytics.sim.batch import BatchSpec, run_batch
from pmim_analytics.store.ingest import ingest_paths

st.title("Simulate")
f = sh.sidebar()
st.caption("The rules engine plays the games (army A is blue in even games, red in odd ones), writes them as a "
           f"Parquet batch under `{sh.env_path('PMIM_SIM_DIR', 'replays/dashboard')}` and ingests them into "
           f"`{f.db}`. The same settings and seed give the same games.")


def body() -> None:
    ids = sh.rules_ids()
    files = sorted(p.stem for p in (data_dir() / "armies").glob("*.yaml"))
    c = st.columns(3)
    rules_id = c[0].selectbox("Rules version or variant", ids, index=ids.index("v3") if "v3" in ids else 0,
                              key="sim_rules")
    pref = [n for n in files if n.startswith(rules_id.split("-")[0] + "-")] or files
    a = c[1].selectbox("Army A", files, index=files.index(pref[0]), key="sim_a")
    b = c[2].selectbox("Army B", files, index=files.index(pref[min(1, len(pref) - 1)]), key="sim_b")
    bots = bot_names()
    d = st.columns(4)
    bot_a = d[0].selectbox("Bot for A", bots, index=bots.index("tactician") if "tactician" in bots else 0, key="bot_a")
    bot_b = d[1].selectbox("Bot for B", bots, index=bots.index("tactician") if "tactician" in bots else 0, key="bot_b")
    games = d[2].number_input("Games", 1, 5000, 20, key="sim_games")
    seed = d[3].number_input("Seed", 0, 2**31 - 1, 1, key="sim_seed")
    try:
        army_a = validate_army(load_army(data_dir() / "armies" / f"{a}.yaml"), rules_id=rules_id)
        army_b = validate_army(load_army(data_dir() / "armies" / f"{b}.yaml"), rules_id=rules_id)
    except PmimError as e:
        st.error(f"These armies cannot play under {rules_id}: {e.render()}", icon="🚫")
        return
    st.caption(f"A: {army_a.points} points, {len(army_a.units)} units · B: {army_b.points} points, "
               f"{len(army_b.units)} units")
    if not st.button("Run the games", type="primary", key="sim_run"):
        return
    name = f"dash-{rules_id}-{a}-vs-{b}-{bot_a}-{bot_b}-s{seed}-n{games}"
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
    st.success(f"Played {summary.games} games; {result.summary()}.", icon="✅")
    m = st.columns(4)
    m[0].metric(f"{a} wins", summary.wins_a, f"{summary.wins_a / summary.games:.0%}", delta_color="off")
    m[1].metric(f"{b} wins", summary.wins_b, f"{summary.wins_b / summary.games:.0%}", delta_color="off")
    m[2].metric("Draws", summary.draws)
    m[3].metric("Mean rounds", f"{summary.total_rounds / summary.games:.1f}")
    st.write("Endings: " + ", ".join(f"{k} {v}" for k, v in sorted(summary.reasons.items())))
    st.caption("The games are in the database now: the Compositions page and the Replay viewer show them.")


sh.page_errors(body)
