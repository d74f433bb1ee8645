"""What every page shares: the sidebar filters, caching, the empty state and the busy message.

The app is thin: numbers come from :mod:`pmim_analytics.analytics` (and the store's
readers); this module only caches them. Query results are cached on the database's content
version (file size and modification time, WAL included), so games ingested while the app
runs show up on the next rerun without a restart.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import pandas  # noqa: F401  (imported whole up front: plotly peeks at sys.modules for pandas without importing
import polars as pl  # it, and met a half-imported pandas while another run was importing it: AttributeError)
import streamlit as st

from pmim_analytics.analytics import Provenance, dice_table, tables
from pmim_analytics.analytics.levels import (
    MIXED,
    BotLevelError,
    LevelChoice,
    choose_bot_level,
    level_name,
    level_of,
    level_strength,
)
from pmim_analytics.demo import demo_status
from pmim_analytics.engine.bots import BOTS, DEFAULT_PERSONA, BotSpec, bot_names, parse_bot_spec, persona_names
from pmim_analytics.errors import PmimError, StoreError
from pmim_analytics.rules import DEFAULT_SCENARIO, load_rules, load_scenario, rules_label, usable_rules_ids
from pmim_analytics.store.connection import is_lock_error, resolve_db_path
from pmim_analytics.store.games import list_games, read_stored_game, selection_choices
from pmim_analytics.store.info import db_info
from pmim_analytics.store.readers import DuckDBData

if TYPE_CHECKING:
    from pandas.io.formats.style import Styler  # pandas ships no type hints: Any to mypy

    from pmim_analytics.rules import RulesVersion, Scenario
    from pmim_analytics.store.games import StoredGame
    from pmim_analytics.store.info import DbInfo

#: The repository (default folders for what the dashboard writes).
ROOT = Path(__file__).resolve().parent.parent

T = TypeVar("T")
ALL = "(all)"
#: How long a page waits for an ingest to let go of the database before giving up.
BUSY_WAIT = 20.0
EMPTY_HELP = """
**Next steps**

- `make run` builds the quick core of the demo database (tactician's games under v3, the designer's
  playtests and a bot ladder), opens this dashboard and builds the rest (about 5,000 games under
  v2, v3 and the what-if variants) in the background;
- or `.venv/bin/pmim demo` to build only the demo database;
- or `.venv/bin/pmim ingest replays/ data/playtests/*.pmimlog` to load your own replays and logs;
- or use the **Log a match** and **Simulate** pages here to add games.
"""


@dataclass(frozen=True)
class Filters:
    """The sidebar's selection. ``None`` means "all"."""

    db: str
    version: tuple[int, int]
    rules_ids: tuple[str, ...] | None
    source: str | None
    composition: str | None
    games: int
    #: The bot level every figure rests on (canonical key); None when the selection has none.
    level: str | None = None
    #: How it was chosen (the default's reason, its games, the rules ids without games at it).
    level_choice: LevelChoice | None = None
    #: The level the user picked in the sidebar (None: the default, which follows the selection).
    picked_level: str | None = None
    #: Why there is no level (every game mixed), when ``level`` is None with games selected.
    level_error: str | None = None

    @property
    def key(self) -> tuple[str, tuple[int, int], tuple[str, ...] | None, str | None, str | None]:
        """What cached results depend on: the selection at its bot level (levels never pooled)."""
        return (self.db, self.version, self.rules_ids, self.source, self.level)

    @property
    def level_text(self) -> str:
        """``search:budget=100, skill 1``: the level and skill the page's figures rest on."""
        return level_name(self.level) if self.level else "no bot level"

    def level_for(self, rules_ids: tuple[str, ...] | list[str]) -> LevelChoice:
        """The level a comparison of ``rules_ids`` (outside the sidebar's rules filter) rests on:
        the one picked in the sidebar, else :func:`choose_bot_level`'s for these rules ids,
        exactly as ``pmim report ... --rules A,B`` chooses. Raises :class:`BotLevelError`."""
        levels = with_retry(lambda: _levels(self.db, self.version, tuple(rules_ids), self.source))
        picked = self.picked_level
        if picked is not None and picked not in set(levels["level"].to_list()):
            picked = None  # the level picked has no games here: the default, said by the caller's caption
        return choose_bot_level(levels, picked, list(rules_ids))


def content_version(db: str | Path) -> tuple[int, int]:
    """(size, mtime in ns) of the database file and its WAL: changes when games are ingested."""
    size, mtime = 0, 0
    for p in (Path(db), Path(str(db) + ".wal")):
        try:
            s = p.stat()
        except OSError:
            continue
        size += s.st_size
        mtime = max(mtime, s.st_mtime_ns)
    return size, mtime


def with_retry(fn: Callable[[], T], what: str = "the database") -> T:
    """Run ``fn``; while an ingest holds the database, say so and retry (up to :data:`BUSY_WAIT` s)."""
    deadline = time.monotonic() + BUSY_WAIT
    note = None
    while True:
        try:
            result = fn()
        except StoreError as e:
            if not is_lock_error(e) and "locked" not in str(e):
                raise
            if time.monotonic() > deadline:
                if note is not None:
                    note.empty()
                raise StoreError(f"{what} stayed busy for {BUSY_WAIT:.0f} s (an ingest is writing it); "
                                 "reload the page when it has finished") from e
            if note is None:
                note = st.empty()
                note.info("The database is busy (an ingest is writing it); retrying…", icon="⏳")
            time.sleep(0.5)
            continue
        if note is not None:
            note.empty()
        return result


# -- cached reads ------------------------------------------------------------------------


@st.cache_resource(show_spinner=False)
def rules(rules_id: str) -> RulesVersion:
    """A rules version from the catalogue (loaded once per process)."""
    return load_rules(rules_id)


@st.cache_resource(show_spinner=False)
def scenario(scenario_id: str = DEFAULT_SCENARIO) -> Scenario:
    """A scenario from the catalogue (loaded once per process)."""
    return load_scenario(scenario_id)


@st.cache_resource(show_spinner=False)
def rules_catalogue() -> tuple[list[str], dict[str, str]]:
    """The rules ids of the catalogue that load, variants included, and each id skipped
    because its file does not load (with the one-sentence reason)."""
    ids, skipped = usable_rules_ids()
    return ids, {rid: e.render() for rid, e in skipped.items()}


def rules_ids() -> list[str]:
    """Every rules id of the catalogue that loads, variants included; a variant file that does
    not load is left out and named once per session (as ``pmim rules list`` does)."""
    ids, skipped = rules_catalogue()
    warned: set[str] = st.session_state.setdefault("rules_skipped_warned", set())
    for rid, why in skipped.items():
        if rid not in warned:
            warned.add(rid)
            st.warning(f"Rules {rid!r} skipped: {why}", icon="⚠️")
    return ids


@st.cache_data(show_spinner=False, max_entries=8)
def _choices(db: str, version: tuple[int, int]) -> dict[str, list[str]]:
    return selection_choices(db)


@st.cache_data(show_spinner=False, max_entries=8)
def _info(db: str, version: tuple[int, int]) -> DbInfo:
    return db_info(db)


REPORTS: dict[str, Callable[[DuckDBData], Any]] = {
    "units": tables.unit_report,
    "survival": tables.survival_report,
    "weapons": tables.weapon_report,
    "compositions": tables.composition_report,
    "matchups": tables.matchup_report,
    "matchups_by_list": lambda data: tables.matchup_report(data, key="list"),
    "sides": tables.side_report,
    "costs": tables.cost_report,
    "luck": tables.luck_report,
    "quality": tables.quality_report,
    "optional_rules": tables.optional_rules_report,
    "cells": lambda data: data.matchup_cells(),
}


@st.cache_data(show_spinner="Computing…", max_entries=128)
def _report(name: str, db: str, version: tuple[int, int], rules_ids: tuple[str, ...] | None,
            source: str | None, level: str | None) -> Any:
    return REPORTS[name](DuckDBData(db, rules_ids, source, bot_level=level))


@st.cache_data(show_spinner=False, max_entries=32)
def _provenance(db: str, version: tuple[int, int], rules_ids: tuple[str, ...] | None,
                source: str | None, level: str | None) -> Provenance:
    return DuckDBData(db, rules_ids, source, bot_level=level).provenance()


@st.cache_data(show_spinner=False, max_entries=32)
def _levels(db: str, version: tuple[int, int], rules_ids: tuple[str, ...] | None, source: str | None
            ) -> pl.DataFrame:
    """Games per rules id, source and bot level of a selection (every level)."""
    return DuckDBData(db, rules_ids, source).bot_levels()


@st.cache_data(show_spinner=False, max_entries=32)
def _games(db: str, version: tuple[int, int], rules_ids: tuple[str, ...] | None, source: str | None,
           composition: str | None, limit: int, with_events_only: bool) -> pl.DataFrame:
    return list_games(db, rules_ids, source, composition, limit, with_events_only)


@st.cache_data(show_spinner=False, max_entries=16)
def _game(db: str, version: tuple[int, int], game_id: str) -> StoredGame:
    return read_stored_game(game_id, db)


@st.cache_data(show_spinner=False, max_entries=16)
def dice(rules_id: str) -> pl.DataFrame:
    """The exact dice table of a rules id (weapon x target)."""
    return dice_table(rules(rules_id))


@st.cache_data(show_spinner="Pairing the games…", max_entries=16)
def _impact(db: str, version: tuple[int, int], a: str, b: str, source: str | None, level: str
            ) -> tables.ImpactTables:
    return tables.impact_report(DuckDBData(db, (a, b), source, bot_level=level), a, b, paired=True)


def impact(f: Filters, a: str, b: str, level: str) -> tables.ImpactTables:
    """``pmim report impact --rules A,B --bot LEVEL`` on the sidebar's source (its rules filter
    does not apply; the level is :meth:`Filters.level_for`'s)."""
    return with_retry(lambda: _impact(f.db, f.version, a, b, f.source, level))


def database_rules_ids(f: Filters) -> list[str]:
    """The rules ids the database has games of (the sidebar's choices)."""
    return with_retry(lambda: _choices(f.db, f.version))["rules_ids"]


def impact_units_table(units: Any, a: str, b: str, pts_digits: int, key: str | None = None) -> None:
    """The paired change per unit type from rules ``a`` to ``b`` (``pmim report impact``'s unit
    table), labelled for the Rules A → B and What-if pages."""
    table(units, {"source": "Source", "type": "Unit type", "units_a": f"Units {a}", "units_b": f"Units {b}",
                  "pts_a": f"PTS {a}", "pts_b": f"PTS {b}", "damage_per_pt_diff": "Damage / pt change",
                  "damage_per_pt_diff_lo": "95% from", "damage_per_pt_diff_hi": "95% to",
                  "vp_per_pt_diff": "VP / pt change", "vp_per_pt_diff_lo": "VP / pt 95% from",
                  "vp_per_pt_diff_hi": "VP / pt 95% to"},
          digits={"pts_a": pts_digits, "pts_b": pts_digits, "damage_per_pt_diff": 3, "damage_per_pt_diff_lo": 3,
                  "damage_per_pt_diff_hi": 3, "vp_per_pt_diff": 4, "vp_per_pt_diff_lo": 4, "vp_per_pt_diff_hi": 4},
          key=key)


def legend(words: dict[str, str]) -> None:
    """What each verdict word of a table means, as one caption under it."""
    st.caption("**What the words mean.** " + "; ".join(f"*{w}*: {m}" for w, m in words.items()) + ".")


def report(name: str, f: Filters) -> Any:
    """A report table of :mod:`pmim_analytics.analytics.tables` for the sidebar's selection."""
    return with_retry(lambda: _report(name, *f.key))


def provenance(f: Filters) -> Provenance:
    """What the selection rests on (its bot level included), for captions and figure subtitles."""
    return with_retry(lambda: _provenance(*f.key))


def provenance_of(f: Filters, rules_ids: tuple[str, ...], level: str) -> Provenance:
    """What a comparison of ``rules_ids`` at bot ``level`` rests on (the sidebar's source)."""
    return with_retry(lambda: _provenance(f.db, f.version, rules_ids, f.source, level))


def games(f: Filters, limit: int = 500, with_events_only: bool = False) -> pl.DataFrame:
    """The newest games of the selection (composition filter included)."""
    return with_retry(lambda: _games(*f.key[:4], f.composition, limit, with_events_only))


def game_by_id(db: str, version: tuple[int, int], game_id: str) -> StoredGame:
    """One stored game (cached per database version), for cached functions of a page."""
    return _game(db, version, game_id)


def game(f: Filters, game_id: str) -> StoredGame:
    """One stored game (row, units, events)."""
    return with_retry(lambda: _game(f.db, f.version, game_id))


def info(f: Filters) -> DbInfo:
    """``pmim db info`` numbers of the database."""
    return with_retry(lambda: _info(f.db, f.version))


def only_composition(df: pl.DataFrame, f: Filters, *cols: str) -> pl.DataFrame:
    """Rows of a table whose composition columns include the sidebar's composition (all if none)."""
    if f.composition is None or df.height == 0:
        return df
    import polars as pl

    cond = pl.lit(False)
    for c in cols or ("composition",):
        cond = cond | (pl.col(c) == f.composition)
    return df.filter(cond)


# -- sidebar ----------------------------------------------------------------------------


def default_db() -> str:
    """The database chosen when the server started, never from the browser: ``--db PATH``
    after ``--`` on the command line (``streamlit run app/streamlit_app.py -- --db x.duckdb``),
    else ``$PMIM_DB``, else ``data/pmim.duckdb``."""
    args = sys.argv[1:]
    for i, a in enumerate(args):
        if a == "--db" and i + 1 < len(args):
            return str(resolve_db_path(args[i + 1]))
        if a.startswith("--db="):
            return str(resolve_db_path(a[len("--db="):]))
    return str(resolve_db_path(None))


#: Filter widgets whose value is kept across pages and in the URL: widget key -> query parameter.
URL_FILTERS = {"rules_filter": "rules", "source_filter": "source", "composition_filter": "composition",
               "level_filter": "bot"}
SOURCES = ["all", "engine", "manual"]


def _keep(key: str) -> None:
    """on_change: remember a filter under a key no page owns (widget state is per page)."""
    st.session_state[f"kept_{key}"] = st.session_state[key]


def _restore(key: str, from_url: Callable[[], Any]) -> None:
    """Give a filter widget its kept value, else the URL's (a bookmark or a shared link)."""
    if f"kept_{key}" in st.session_state:
        st.session_state[key] = st.session_state[f"kept_{key}"]
    elif key not in st.session_state and URL_FILTERS[key] in st.query_params:
        value = from_url()
        if value is not None:
            st.session_state[key] = st.session_state[f"kept_{key}"] = value


def _write_url(picked: list[str], all_ids: list[str], src: str, comp: str, level: str | None = None) -> None:
    """Put the selection in the URL's query parameters (defaults left out)."""
    wanted = {"rules": ",".join(picked) if set(picked) != set(all_ids) else None,
              "source": src if src != "all" else None, "composition": comp if comp != ALL else None,
              "bot": level}
    for name, value in wanted.items():
        if value is None:
            if name in st.query_params:
                del st.query_params[name]
        elif st.query_params.get(name) != value:
            st.query_params[name] = value


#: Where ``make run`` builds the demo (its status file tells the banner how far it is).
DEMO_DIR_ENV = "PMIM_DEMO_DIR"


def demo_banner() -> None:
    """While the demo still builds in the background (for this database), say so above every
    page: how many batches of how many, and the time left. Looks again every 15 seconds; once
    more batches are stored than when the page was drawn, it says how many and offers a
    Refresh that redraws the page from them (the cached figures are keyed on the database's
    content, so the new games show)."""
    root = Path(os.environ.get(DEMO_DIR_ENV) or ROOT / "replays" / "demo")
    first = demo_status(root)
    drawn = first.steps_done if first is not None else 0  # batches stored when the page was drawn

    @st.fragment(run_every=15)
    def banner() -> None:
        s = demo_status(root)
        if s is None or not s.db or Path(s.db).resolve() != Path(default_db()).resolve():
            return
        new = s.steps_done - drawn
        if s.building:
            st.info(f"{s.sentence()}. This page shows the {drawn} batches stored when it was drawn.",
                    icon=":material/hourglass_top:")
        elif s.state == "stopped":
            st.caption(s.sentence())
        elif new <= 0:
            return
        if new > 0:
            text, button = st.columns([4, 1], vertical_alignment="center")
            text.warning(f"{s.steps_done} of {s.steps_total} batches stored: {new} more since this page was "
                         "drawn. Refresh to include them.", icon=":material/refresh:")
            if button.button("Refresh", key="demo_refresh", help="Redraw this page from every batch stored so far"):
                st.rerun()

    banner()


def sidebar() -> Filters:
    """Draw the sidebar filters and return the selection.

    The rules versions, source and composition persist across pages (kept in the session)
    and live in the URL (``?rules=v3,v3-llaser-rpt4&source=engine&composition=...``), so a view
    can be bookmarked and shared; a reload from such a URL starts with that selection.
    """
    sb = st.sidebar
    sb.header("Filters")
    db = default_db()  # fixed at start: a browser cannot point the server at another file
    version = content_version(db)
    choices: dict[str, list[str]] = {"rules_ids": [], "sources": [], "compositions": []}
    games_n = 0
    if Path(db).is_file():
        try:
            choices = with_retry(lambda: _choices(db, version))
            games_n = with_retry(lambda: _info(db, version)).games
        except PmimError as e:
            sb.error(e.render())
    all_ids = choices["rules_ids"]
    comps = [ALL, *choices["compositions"]]
    _restore("rules_filter", lambda: [r for r in st.query_params["rules"].split(",") if r in all_ids] or None)
    _restore("source_filter", lambda: st.query_params["source"] if st.query_params["source"] in SOURCES else None)
    _restore("composition_filter", lambda: st.query_params["composition"]
             if st.query_params["composition"] in comps else None)
    if "rules_filter" in st.session_state:  # drop ids this database does not have
        st.session_state["rules_filter"] = [r for r in st.session_state["rules_filter"] if r in all_ids]
    if st.session_state.get("composition_filter", ALL) not in comps:
        st.session_state["composition_filter"] = ALL
    picked = sb.multiselect("Rules versions and variants", all_ids,
                            default=None if "rules_filter" in st.session_state else all_ids,
                            key="rules_filter", on_change=_keep, args=("rules_filter",), format_func=rules_label,
                            select_all=False,  # typing v3 + Enter picks v3, not every id that starts so
                            help="Variants are rules versions of their own; a variant that switches on optional "
                                 "rules (heat, rolled initiative, catch-up activations, rushing) names them.")
    src = sb.radio("Source", SOURCES, horizontal=True, key="source_filter", on_change=_keep, args=("source_filter",),
                   help="engine: simulated by the bots; manual: logged from real tables")
    comp = sb.selectbox("Composition", comps, key="composition_filter", on_change=_keep,
                        args=("composition_filter",),
                        help="Limits composition tables and game lists to games with this army list.")
    ids = tuple(picked) if picked and len(picked) < len(all_ids) else None
    if picked == [] and all_ids:
        ids = ("<none>",)
    source = None if src == "all" else src
    level, choice, chosen, error = _level_filter(db, version, ids, source, games_n)
    sb.caption((f"{games_n:,} games in {db}" if games_n else f"No games in {db} yet.")
               + " (the database is chosen at start: `-- --db PATH` or `$PMIM_DB`)")
    sb.caption("The filters are in the page's address: bookmark it or share it to come back to this view.")
    _write_url(list(picked), all_ids, src, comp, chosen)
    return Filters(db, version, ids, source, None if comp == ALL else comp, games_n, level, choice, chosen, error)


def _url_level(text: str, names: list[str]) -> str | None:
    """The level a ``?bot=`` names (any spelling of a spec), if the selection has games at it."""
    try:
        key = level_of(text)
    except PmimError:
        return None
    return key if key in names else None


def _level_filter(db: str, version: tuple[int, int], ids: tuple[str, ...] | None, source: str | None,
                  games_n: int) -> tuple[str | None, LevelChoice | None, str | None, str | None]:
    """The sidebar's bot level: (level, how it was chosen, the level the user picked or None,
    why there is none). Its default is :func:`choose_bot_level`'s for the selection (the
    strongest level with enough games under every rules id selected) and follows the selection
    until the user picks one; a pick is kept across pages and in the address (``?bot=``)."""
    sb = st.sidebar
    key = "level_filter"
    if not games_n or ids == ("<none>",):
        st.session_state.pop(key, None)
        return None, None, None, None
    levels = with_retry(lambda: _levels(db, version, ids, source))
    counts = dict(levels.filter(pl.col("level") != MIXED).group_by("level").agg(pl.col("games").sum()).iter_rows())
    names = sorted(counts, key=level_strength, reverse=True)  # strongest first
    try:
        default = choose_bot_level(levels, None, list(ids) if ids else None)
    except BotLevelError as e:
        st.session_state.pop(key, None)
        sb.warning(f"No bot level: {e}.", icon="🤖")
        return None, None, None, str(e)
    _restore(key, lambda: _url_level(st.query_params["bot"], names))
    kept = st.session_state.get(f"kept_{key}")
    chosen = kept if kept in names and kept != default.key else None
    st.session_state[key] = chosen or default.key  # untouched, the default follows the selection
    level = sb.selectbox(
        "Bot level (both sides)", names, key=key, on_change=_keep, args=(key,),
        format_func=lambda k: f"{level_name(k)} ({counts[k]:,} games)",
        help="Every figure and table rests on the games where both sides played at this level (and skill): "
             f"levels are never pooled. The default is {default.text()}.")
    choice = default if level == default.key else choose_bot_level(levels, level, list(ids) if ids else None)
    if choice.missing:
        sb.caption(f":material/warning: No games at {level_name(level)} under {', '.join(choice.missing)}: left out "
                   "of every figure (pick a level they share to compare them).")
    return level, choice, chosen, None


#: What an empty cell reads everywhere in the dashboard.
MISSING = "—"


def labelled(df: pl.DataFrame, labels: dict[str, str], percent: tuple[str, ...] = (),
             digits: dict[str, int] | None = None) -> Styler:
    """``df``'s columns named in ``labels`` (in that order), shown under their labels: shares in
    ``percent`` as percent with one decimal, floats rounded to ``digits`` (2 unless given), and
    "—" for a missing value. A pandas Styler: the cells keep their numbers, so columns still sort."""
    digits = digits or {}
    shown = df.select([c for c in labels if c in df.columns]).to_pandas()
    formats = {}
    for col in shown.columns:
        if col in percent:
            formats[labels[col]] = f"{{:.{digits.get(col, 1)}f}}"
            shown[col] = shown[col] * 100
        elif shown[col].dtype.kind == "f":
            formats[labels[col]] = f"{{:.{digits.get(col, 2)}f}}"
        elif shown[col].dtype.kind in "iu":
            formats[labels[col]] = "{:,}"
    shown = shown.rename(columns=labels)
    return shown.style.format(formats, na_rep=MISSING).format(na_rep=MISSING, subset=[
        c for c in shown.columns if c not in formats])


def table(df: pl.DataFrame, labels: dict[str, str], percent: tuple[str, ...] = (), digits: dict[str, int] | None = None,
          **kwargs: Any) -> None:
    """A table with human column names and "—" for missing values (see :func:`labelled`)."""
    st.dataframe(labelled(df, labels, percent, digits), hide_index=True, **kwargs)


def empty_state(f: Filters, what: str = "this page") -> bool:
    """Show what to do when there are no games; True when the page should stop."""
    if f.games:
        return False
    where = f"`{f.db}`" if Path(f.db).exists() else f"`{f.db}` (no file there yet)"
    st.info(f"No games in the database {where}, so {what} has nothing to show yet.", icon="📭")
    st.markdown(EMPTY_HELP)
    return True


def level_caption(f: Filters) -> None:
    """One line under a page's title: the bot level and skill its figures rest on, and why."""
    if f.level is None:
        return
    why = "picked in the sidebar" if f.picked_level else f.level_choice.reason if f.level_choice else ""
    st.caption(f"Every figure and table here rests on bot level **{f.level_text}** (both sides; {why}); levels "
               "are never pooled. Pick another level in the sidebar.")


def no_selection(f: Filters, prov: Provenance) -> bool:
    """Say so when the filters select no games, or no bot level; True when the page should stop."""
    if f.level is None and f.level_error:
        st.warning(f"No figure: {f.level_error}.", icon="🤖")
        return True
    if prov.games:
        return False
    st.warning("The filters select no games: widen the rules versions or the source in the sidebar.", icon="🔎")
    return True


def page_errors(body: Callable[[], None]) -> None:
    """Run a page body; a PmimError becomes one message instead of a traceback."""
    try:
        body()
    except PmimError as e:
        st.error(e.render(), icon="⚠️")


def env_path(name: str, default: str) -> Path:
    """A folder from the environment (tests point these at temporary folders)."""
    return Path(os.environ.get(name) or (ROOT / default))


def slug(text: str) -> str:
    """``text`` as a folder name: letters, digits, ``-`` and ``_`` kept, anything else a ``-``."""
    return "".join(ch if ch.isalnum() or ch in "-_" else "-" for ch in text)


def bot_inputs(prefix: str = "") -> tuple[str, str]:
    """The bot specs of armies A and B, side by side (widgets keyed ``{prefix}bot_a`` and
    ``{prefix}bot_b``, see :func:`bot_input`)."""
    cols = st.columns(2)
    specs = []
    for side, col in zip(("A", "B"), cols, strict=True):
        with col:
            specs.append(bot_input(side, f"{prefix}bot_{side.lower()}"))
    return specs[0], specs[1]


def bot_input(side: str, key: str) -> str:
    """The bot spec of army ``side``, as on the command line (``search:budget=400,persona=aggressive``):
    a choice of bot, then each of its settings (default and range from the bot) and its persona
    when it takes one; the spec is shown under them. Widgets are keyed ``key``, ``key_<setting>``
    and ``key_persona``."""
    names = bot_names()
    name = st.selectbox(f"Bot for {side}", names, index=names.index("tactician") if "tactician" in names else 0,
                        key=key)
    cls = BOTS[name]
    params = {p: int(st.number_input(f"{p} ({spec.help})" if spec.help else p, spec.low, spec.high, spec.default,
                                     key=f"{key}_{p}", help=f"{spec.low} to {spec.high}; default {spec.default}"))
              for p, spec in cls.params.items()}
    persona = None
    if cls.takes_persona:
        personas = persona_names()
        chosen = st.selectbox("Persona (data/bots/*.yaml)", personas, key=f"{key}_persona",
                              index=personas.index(DEFAULT_PERSONA) if DEFAULT_PERSONA in personas else 0)
        persona = None if chosen == DEFAULT_PERSONA else chosen
    label = BotSpec(name, params, persona).label()
    parse_bot_spec(label)  # a malformed persona file: its own one-sentence error
    st.caption(f"`{label}`")
    return label
