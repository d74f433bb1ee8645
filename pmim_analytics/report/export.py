"""``export_report``: design notes ready to paste. A one-screen note answering the designer's
questions (``note.md``; it ends with the notes of any stored ``pmim balance propose`` run from or
to the export's rules ids: what changed, why, what it did, what it did not fix), the same note
followed by the full report (``report.md``), every figure as a PNG beside them
(``figures/*.png``, linked relatively so a Markdown previewer shows them) and as interactive
HTML, every table as CSV and Parquet, and optionally one self-contained
``report.html`` (plotly.js embedded, opens offline). Each part is captioned with its provenance.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import plotly.graph_objects as go
import polars as pl

from pmim_analytics.analytics import tables
from pmim_analytics.analytics.dataset import FrameData, GameData, Provenance
from pmim_analytics.analytics.dice import dice_table
from pmim_analytics.analytics.frames import Frames
from pmim_analytics.analytics.levels import LevelChoice, choose_bot_level
from pmim_analytics.analytics.robustness import robustness_tables
from pmim_analytics.analytics.skill_axis import skill_tables
from pmim_analytics.errors import PmimError, StoreError, display_path
from pmim_analytics.report import figures, sections
from pmim_analytics.report.design_notes import MAX_RUNS, stored_design_notes
from pmim_analytics.report.images import markdown_to_html, write_pngs
from pmim_analytics.report.inert import csv_frame
from pmim_analytics.report.note import render_note
from pmim_analytics.report.summary import balance_signals, designer_questions
from pmim_analytics.rules import load_rules
from pmim_analytics.store.readers import DuckDBData

#: The files that mark a folder as holding an export (not overwritten without ``force``).
EXPORT_FILES = ("note.md", "report.md", "report.html")


class ExportError(PmimError):
    """The export cannot be written where it was asked to go."""


@dataclass(frozen=True)
class ExportResult:
    """What was written: the note, the report, each table's CSV (Parquet beside it), each
    figure (PNG when rendered, else HTML) and the self-contained HTML page if asked for."""

    report: Path
    tables: dict[str, Path]
    figures: dict[str, Path]
    provenance: Provenance
    note: Path | None = None
    html: Path | None = None
    level: LevelChoice | None = None  # the bot level every table and figure rests on


def check_out_dir(out: str | Path, force: bool = False) -> Path:
    """The export folder, after refusing a file, a path inside a file, or a previous export.

    Raises :class:`ExportError` with one sentence saying what to do instead.
    """
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise ExportError(f"cannot export into {display_path(out)}: it is a file, not a folder; give --out a "
                          "folder (it is created if missing)")
    for parent in out.parents:
        if parent.exists():
            if not parent.is_dir():
                raise ExportError(f"cannot export into {display_path(out)}: {display_path(parent)} is a file, "
                                  "not a folder; give --out a folder path")
            break
    if out.is_dir() and not force:
        clash = [name for name in EXPORT_FILES if (out / name).exists()]
        if clash:
            raise ExportError(f"{display_path(out)} already holds an export ({clash[0]}); pass --force to "
                              "overwrite it, or choose another --out folder")
    return out


def open_data(db_or_frames: GameData | Frames | str | Path, rules_ids: Sequence[str] | None = None,
              source: str | None = None) -> GameData:
    """A :class:`GameData` for a database path, a :class:`Frames` bundle, or one given as is."""
    if isinstance(db_or_frames, (str, Path)):
        return DuckDBData(db_or_frames, None if rules_ids is None else tuple(rules_ids), source)
    if isinstance(db_or_frames, Frames):
        return FrameData(db_or_frames, None if rules_ids is None else tuple(rules_ids), source)
    return db_or_frames


def impact_pairs(rules_ids: Sequence[str]) -> list[tuple[str, str]]:
    """The comparisons a report makes: the first rules id against each of the others."""
    return [(rules_ids[0], other) for other in rules_ids[1:]]


def collect_tables(data: GameData, rules_ids: Sequence[str]) -> dict[str, pl.DataFrame]:
    """Every report table, by the name its files get."""
    t: dict[str, pl.DataFrame] = {
        "units": tables.unit_report(data),
        "units_by_loadout": tables.unit_report(data, by_loadout=True),
        "survival": tables.survival_report(data),
        "weapons": tables.weapon_report(data),
        "compositions": tables.composition_report(data),
        "matchups": tables.matchup_report(data),
        "sides": tables.side_report(data),
    }
    for a, b in impact_pairs(rules_ids):
        imp = tables.impact_report(data, a, b)
        t[f"impact_compositions_{a}_{b}"] = imp.compositions
        t[f"impact_units_{a}_{b}"] = imp.units
        t[f"impact_pairing_{a}_{b}"] = imp.pairing
    fit = tables.cost_report(data)
    t["costs"], t["costs_summary"] = fit.table, fit.summary
    lk = tables.luck_report(data)
    t["luck_sides"], t["luck_summary"] = lk.sides, lk.summary
    # robustness compares bot levels (and skills): the one report that reads every level, each apart
    cells = data.at_level(None).matchup_cells()
    t["robustness_compositions"], t["robustness_matchups"] = robustness_tables(cells)
    t["skill_compositions"], t["skill_matchups"] = skill_tables(cells)
    q = tables.quality_report(data)
    t["quality_outcomes"], t["quality_lengths"] = q.outcomes, q.lengths
    t["quality_leads"], t["vp_by_round"] = q.leads, q.vp_by_round
    opt = tables.optional_rules_report(data)
    if not opt.is_empty():  # only games of variants with optional rules have these
        t["optional_overheat"], t["optional_weapons_lost"] = opt.heat, opt.weapons_lost
        t["optional_initiative"], t["optional_rushes"] = opt.initiative, opt.rushes
    return t


def _dice(rules_ids: Sequence[str]) -> dict[str, pl.DataFrame]:
    out = {}
    for rid in rules_ids:
        try:
            out[rid] = dice_table(load_rules(rid))
        except PmimError:
            continue  # a rules id the catalogue does not know (a database from elsewhere)
    return out


def _write_figure(fig: go.Figure, path: Path, plotlyjs: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.write_html(path, include_plotlyjs=plotlyjs, full_html=True)
    return path


def export_report(db_or_frames: GameData | Frames | str | Path, rules_ids: Sequence[str] | None, out_dir: str | Path,
                  *, source: str | None = None, date: str | None = None, plotlyjs: str = "cdn",
                  with_figures: bool = True, png: bool = True, html: bool = False,
                  force: bool = False, bot: str | None = None) -> ExportResult:
    """Write ``note.md``, ``report.md``, ``tables/*.csv|.parquet``, ``figures/*.png|.html`` (and
    ``report.html`` when ``html``) under ``out_dir``.

    ``rules_ids`` selects the games (all in the database when ``None``); the first is the
    baseline every other is compared with. ``png`` renders the figures as PNG with a local
    Chromium (the Markdown shows them as images); ``plotlyjs`` is how the per-figure HTML
    files load plotly.js (``cdn``, small files; ``directory``, one local copy beside them);
    ``report.html`` always embeds it. Raises :class:`ExportError` for a folder that is a file
    or already holds an export (unless ``force``), :class:`StoreError` when the selection
    holds no games, and :class:`~pmim_analytics.report.images.FigureExportError` when no
    browser can render the PNGs.

    Every table and figure rests on one bot level: ``data``'s own when it is a selection at a
    level, else ``bot`` (a spec, e.g. ``tactician``), else the strongest level with enough games
    under every rules id (:func:`~pmim_analytics.analytics.levels.choose_bot_level`); only the
    robustness tables compare levels. When the rules ids share no level, the win-rate figure
    says so instead of drawing bars. Raises :class:`~.levels.BotLevelError` for a ``bot`` with
    no games.
    """
    out = check_out_dir(out_dir, force)
    data = open_data(db_or_frames, rules_ids, source)
    try:
        with data.session():
            ids = list(rules_ids) if rules_ids else None
            levels = data.bot_levels()
            choice = None  # no games at all: _export says so
            if levels.height:
                choice = choose_bot_level(levels, bot if data.bot_level is None else data.bot_level, ids)
                if data.bot_level is None:
                    data = data.at_level(choice.key)
            result = _export(data, rules_ids, out, date, plotlyjs, with_figures, png, html, choice)
            return replace(result, level=choice)
    except OSError as e:
        raise ExportError(f"cannot write the export into {display_path(out)}: "
                          f"{e.strerror or e} ({display_path(e.filename) if e.filename else 'a file in it'})") from None


def _proposal_notes(data: GameData, ids: Sequence[str]) -> str:
    """The design notes of the stored ``pmim balance propose`` runs from or to these rules ids
    (the newest :data:`~.design_notes.MAX_RUNS`), for the end of the note; empty when there are none."""
    path = getattr(data, "path", None)
    if not isinstance(path, Path):
        return ""  # frames, not a database: no stored runs
    notes = stored_design_notes(path, ids)
    if not notes:
        return ""
    out = [""]
    for n in notes[:MAX_RUNS]:
        out.append(n.markdown(level=2))
    if len(notes) > MAX_RUNS:
        out.append(f"_{len(notes) - MAX_RUNS} older proposal runs from or to these rules ids are stored too "
                   "(not shown)._\n")
    return "\n".join(out)


def _export(data: GameData, rules_ids: Sequence[str] | None, out: Path, date: str | None, plotlyjs: str,
            with_figures: bool, png: bool, html: bool, choice: LevelChoice | None = None) -> ExportResult:
    prov = data.provenance()
    if date:
        prov = replace(prov, date=date)
    if prov.games == 0:
        raise StoreError("no games to report on" + (f" for rules {', '.join(rules_ids)}" if rules_ids else "")
                         + "; ingest some with `pmim ingest`")
    ids = list(rules_ids) if rules_ids else list(prov.rules_ids)
    (out / "tables").mkdir(parents=True, exist_ok=True)
    t = collect_tables(data, ids)
    dice = _dice(ids)
    paths: dict[str, Path] = {}
    for name, df in {**t, **{f"dice_{rid}": d for rid, d in dice.items()}}.items():
        csv_frame(df).write_csv(out / "tables" / f"{name}.csv")
        df.write_parquet(out / "tables" / f"{name}.parquet")
        paths[name] = out / "tables" / f"{name}.csv"
    figs: dict[str, Path] = {}
    made: dict[str, go.Figure] = {}
    if with_figures:
        no_common = None
        if choice is not None and choice.missing and len(ids) > 1:
            no_common = (f"No bars: {', '.join(choice.missing)} {'has' if len(choice.missing) == 1 else 'have'} no "
                         f"games at bot level {choice.level}; pick a level every rules id has with --bot.")
        made = {"win_rates": figures.win_rate_figure(t["compositions"], prov, no_common=no_common),
                "hit_rates": figures.hit_rate_figure(t["weapons"], prov),
                "vp_by_round": figures.vp_by_round_figure(t["vp_by_round"], prov)}
        for rid in ids:
            made[f"matchups_{rid}"] = figures.matchup_heatmap(t["matchups"], rid, prov)
            made[f"survival_{rid}"] = figures.km_figure(t["survival"], rid, prov)
        for rid, d in dice.items():
            made[f"dice_{rid}"] = figures.dice_heatmap(d, provenance=prov)
        figs = {k: _write_figure(f, out / "figures" / f"{k}.html", plotlyjs) for k, f in made.items()}
        if png:
            figs = write_pngs(made, out / "figures")
    note = render_note(data, prov, t, figs, out) + _proposal_notes(data, ids)
    appendix = sections.render_report(ids, prov, t, dice, figs, balance_signals(t), designer_questions(t, dice), out,
                                      title="Appendix: the full report")
    (out / "note.md").write_text(note, encoding="utf-8")
    md = note + "\n---\n\n" + appendix
    report = out / "report.md"
    report.write_text(md, encoding="utf-8")
    page = None
    if html:
        page = out / "report.html"
        page.write_text(markdown_to_html(md, made if with_figures else {}, f"PMIM design notes: {', '.join(ids)}"),
                        encoding="utf-8")
    return ExportResult(report, paths, figs, prov, out / "note.md", page)
