"""``pmim balance propose``: a points table searched from games, verified on games it never tuned on.

Exit codes: 0 ok, 2 bad input (unknown rules, bot or knob, a stat that is no knob or bounds outside
its range, a band outside (0, 1), a budget too small to test anything), 130 interrupted (nothing
written).
"""

from __future__ import annotations

import datetime as dt
import math
import os
from pathlib import Path
from typing import TYPE_CHECKING

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn
from rich.table import Table

from pmim_analytics.cli._common import err, guarded, out
from pmim_analytics.errors import PmimError, display_path
from pmim_analytics.limits import MAX_GAMES, MAX_RESAMPLES, MAX_WORKERS

if TYPE_CHECKING:
    from pmim_analytics.rules.knobs import StatKnob
    from pmim_analytics.rules.models import RulesVersion

app = typer.Typer(help="Balance: propose a points table from simulated games.", no_args_is_help=True)

#: The default bot: the strongest (issue 29's search bot at its default budget).
DEFAULT_BOT = "search"
#: The default skill: the panel member that best explains the two logged table games (docs/bots.md,
#: "A panel of players": skill 0.75 against 1). Two games say little; name another with --skill.
DEFAULT_SKILL = 0.75


def _progress() -> Progress:
    return Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                    TimeRemainingColumn(), console=err, transient=False)


def _pct(x: float) -> str:
    return "-" if x is None or math.isnan(x) else f"{x:.0%}"


def parse_band(text: str) -> tuple[float, float]:
    """``0.45,0.55`` -> (0.45, 0.55); one sentence (exit 2) for anything else or a band outside (0, 1)."""
    parts = [p.strip() for p in text.split(",")]
    try:
        lo, hi = (float(p) for p in parts)
    except ValueError:
        raise PmimError(f"--band must be two win rates such as 0.45,0.55, got {text!r}") from None
    if not (0 < lo < hi < 1):
        raise PmimError(f"--band must lie inside (0, 1) with the low end first, e.g. 0.45,0.55; got {text!r}")
    return lo, hi


def parse_knobs(text: str | None, rules: RulesVersion) -> tuple[list[str] | None, tuple[StatKnob, ...]]:
    """What the search may change: (the priced items, e.g. from ``chassis.TY.pts``; None = every
    price) and the stat knobs (``weapons.LL.rpt``, ``chassis.TY.hp=4..6``: docs/balance.md, "Stat
    knobs"). With ``--knobs`` only the prices it names may change (none when it names only stats).

    Raises :class:`PmimError` (exit 2), one sentence: an unknown knob, a stat that is not a number
    or not a knob, bounds outside the stat's valid range, or a price and a stat of one item.
    """
    from pmim_analytics.botlab.proposal import listed_costs
    from pmim_analytics.rules.knobs import parse_stat_knob

    if not text:
        return None, ()
    items = listed_costs(rules)
    prices: list[str] = []
    stats: dict[str, StatKnob] = {}
    for knob in (k.strip() for k in text.split(",") if k.strip()):
        name = knob.partition("=")[0]
        parts = name.split(".")
        item = ".".join(parts[:2])
        if len(parts) == 3 and parts[2] == "pts" and item in items:
            if name != knob:
                raise PmimError(f"knob {knob!r}: a price takes no bounds (the evidence sets it); write {name}")
            prices.append(item)
            continue
        k = parse_stat_knob(rules, knob)
        if k.name in stats:
            raise PmimError(f"knob {k.name} is named twice in --knobs; name it once")
        stats[k.name] = k
    both = sorted({k.item for k in stats.values()} & set(prices))
    if both:
        raise PmimError(f"--knobs names both the price and a stat of {both[0]}: the search would not know which to "
                        "change; name one of them")
    return list(dict.fromkeys(prices)), tuple(stats.values())


@app.command("propose")
@guarded
def propose_cmd(
    rules: str = typer.Option("v3", "--rules", help="Rules id whose points table is searched."),
    bot: str = typer.Option(DEFAULT_BOT, "--bot", help="Bot level both sides play at (search, tactician, greedy, "
                            "with settings, e.g. search:budget=100). Default: the strongest, search."),
    skill: float = typer.Option(DEFAULT_SKILL, "--skill", help="The bot's skill, 0 to 1 (default 0.75: the table "
                                "skill calibration found, docs/bots.md). Verification also plays a second level: "
                                "skill 1, or 0.75 when this is 1."),
    band: str = typer.Option("0.45,0.55", "--band", help="Score band every archetype must reach against the field."),
    budget: int = typer.Option(2000, "--budget", max=MAX_GAMES, help="Games the search may play (verification comes "
                               "on top)."),
    pairs_per_round: int = typer.Option(100, "--pairs-per-round", max=MAX_GAMES, help="New pairs of random armies a "
                                        "round plays (two games each)."),
    verify_games: int = typer.Option(1000, "--verify-games", min=0, max=MAX_GAMES, help="Held-out games per table "
                                     "(before, after) and skill level: half between the archetypes, half between "
                                     "fresh random armies."),
    seed: int = typer.Option(0, "--seed", min=0, help="Seed: the same seed and budget give the same proposal."),
    workers: int = typer.Option(1, "--workers", min=1, max=MAX_WORKERS, help="Worker processes (or Ray CPUs)."),
    backend: str = typer.Option("local", "--backend", help="local (a process pool) or ray."),
    address: str | None = typer.Option(None, "--address", help="Ray cluster to join with --backend ray: auto or "
                                       "ray://host:port (default: a private local Ray instance with --workers CPUs)."),
    knobs: str | None = typer.Option(None, "--knobs", help="Only these may change: prices (chassis.TY.pts) and "
                                     "stats (weapons.LL.rpt, chassis.TY.hp=4..6: rng, acc, rpt, str of weapons; hp, "
                                     "mov, def, arm of units; mov, def, arm of Warmechs; bounds default to the listed "
                                     "value ±2). Default: every unit, Warmech and weapon price, and no stat."),
    resamples: int = typer.Option(200, "--resamples", min=2, max=MAX_RESAMPLES,
                                  help="Bootstrap samples of each fit."),
    db: Path | None = typer.Option(None, "--db", help="Database file that keeps the run, every candidate table "
                                   "and the check (default: $PMIM_DB or data/pmim.duckdb)."),
    no_store: bool = typer.Option(False, "--no-store", help="Write the variant file but store nothing."),
) -> None:
    """Search a points table for RULES in which armies are balanced at one bot level and skill,
    verify it on games it never tuned on, and write it as a variant file.

    The bots never read prices, so a table changes which lists are legal, never how a list plays:
    each round plays new random armies legal at the current table, fits implied costs on every
    game so far, and reprices only the items shown to be off (docs/balance.md). It stops when a
    round changes nothing (with half the budget spent), when a table comes back, or at --budget.
    Then both tables are played on held-out seeds at two skill levels, and the proposal is written
    to data/rules/variants/<rules>-proposal-<date>.yaml with its rules diff. Ctrl-C writes nothing.
    A stat named in --knobs moves one step at a time, each step measured on paired games
    (docs/balance.md, "Stat knobs").

    The default bot (search, about 4 games per CPU-second) needs about 25 CPU-minutes for the
    default budget and verification; greedy is about 17 times faster and tactician 14 times.

    Examples:

      pmim balance propose --rules v3 --bot greedy --budget 1200 --verify-games 400 --workers 2

      pmim balance propose --rules v3 --bot search --skill 0.75 --band 0.45,0.55 --budget 3000 --backend ray

      pmim balance propose --rules v3 --bot greedy --knobs chassis.TY.pts,weapons.LL.rpt=2..4
    """
    from pmim_analytics.botlab.proposal import (
        Band,
        Player,
        Pool,
        Settings,
        check_settings,
        item_label,
        listed_costs,
        other_skill,
        propose,
        resume_pool,
        run_id,
        verify,
    )
    from pmim_analytics.engine.bots.registry import BOTS
    from pmim_analytics.engine.bots.spec import BotSpec, parse_bot_spec
    from pmim_analytics.errors import BotSpecError
    from pmim_analytics.rules.catalogue import clear_caches, data_dir, load_rules
    from pmim_analytics.rules.diff import diff_rules
    from pmim_analytics.sim.backends import BACKENDS, open_backend

    lo, hi = parse_band(band)
    base = load_rules(rules)
    start = listed_costs(base)
    allowed, stat_knobs = parse_knobs(knobs, base)
    if backend not in BACKENDS:
        raise PmimError(f"unknown --backend {backend!r}; choose local or ray")
    if address is not None and backend != "ray":
        raise PmimError(f"--address {address} names a Ray cluster and needs --backend ray")
    if not 0 <= skill <= 1:
        raise PmimError(f"--skill must be between 0 and 1, got {skill:g}")
    try:
        spec = parse_bot_spec(bot)
    except BotSpecError as e:
        raise PmimError(str(e)) from None
    if not BOTS[spec.name].takes_skill:
        raise PmimError(f"--bot {spec.name} takes no skill; choose a planning bot: greedy, tactician or search")
    level = BotSpec(spec.name, spec.params, spec.persona, skill).label()
    level2 = BotSpec(spec.name, spec.params, spec.persona, other_skill(skill)).label()
    s = Settings(rules, level, seed, budget, pairs_per_round, resamples=resamples, workers=workers, backend=backend,
                 address=address, stat_knobs=stat_knobs)
    check_settings(s, (lo, hi))
    definition = Band(lo, hi)

    out.print(f"[bold]Balanced[/] ({base.id}, bot level {level}; verified also at {level2}) means:", highlight=False)
    for line in definition.sentences():
        out.print("  " + line, highlight=False, soft_wrap=True)
    verify_total = 4 * verify_games
    rid = run_id(s, start)
    stored: dict[str, str] = {}
    on_job = None
    if not no_store:
        from pmim_analytics.store.balance import read_balance_games, save_balance_games

        stored = read_balance_games(rid, db)
        if stored:
            err.print(f"resuming run {rid}: {len(stored)} pairs of games kept from an earlier, interrupted run",
                      highlight=False)

        def on_job(done: list[tuple[str, str]]) -> None:
            save_balance_games(rid, done, db)
    with _progress() as bar:
        task = bar.add_task(f"search at {level}", total=budget)
        rounds_seen: list[str] = []

        def on_round(r: object) -> None:
            from pmim_analytics.botlab.proposal import Round

            assert isinstance(r, Round)
            ch = ", ".join(f"{i.split('.', 1)[1]} {a}->{b}" for i, (a, b) in sorted(r.changes.items())) or "none"
            st = "".join(f"; stat {k.split('.', 1)[1]} {a}->{b}" for k, (a, b) in sorted(r.stat_changes.items()))
            tried = "".join(f"; stat step {t.knob.split('.', 1)[1]} {t.old}->{t.new} not taken ({t.note})"
                            for t in r.trials if not t.accepted)
            rounds_seen.append(f"round {r.number}: {r.games} games in the pool; repriced: {ch}{st}{tried}")
            err.print(rounds_seen[-1], highlight=False, soft_wrap=True)

        proposal = propose(s, start, lambda n: bar.advance(task, n), on_round, allowed, stored, on_job)
        bar.update(task, total=proposal.games_played, completed=proposal.games_played)
        checks = []
        # only the stats that changed: "before" is the rules as written, and an unchanged table plays the same games
        changed_stats = {k: b for k, (_, b) in proposal.stat_changes().items()}
        vtask = bar.add_task("held-out verification", total=verify_total)
        if verify_games:
            with open_backend(backend, workers, address) as be:
                vpool = Pool()
                resume_pool(vpool, stored)
                player = Player(rules, level, be, vpool, lambda n: bar.advance(vtask, n), on_job=on_job)
                for lv in (level, level2):
                    for name, table in (("before", start), ("after", proposal.costs)):
                        checks.append(verify(player, rules, start, table, name, lv, seed, verify_games, resamples,
                                             stats=None if name == "before" else changed_stats))
            bar.update(vtask, total=player.pool.spent, completed=player.pool.spent)

    changes = proposal.changes()
    stat_changes = proposal.stat_changes()
    net, moved = sum(b - a for a, b in changes.values()), sum(abs(b - a) for a, b in changes.values())
    stat_text = (f"; {len(stat_changes)} stat{'s' if len(stat_changes) != 1 else ''} changed ("
                 + ", ".join(f"{k} {a}->{b}" for k, (a, b) in sorted(stat_changes.items())) + ")"
                 if stat_changes else "; no stat changed" if stat_knobs else "")
    head = (f"Proposal for {base.id} at {level}: {len(changes)} prices changed, net {net:+d} points, {moved} points "
            f"moved{stat_text}; {proposal.games_played} games, {len(proposal.rounds)} rounds, stopped: "
            f"{proposal.stopped}")
    t = Table(title=head, title_justify="left")
    for col in ("item", "listed", "proposed", "implied at the last round", "games"):
        t.add_column(col, justify="left" if col == "item" else "right")
    last = {f.item: f for f in proposal.rounds[-1].fit.items} if proposal.rounds else {}
    for item in sorted(changes):
        f = last.get(item)
        implied = "-" if f is None or f.est is None else f"{f.est:.1f} [{f.lo:.1f}, {f.hi:.1f}]"
        t.add_row(item_label(base, item), str(changes[item][0]), str(changes[item][1]), implied,
                  str(f.games) if f else "-")
    if changes:
        out.print(t)
    elif not stat_changes:
        out.print(f"{head}: no price is shown to be off, so the table is left as it is.", highlight=False,
                  soft_wrap=True)
    else:
        out.print(f"{head}.", highlight=False, soft_wrap=True)
    if stat_changes:
        _print_stat_steps(base, proposal)
    if proposal.rounds:
        out.print(f"Last fit ({level}): {proposal.rounds[-1].fit.message}.", highlight=False, soft_wrap=True)
    for lv in (level, level2) if checks else ():
        before, after = (c for c in checks if c.level == lv)
        _print_checks(before, after, definition)
    path = _write_variant(base.id, proposal, level, data_dir() / "rules" / "variants")
    clear_caches()
    try:
        variant = load_rules(path.stem)
    except PmimError:
        path.unlink(missing_ok=True)
        raise
    err.print(f"wrote {display_path(path)} (rules id {variant.id})", highlight=False)
    diff = diff_rules(base, variant)
    t = Table(title=f"Rules diff {base.id} -> {variant.id} (as `pmim rules diff {base.id} {variant.id}`)",
              title_justify="left")
    for col in ("table", "item", "change", "old", "new"):
        t.add_column(col)
    for c in diff:
        t.add_row(c.table, c.item, c.what, c.old, c.new)
    if diff:
        out.print(t)
    else:
        out.print(f"Rules diff {base.id} -> {variant.id}: no changes.", highlight=False)
    if no_store:
        return
    from pmim_analytics.store.balance import save_balance_run
    from pmim_analytics.store.connection import resolve_db_path

    # changes: prices and stats changed (the variant's items); net_points: the prices' net sum only
    run = {"run_id": proposal.run_id(), "rules_id": base.id, "bot": level, "seed": seed, "budget": budget,
           "pairs_per_round": pairs_per_round, "games": proposal.games_played, "rounds": len(proposal.rounds),
           "stopped": proposal.stopped, "variant": variant.id, "changes": len(changes) + len(stat_changes),
           "net_points": net,
           "band_low": lo, "band_high": hi}
    save_balance_run(run, proposal.candidate_rows(), [row for c in checks for row in c.rows()], db,
                     [row for c in checks for row in c.verdict_rows(definition)])
    err.print(f"stored as run {run['run_id']} ({len(proposal.candidate_rows())} candidate rows) in "
              f"{display_path(resolve_db_path(db))}", highlight=False)


def _print_stat_steps(base: object, proposal: object) -> None:
    """The stat steps taken, each with the paired games that justified it."""
    from pmim_analytics.botlab.proposal import Proposal, item_label
    from pmim_analytics.rules.models import RulesVersion

    assert isinstance(proposal, Proposal) and isinstance(base, RulesVersion)
    t = Table(title=f"Stat steps at {proposal.settings.bot} (each measured on paired games: the round's pairs that "
                    "field the item, replayed at the new value on the same lists and dice)", title_justify="left")
    for col in ("item", "stat", "from", "to", "round", "implied before", "value change (points, 95%)", "paired games",
                "p (one-sided)"):
        t.add_column(col, justify="left" if col in ("item", "stat") else "right")
    for r in proposal.rounds:
        for tr in r.trials:
            if tr.accepted and tr.effect is not None and tr.lo is not None and tr.hi is not None and tr.p is not None:
                item, stat = tr.knob.rsplit(".", 1)
                t.add_row(item_label(base, item), stat, str(tr.old), str(tr.new), str(r.number),
                          f"{tr.implied:.1f} (price {tr.listed})", f"{tr.effect:+.2f} [{tr.lo:+.2f}, {tr.hi:+.2f}]",
                          str(tr.games), f"{tr.p:.3f}")
    out.print(t)


def _print_checks(before: object, after: object, band: object) -> None:
    from pmim_analytics.botlab.proposal import Band, Check

    assert isinstance(before, Check) and isinstance(after, Check) and isinstance(band, Band)
    t = Table(title=f"Held-out check at {before.level}: score of each archetype against the field "
                    "(95% Wilson interval, games)", title_justify="left")
    for col in ("archetype", "before", "after", "in band after"):
        t.add_column(col, justify="left" if col == "archetype" else "right")
    b_of = dict(zip(before.names, before.score, strict=True))
    for name, (s, lo, hi, n) in zip(after.names, after.score, strict=True):
        sb = b_of.get(name)
        btxt = "-" if sb is None else f"{_pct(sb[0])} [{_pct(sb[1])}, {_pct(sb[2])}] ({sb[3]})"
        inside = band.low <= s <= band.high
        t.add_row(name, btxt, f"{_pct(s)} [{_pct(lo)}, {_pct(hi)}] ({n})", "yes" if inside else "no")
    out.print(t)
    t = Table(title=f"Balanced? ({before.level}; held-out seeds; {before.games} games before, {after.games} after)",
              title_justify="left")
    for col in ("criterion", "before", "after", "holds after"):
        t.add_column(col)
    for (name, _, mb), (_, ok, ma) in zip(before.verdicts(band), after.verdicts(band), strict=True):
        t.add_row(name, mb, ma, "yes" if ok else "no")
    out.print(t)
    missed = [v for v in after.verdicts(band) if not v[1]]
    if missed:
        out.print(f"Not reached at {after.level}: " + "; ".join(f"{n} ({m})" for n, _, m in missed) + ".",
                  highlight=False, soft_wrap=True)
    else:
        out.print(f"Every criterion holds at {after.level} on the held-out games.", highlight=False)


def _write_variant(base_id: str, proposal: object, level: str, folder: Path) -> Path:
    """Write the proposal as a variant file (a new name if one exists), whole or not at all."""
    import yaml

    from pmim_analytics.botlab.proposal import Proposal

    assert isinstance(proposal, Proposal)
    date = dt.datetime.now(dt.UTC).date().isoformat()
    folder.mkdir(parents=True, exist_ok=True)
    stem = f"{base_id}-proposal-{date}"
    n = 1
    while (folder / f"{stem}.yaml").exists():
        n += 1
        stem = f"{base_id}-proposal-{date}-{n}"
    ch = proposal.changes()
    sc = proposal.stat_changes()
    s = proposal.settings
    stats = (f" {len(sc)} stat{'s' if len(sc) != 1 else ''} changed ("
             + ", ".join(f"{k} {a} -> {b}" for k, (a, b) in sorted(sc.items()))
             + f"), so games with those items play differently from {base_id}." if sc else
             f" Only points differ from {base_id}, so every game plays as under it.")
    doc: dict[str, object] = {
        "id": stem, "name": f"{base_id} with the {'table' if sc else 'points table'} proposed on {date}",
        "base": base_id,
        "description": (f"pmim balance propose at bot level {level}, seed {s.seed}, budget {s.budget} games "
                        f"({proposal.games_played} played, {len(proposal.rounds)} rounds, stopped: "
                        f"{proposal.stopped}): {len(ch)} prices changed, net "
                        f"{sum(b - a for a, b in ch.values()):+d} points.{stats}")}
    if ch or sc:
        doc["overrides"] = proposal.overrides()
    path = folder / f"{stem}.yaml"
    tmp = folder / f".{stem}.yaml.tmp"
    tmp.write_text(yaml.safe_dump(doc, sort_keys=False, width=100), encoding="utf-8")
    os.replace(tmp, path)
    return path


def register(root: typer.Typer) -> None:
    """Add ``balance`` to the ``pmim`` app."""
    root.add_typer(app, name="balance")
