"""An army for a page: a file of data/armies or a list built on the page (What-if, Simulate)."""

from __future__ import annotations

from typing import Any

import _shared as sh
import polars as pl
import streamlit as st

from pmim_analytics.errors import PmimError
from pmim_analytics.rules import ArmyList, army_violations, data_dir, load_army
from pmim_analytics.rules.army import parse_army

STARTER = pl.DataFrame({"type": ["Timber Wolf", "Tyrant", "Infantry"], "weapons": ["GG ML", "HAC", "LAC"],
                        "count": [1, 2, 3]})


EXAMPLE = "(a small example)"


def army_table(army: ArmyList) -> pl.DataFrame:
    """An army list as the builder's table: unit type, weapon codes, count."""
    return pl.DataFrame({"type": [e.type for e in army.units], "weapons": [" ".join(e.weapons) for e in army.units],
                         "count": [e.count for e in army.units]})


def unit_entries(data: pl.DataFrame, rules_id: str, key: str) -> list[dict[str, Any]]:
    """The builder's table of units (type picked among ``rules_id``'s, weapon codes, count),
    starting from ``data``; returns the army entries of its filled rows."""
    r = sh.rules(rules_id)
    unit_names = [u.name for u in r.warmechs] + [u.name for u in r.chassis]
    table = st.data_editor(data, num_rows="dynamic", key=key, column_config={
        "type": st.column_config.SelectboxColumn("unit type", options=unit_names, required=True),
        "weapons": st.column_config.TextColumn("weapons (codes, space-separated)",
                                               help=", ".join(f"{w.code} = {w.name}" for w in r.weapons)),
        "count": st.column_config.NumberColumn("count", min_value=1, max_value=20, step=1, default=1)})
    return [{"type": t, "weapons": (w or "").replace(",", " ").split(), "count": int(c or 1)}
            for t, w, c in table.select("type", "weapons", "count").iter_rows() if t]


def army_files() -> dict[str, str]:
    """Army files of data/armies: file stem -> the army's own name (for pickers)."""
    out = {}
    for p in sorted((data_dir() / "armies").glob("*.yaml")):
        try:
            out[p.stem] = load_army(p).name
        except PmimError:
            out[p.stem] = p.stem
    return out


def army_input(prefix: str, label: str, rules_id: str, default_index: int = 0) -> ArmyList | None:
    """A file picked by army name, or a list built in a table; checked under ``rules_id``.

    Shows the points and every rule the army breaks; returns ``None`` while it is not legal.
    """
    mode = st.radio(f"{label} from", ["a file", "built here"], horizontal=True, key=f"{prefix}_mode")
    if mode == "a file":
        files = army_files()
        stems = list(files)
        pref = [s for s in stems if s.startswith(rules_id.split("-")[0] + "-")] or stems
        default = pref[min(default_index, len(pref) - 1)]
        stem = st.selectbox(label, stems, index=stems.index(default), format_func=lambda s: files[s],
                            key=f"{prefix}_file", help="Army lists of data/armies, by name.")
        try:
            army = load_army(data_dir() / "armies" / f"{stem}.yaml")
        except PmimError as e:
            st.error(e.render())
            return None
    else:
        files = army_files()
        start = st.selectbox(f"{label}: start from", [EXAMPLE, *files], key=f"{prefix}_start",
                             format_func=lambda s: s if s == EXAMPLE else f"{files[s]} (a copy to edit)",
                             help="Begin with a list of data/armies and change it (spend the points a variant "
                                  "saves, swap a weapon), or with a small example.")
        data = STARTER if start == EXAMPLE else army_table(load_army(data_dir() / "armies" / f"{start}.yaml"))
        default_name = f"{label} (built here)" if start == EXAMPLE else f"{files[start]}, edited"
        name = st.text_input(f"{label}: name", value=default_name, key=f"{prefix}_name_{start}")
        entries = unit_entries(data, rules_id, f"{prefix}_build_{start}")
        if not entries:
            st.warning("Add at least one unit.")
            return None
        try:
            army = parse_army({"name": name or label, "rules": rules_id, "units": entries}, label)
        except PmimError as e:
            st.error(e.render())
            return None
    sc = sh.scenario()
    try:
        roster, problems = army_violations(army, rules_id, sc)
    except PmimError as e:
        st.error(e.render())
        return None
    if problems:
        st.error(f"{army.name} is not legal under {rules_id} ({roster.points} / {sc.points_limit} points): "
                 + "; ".join(problems), icon="🚫")
        return None
    st.caption(f"{army.name}: {roster.points} / {sc.points_limit} points, {len(roster.units)} units, "
               f"{roster.warmech_count} Warmechs — legal under {rules_id}.")
    return army
