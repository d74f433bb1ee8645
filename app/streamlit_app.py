"""The PMIM balance dashboard: `streamlit run app/streamlit_app.py` (or `make dashboard`).

Eleven pages over the replay database; every number comes from pmim_analytics.
"""

from __future__ import annotations

from pathlib import Path

import _shared as sh
import streamlit as st

HERE = Path(__file__).resolve().parent

#: (file under views/, title, icon): the order of the navigation.
PAGES = (
    ("overview.py", "Overview", ":material/dashboard:"),
    ("compositions.py", "Compositions", ":material/groups:"),
    ("rules_ab.py", "Rules A → B", ":material/compare_arrows:"),
    ("units.py", "Units", ":material/smart_toy:"),
    ("weapons.py", "Weapons & dice", ":material/casino:"),
    ("whatif.py", "What-if", ":material/science:"),
    ("replay.py", "Replay viewer", ":material/hexagon:"),
    ("log_match.py", "Log a match", ":material/edit_note:"),
    ("simulate.py", "Simulate", ":material/play_circle:"),
    ("bots.py", "Bots", ":material/leaderboard:"),
    ("export.py", "Export", ":material/download:"),
)

st.set_page_config(page_title="PMIM balance dashboard", page_icon="⬢", layout="wide")
sh.demo_banner()
nav = st.navigation([st.Page(HERE / "views" / f, title=t, icon=i, default=(k == 0))
                     for k, (f, t, i) in enumerate(PAGES)])
nav.run()
