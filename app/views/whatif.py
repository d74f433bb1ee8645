"""What-if: edit a weapon's or a unit's stats or points, see the exact dice maths change at once,
save the edit as a variant, simulate it against chosen lists and read the paired impact."""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import _armies
import _shared as sh
import polars as pl
import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from pmim_analytics.analytics import impact, tables
from pmim_analytics.analytics.levels import MIXED, game_level, level_name
from pmim_analytics.analytics.whatif import dice_comparison, kill_curves
from pmim_analytics.errors import PmimError
from pmim_analytics.pipeline import SimRun, simulate_and_ingest
from pmim_analytics.report.dashboard_figures import impact_figure, kill_curve_figure
from pmim_analytics.rules import DEFAULT_SCENARIO, validate_army
from pmim_analytics.rules.variant_edit import (
    EDITABLE,
    VariantFieldError,
    build_variant,
    current_value,
    edited_codes_fielded,
    is_pricing_only,
    nest_overrides,
    variant_overrides,
    write_variant,
)
from pmim_analytics.sim.batch import BatchSpec
from pmim_analytics.store.connection import forget_migrated
from pmim_analytics.store.ingest import ingest_paths
from pmim_analytics.store.readers import DuckDBData

if TYPE_CHECKING:
    from pmim_analytics.rules import ArmyList, Roster, RulesVersion

st.title("What-if: change a stat, see what it does")
f = sh.sidebar()
EDITS = "whatif_edits"  # {(table, code, key): value} that differ from the base
TABLE_LABEL = {"weapons": "a weapon", "chassis": "a basic unit (infantry, vehicle)", "warmechs": "a Warmech"}
PREVIEW_ID = "what-if-preview"


def _edits() -> dict[tuple[str, str, str], int]:
    edits: dict[tuple[str, str, str], int] = st.session_state.setdefault(EDITS, {})
    return edits


def _on_stat(table: str, code: str, key: str, base_value: int) -> None:
    value = st.session_state[f"wi_{table}_{code}_{key}"]
    if value == base_value:
        _edits().pop((table, code, key), None)
    else:
        _edits()[(table, code, key)] = int(value)


def _clear() -> None:
    st.session_state[EDITS] = {}
    stat_keys = tuple(f"wi_{table}_" for table in EDITABLE)  # the stat inputs, not the simulation's choices
    for k in [k for k in st.session_state if isinstance(k, str) and k.startswith(stat_keys)]:
        del st.session_state[k]


def editor(base: str) -> dict[str, DeltaGenerator]:
    """Pick a weapon or unit type and edit its stats; edits pile up across items.

    Returns a slot under each shown stat input, by its field path (``weapons.LL.rpt``), for errors.
    """
    r = sh.rules(base)
    c = st.columns([2, 3])
    table = c[0].radio("Edit", list(TABLE_LABEL), format_func=TABLE_LABEL.get, key="wi_table")
    rows = {row.code: row for row in getattr(r, table)}
    code = c[1].selectbox("Which", list(rows), format_func=lambda k: f"{rows[k].name} ({k})", key=f"wi_pick_{table}")
    stats = EDITABLE[table]
    if table == "warmechs":
        stats = {k: v for k, v in stats.items() if not k.startswith("hp.") or current_value(r, table, code, k)}
    cols = st.columns(len(stats))
    slots: dict[str, DeltaGenerator] = {}
    for col, (key, label) in zip(cols, stats.items(), strict=True):
        base_value = current_value(r, table, code, key)
        wkey = f"wi_{table}_{code}_{key}"
        if wkey not in st.session_state:
            st.session_state[wkey] = _edits().get((table, code, key), base_value)
        col.number_input(f"{label} (base {base_value})", min_value=-99, max_value=999, step=1, key=wkey,
                         on_change=_on_stat, args=(table, code, key, base_value))
        slots[f"{table}.{code}.{key}"] = col.empty()
    return slots


def field_error(err: VariantFieldError, r: RulesVersion) -> str:
    """The message with the field spelled as the page names it (L. Laser RPT)."""
    parts = err.field.split(".")
    if len(parts) >= 3 and parts[0] in EDITABLE:
        rows = {row.code: row for row in getattr(r, parts[0])}
        who = rows[parts[1]].name if parts[1] in rows else parts[1]
        return f"{who} {EDITABLE[parts[0]].get('.'.join(parts[2:]), parts[2]).upper()}: {err.message}"
    return err.message


def dice_section(base: str, variant: RulesVersion, pricing_only: bool) -> None:
    """The exact dice maths, base against the edit, at once."""
    st.header("Dice maths: base against the edit")
    comp = dice_comparison(sh.rules(base), variant)
    if pricing_only or comp.height == 0:
        st.info("These edits change no weapon-against-target number: every chance to hit, damage and attacks "
                "to destroy is exactly that of the base rules.", icon="🎲")
    else:
        st.dataframe(comp.select(
            pl.format("{} ({})", "weapon_name", "weapon").alias("weapon"), pl.col("target"),
            (pl.col("p_hit_base") * 100).round(1).alias(f"hit % {base}"),
            (pl.col("p_hit_variant") * 100).round(1).alias("hit % edit"),
            pl.col("damage_on_hit_base").alias(f"damage/hit {base}"), pl.col("damage_on_hit_variant").alias(
                "damage/hit edit"),
            pl.col("expected_attacks_to_kill_exact_base").alias(f"attacks to destroy {base}"),
            pl.col("expected_attacks_to_kill_exact_variant").alias("attacks to destroy edit"),
            pl.col("attacks_change").round(2).alias("change")), hide_index=True, key="wi_table_changes")
        st.caption(f"{comp.height} weapon-target pairs change. Attacks to destroy are exact expectations "
                   "(fractions); '—' where the weapon cannot damage the target.")
    weapons = {w.code: w.name for w in variant.weapons}
    changed_w = comp["weapon"].unique(maintain_order=True).to_list()
    c = st.columns([1, 3, 1])
    w = c[0].selectbox("Weapon", list(weapons), format_func=lambda k: f"{weapons[k]} ({k})",
                       index=list(weapons).index(changed_w[0]) if changed_w else 0, key="wi_curve_weapon")
    units = {u.code: u.name for u in variant.iter_units()}
    default = comp.filter(pl.col("weapon") == w)["target_code"].to_list()[:6] or ["IN", "TY", "MJ"]
    targets = c[1].multiselect("Targets (up to 6)", list(units), default=[t for t in default if t in units],
                               format_func=units.__getitem__, max_selections=6, key=f"wi_curve_targets_{w}")
    n = c[2].number_input("Attacks", 2, 40, 12, key="wi_curve_n")
    if targets:
        curves = kill_curves([sh.rules(base), variant], w, targets, int(n))
        st.plotly_chart(kill_curve_figure(curves, base, variant.id, "the edit"), key="wi_curves")


def pricing_note(edits: dict[tuple[str, str, str], int], base: str) -> None:
    """What a points-only variant can and cannot answer."""
    r = sh.rules(base)
    names = {row.code: row.name for row in r.iter_units()}
    what = ", ".join(f"{names.get(code, code)} {current_value(r, t, code, k)} → {v} PTS"
                     for (t, code, k), v in sorted(edits.items()))
    st.warning(
        f"**A pricing-only variant** ({what}). It **can** answer: which lists become legal or what a list can add "
        "with the points saved (build such a list below and simulate it against the base lists), and how the "
        "bots' play shifts (they weigh targets by points). It **cannot** answer whether the new price is right "
        "from the same fixed lists: those lists play the same dice under both rules, so their paired impact "
        "says almost nothing about the price. For a price, use the implied-cost fit over random armies "
        "(Units page, 'Implied point costs').", icon="💰")


def save_section(base: str, edits: dict[tuple[str, str, str], int]) -> None:
    """Name the variant and write it under data/rules/variants (validated first)."""
    st.header("Save as a variant")
    c = st.columns([1, 2])
    vid = c[0].text_input("Variant id (the file name)", key="wi_id", placeholder=f"{base}-my-change")
    name = c[1].text_input("Name", key="wi_name", placeholder=f"{base} with …")
    desc = st.text_input("Why (one sentence, optional)", key="wi_desc")
    if st.button("Save the variant", type="primary", key="wi_save", disabled=not edits):
        try:
            path = write_variant(base, vid.strip(), name, nest_overrides(edits), desc)
        except VariantFieldError as e:
            where = {"id": "Variant id", "name": "Name"}.get(e.field, e.field)
            st.error(f"Not saved — **{where}**: {field_error(e, sh.rules(base))}", icon="🚫")
            return
        for fn in (sh.rules_catalogue, sh.rules, sh.dice):
            fn.clear()
        forget_migrated()  # the next ingest loads the new variant into the rules tables
        st.session_state["wi_saved"] = vid.strip()
        st.session_state["wi_saved_edits"] = (base, dict(edits))
        st.success(f"Saved `{path}`: rules id **{vid.strip()}**, usable everywhere (`pmim rules show "
                   f"{vid.strip()}`, sweeps, this dashboard).", icon="💾")


def whatif_db() -> Path:
    """The database of the what-if runs: the base's games of a what-if are kept here, never in the
    main database, so the base version's figures do not change (its variant's games go in both)."""
    return sh.env_path("PMIM_SIM_DIR", "replays/dashboard") / "whatif.duckdb"


def _stopped_message() -> None:
    """Say what happened to a run the last rerun stopped (Cancel, the toolbar's Stop, another click)."""
    stopped = st.session_state.pop("wi_stopped", None)
    running = st.session_state.pop("wi_running", None)
    if stopped is None and running is not None:  # stopped without a word (the server went away)
        stopped = _discard(running)
    if stopped:
        st.warning(stopped, icon="⏹️")


def _discard(run: dict[str, Any]) -> str:
    """Forget an unfinished run: its folders are removed unless its games were already loaded."""
    done, total = run["done"], run["total"]
    if run.get("loaded"):
        return (f"The run was stopped after all {total} games were played and loaded: the variant's games are in "
                "the database and the paired impact below counts them.")
    for folder in run["folders"]:
        shutil.rmtree(folder, ignore_errors=True)
    return (f"The run was stopped after {done} of {total} games. Those games were not loaded and their files were "
            "removed: the database is as it was before the run. Play again to simulate.")


def _pick_variant(variants: list[str], edits: dict[tuple[str, str, str], int], base: str) -> str | None:
    """The variant Simulate plays: the one saved from the edits (while the edits are unsaved,
    none), else one the user picks among the saved variants (none picked at first)."""
    saved: str | None = st.session_state.get("wi_saved")
    if edits:
        if saved in variants and st.session_state.get("wi_saved_edits") == (base, edits):
            st.caption(f"Plays the variant saved from these edits: **{saved}** ({sh.rules(saved).name}).")
            return saved
        st.info("Save the edits as a variant (above) to simulate them: Simulate plays only a saved variant, the "
                "one you are editing.", icon="💾")
        return None
    return st.selectbox("Saved variant to play", variants, index=None, key="wi_sim_variant",
                        placeholder="Pick a saved variant (or edit the stats above and save them)",
                        format_func=lambda v: f"{v}: {sh.rules(v).name}")


def simulate_section(edits: dict[tuple[str, str, str], int], base_now: str) -> None:
    """Play the same lists, bots and seeds under the base and the variant; show the paired impact."""
    variants = [r for r in sh.rules_ids() if sh.rules(r).is_variant]
    if not variants:
        return
    st.header("Simulate it against chosen lists")
    _stopped_message()
    vid = _pick_variant(variants, edits, base_now)
    if vid is None:
        return
    base = sh.rules(vid).base
    assert base is not None  # a variant (the only choices here) has a base
    st.caption(f"Each game is played twice, once under {base} and once under {vid}: the same two lists, bots and "
               f"seeds, so the comparison is paired. The {vid} games go into the database under their own rules id; "
               f"the {base} games are kept apart (in `{whatif_db()}`), so {base}'s figures do not change.")
    cols = st.columns(2)
    armies = {}
    for i, (side, col) in enumerate(zip(("A", "B"), cols, strict=True)):
        with col:
            st.subheader(f"Army {side}")
            armies[side] = _armies.army_input(f"wi_army_{side}", f"Army {side}", vid, default_index=i)
    bot_a, bot_b = sh.bot_inputs("wi_")
    d = st.columns(2)
    games = int(d[0].number_input("Games under each", 2, 2000, 20, step=2, key="wi_games"))
    seed = int(d[1].number_input("Seed", 0, 2**31 - 1, 1, key="wi_seed"))
    if None in armies.values():
        st.info("Both armies must be legal under the variant (and its base) to simulate.")
        return
    legal = {side: army for side, army in armies.items() if army is not None}  # both, by now
    try:
        rosters = {rid: (validate_army(legal["A"], rules_id=rid), validate_army(legal["B"], rules_id=rid))
                   for rid in (base, vid)}
    except PmimError as e:
        st.error(f"These armies cannot play under both {base} and {vid}: {e.render()}", icon="🚫")
        return
    overrides = variant_overrides(vid)
    reach = {side: edited_codes_fielded(rosters[vid][i], overrides) for i, side in enumerate(("A", "B"))}
    names = {row.code: row.name for row in (*sh.rules(vid).iter_units(), *sh.rules(vid).weapons)}
    said = [f"{legal[s].name} fields {', '.join(names.get(c, c) for c in reach[s])}" if reach[s]
            else f"{legal[s].name} fields none of the edited unit types or weapons" for s in ("A", "B")]
    st.caption("What the variant changes reaches these games only through what they field: " + "; ".join(said) + ".")
    if not any(reach.values()):
        st.warning("Neither list fields anything the variant changes, so their games under it are the base rules' "
                   "games, move for move: pick or build lists that use it.", icon="🎯")
    rate = st.session_state.get("wi_rate")
    if rate:
        st.caption(f"At the last run's pace ({rate:.1f} games a second) this takes about "
                   f"{_duration(2 * games / rate)}.")
    if st.button(f"Play {games} games under {base} and {games} under {vid}", type="primary", key="wi_run"):
        run_games(base, vid, legal, rosters, bot_a, bot_b, games, seed)
    if st.session_state.get("wi_impact", (None, None))[:2] == (base, vid):
        impact_view(*st.session_state["wi_impact"])


def _duration(seconds: float) -> str:
    return f"{seconds:.0f} s" if seconds < 90 else f"{seconds / 60:.0f} min"


def run_games(base: str, vid: str, armies: dict[str, ArmyList], rosters: dict[str, tuple[Roster, Roster]], bot_a: str,
              bot_b: str, games: int, seed: int) -> None:
    """Play both halves with a progress bar and a Cancel button, then load them (see :func:`whatif_db`).

    A stopped run (Cancel, or anything else that reruns the page) removes what it wrote and says
    so on the next run of the page; once the games are loaded, a stop keeps them."""
    bar = st.progress(0.0, text="Playing… (the time left shows after the first games)")
    cancel = st.empty()  # gone once the run is over
    cancel.button("Cancel the run", key="wi_cancel", help="Stops the games; nothing of this run is loaded")
    workers = 1 if games < 40 else max(1, min(4, os.cpu_count() or 1))
    total = 2 * games
    folders = []
    for rid in (base, vid):
        name = sh.slug(f"whatif-{rid}-{armies['A'].name}-vs-{armies['B'].name}-{bot_a}-{bot_b}-s{seed}-n{games}")
        folders.append(sh.env_path("PMIM_SIM_DIR", "replays/dashboard") / name)
    run = st.session_state["wi_running"] = {"folders": folders, "done": 0, "total": total}
    started = time.monotonic()

    def progress(k: int, rid: str, done: int, n: int) -> None:
        run["done"] = k * games + done
        rate = run["done"] / max(time.monotonic() - started, 1e-6)
        left = (total - run["done"]) / rate
        bar.progress(run["done"] / total, text=f"{rid}: played {done} of {n} games; about {_duration(left)} left")

    runs = [SimRun(BatchSpec(rid, DEFAULT_SCENARIO, *rosters[rid], bot_a, bot_b, seed, games, name=folder.name),
                   folder, part_size=max(1, min(100, games // 10 or 1)))
            for rid, folder in zip((base, vid), folders, strict=True)]

    def loading() -> None:
        st.session_state["wi_rate"] = total / max(time.monotonic() - started, 1e-6)
        bar.progress(1.0, text="Loading the games…")

    try:
        for folder in folders:
            shutil.rmtree(folder, ignore_errors=True)  # a half-written folder of an earlier run
        simulate_and_ingest(runs, whatif_db(), workers=workers, before_ingest=loading,
                            progress=lambda k, done, n: progress(k, runs[k].batch.rules_id, done, n))
        result = ingest_paths([folders[1]], f.db)
        run["loaded"] = True
    except BaseException:  # Cancel (a rerun), the toolbar's Stop, an error: nothing half-loaded stays
        st.session_state["wi_stopped"] = _discard(st.session_state.pop("wi_running", run))
        raise
    st.session_state.pop("wi_running", None)
    bar.empty()
    cancel.empty()
    st.session_state["wi_impact"] = (base, vid, armies["A"].name, armies["B"].name, game_level(bot_a, bot_b))
    st.session_state["wi_land"] = True  # scroll to the impact once it is drawn
    st.success(f"Played {total} games; {vid}: {result.summary()} (the {base} games are kept apart).", icon="✅")


def impact_view(base: str, vid: str, army_a: str, army_b: str, level: str = MIXED) -> None:
    """The paired impact of the variant at the bot ``level`` just played (both sides one level;
    ``mixed`` when the two armies had different bots): per list and per unit type, with intervals."""
    st.header(f"Paired impact: {base} → {vid}", anchor="paired-impact")
    if st.session_state.pop("wi_land", False):  # just simulated: land on the impact, not above it
        st.html("<script>setTimeout(() => window.parent.document.getElementById('paired-impact')"
                "?.scrollIntoView({block: 'start'}), 300)</script>", unsafe_allow_javascript=True)
    db = whatif_db()
    data = DuckDBData(db, (base, vid), bot_level=None if level == MIXED else level)
    imp = sh.with_retry(lambda: tables.impact_report(data, base, vid, paired=True))
    comps = imp.compositions
    picked = [army_a, army_b]
    mine = comps.filter(pl.col("composition_a").is_in(picked) | pl.col("composition_b").is_in(picked))
    st.plotly_chart(impact_figure(mine if mine.height else comps, provenance=sh.with_retry(data.provenance)),
                    key="wi_impact_fig")
    comps = impact.with_verdicts(comps)
    sh.table(comps, {"source": "Source", "list": "List", "games_a": f"Games {base}", "games_b": f"Games {vid}",
                     "win_a": f"Win % {base}", "win_b": f"Win % {vid}", "win_diff": "Change (points)",
                     "win_diff_lo": "95% from", "win_diff_hi": "95% to", "verdict": "Verdict"},
             percent=("win_a", "win_b", "win_diff", "win_diff_lo", "win_diff_hi"), key="wi_impact_table")
    sh.legend(impact.VERDICTS)
    st.caption("Paired: only games whose lists (by content), bots and sides were also played under the other rules "
               "id count (every what-if game that fits, not only the ones just played)"
               + (f", at bot level {level_name(level)} alone (both sides)" if level != MIXED else
                  "; the two armies had different bots, so the pairs are kept apart by the bots that played them")
               + ". Intervals are 95%, clustered by game.")
    with st.expander("Per unit type"):
        sh.impact_units_table(imp.units, base, vid, pts_digits=1)


def body() -> None:
    versions = [r for r in sh.rules_ids() if not sh.rules(r).is_variant]
    c = st.columns([1, 3])
    base = c[0].selectbox("Base rules", versions, index=versions.index("v3") if "v3" in versions else 0,
                          key="wi_base", on_change=_clear)
    c[1].caption("Edit any number of stats of weapons and unit types; the dice maths below update at once. "
                 "Save the edit as a variant to simulate it.")
    slots = editor(base)
    edits = _edits()
    if edits:
        names = {row.code: row.name for row in (*sh.rules(base).iter_units(), *sh.rules(base).weapons)}
        st.markdown("**Edits**: " + ", ".join(
            f"{names.get(code, code)} {EDITABLE[t][k]} {current_value(sh.rules(base), t, code, k)} → {v}"
            for (t, code, k), v in sorted(edits.items())))
        st.button("Clear the edits", on_click=_clear, key="wi_clear")
    else:
        st.info("No edits yet: change a number above.", icon="✏️")
    if edits:
        try:
            variant = build_variant(base, PREVIEW_ID, "the edit", nest_overrides(edits), replace=True)
        except VariantFieldError as e:
            message = f"**{field_error(e, sh.rules(base))}** — the rules refuse this value."
            slot = slots.get(e.field)
            if slot is not None:
                slot.error(message, icon="🚫")
            else:
                st.error(message, icon="🚫")
            variant = None
        if variant is not None:
            pricing = is_pricing_only(nest_overrides(edits))
            if pricing:
                pricing_note(edits, base)
            dice_section(base, variant, pricing)
            save_section(base, edits)
    simulate_section(edits, base)


sh.page_errors(body)
