"""Running a sweep: every pairing's parts on one backend, resumable, with a manifest.

The output folder holds ``manifest.json`` and one Parquet batch folder per pairing
(``<out>/<rules>/<a>--<b>--<bot a>-<bot b>/``). The manifest records the plan (each pairing's
identity: armies' hashes, bots, seed, games), the part size and the date the games carry.
Running the same sweep into the same folder again plays only the parts not yet complete
(a part is complete once its games file exists, see :mod:`pmim_analytics.replay.parquet`);
a sweep file whose pairings changed is refused rather than mixed into old games. New
pairings (an added composition or rules id) are simply played.
"""

from __future__ import annotations

import datetime as dt
import json
import os
from collections.abc import Callable
from contextlib import closing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pyarrow.compute as pc
import pyarrow.parquet as pq

from pmim_analytics.errors import Location, PmimError, display_path
from pmim_analytics.replay.parquet import list_parts
from pmim_analytics.sim.backends import Backend, remove_temporaries
from pmim_analytics.sim.batch import BatchSummary, GameOutcome, PartJob, batch_jobs, outcome_from_end
from pmim_analytics.sweep.spec import Pairing, Sweep

MANIFEST = "manifest.json"
MANIFEST_FORMAT = ("pmim-sweep", 1)


@dataclass
class SweepResult:
    """What a run of a sweep did: per-pairing summaries (old parts included) and game counts."""

    summaries: dict[str, BatchSummary] = field(default_factory=dict)
    played: int = 0
    resumed: int = 0

    @property
    def games(self) -> int:
        """Games in the sweep's folder after the run."""
        return self.played + self.resumed


def _manifest(sweep: Sweep, played: str) -> dict[str, Any]:
    spec = sweep.spec
    return {"format": MANIFEST_FORMAT[0], "version": MANIFEST_FORMAT[1], "name": spec.name,
            "sweep_file": sweep.source, "seed": spec.seed, "scenario": spec.scenario,
            "part_size": spec.part_size, "first_player": spec.first_player, "played": played,
            "pairings": [p.identity() for p in sweep.pairings]}


def _write_json(path: Path, obj: dict[str, Any]) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(obj, indent=1) + "\n", encoding="utf-8")
    os.replace(tmp, path)


def read_manifest(out: Path) -> dict[str, Any] | None:
    """The manifest of a sweep folder, or None if there is none.

    Raises :class:`PmimError` naming the file if it is not a sweep manifest.
    """
    path = out / MANIFEST
    if not path.exists():
        return None
    try:
        obj = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise PmimError(f"cannot read the sweep manifest ({e})", Location(display_path(path))) from None
    if not isinstance(obj, dict) or (obj.get("format"), obj.get("version")) != MANIFEST_FORMAT:
        raise PmimError("not a pmim-sweep version 1 manifest", Location(display_path(path)))
    return obj


def prepare(sweep: Sweep, out: Path, today: str | None = None) -> str:
    """Create or check the sweep folder's manifest; return the date the sweep's games carry.

    A folder with a manifest is resumed if its part size, scenario and every pairing it
    shares with ``sweep`` are the same; pairings only in ``sweep`` are added to it.
    Raises :class:`PmimError` naming the manifest for a folder that holds another sweep.
    """
    out.mkdir(parents=True, exist_ok=True)
    old = read_manifest(out)
    if old is None:
        played = today or dt.date.today().isoformat()
        _write_json(out / MANIFEST, _manifest(sweep, played))
        return played
    where = Location(display_path(out / MANIFEST))
    hint = "; write to another --out folder (or delete this one)"
    for key in ("name", "scenario", "part_size", "first_player"):
        now = getattr(sweep.spec, key)
        if old.get(key) != now:
            raise PmimError(f"this folder holds a sweep with {key} {old.get(key)!r}, not {now!r}{hint}", where)
    before = {p["id"]: p for p in old.get("pairings", [])}
    for pairing in sweep.pairings:
        was = before.get(pairing.id)
        if was is not None and was != pairing.identity():
            changed = sorted(k for k, v in pairing.identity().items() if was.get(k) != v)
            raise PmimError(f"pairing {pairing.id} changed since this folder was started "
                            f"({', '.join(changed)}){hint}", where)
    played = str(old["played"])
    merged = dict(old)
    now_ids = {p.id for p in sweep.pairings}
    merged["pairings"] = [p for p in old.get("pairings", []) if p["id"] not in now_ids] + \
        [p.identity() for p in sweep.pairings]
    _write_json(out / MANIFEST, merged)
    return played


def read_outcomes(folder: Path, part: int) -> list[GameOutcome]:
    """The outcomes of the games of a complete part, read from its Parquet files."""
    games = pq.read_table(folder / f"games.{part:05d}.parquet", columns=["game_id", "game_index"])
    index = dict(zip(games.column("game_id").to_pylist(), games.column("game_index").to_pylist(), strict=True))
    ends = pq.read_table(folder / f"events.{part:05d}.parquet",
                         columns=["game_id", "type", "side", "reason", "rounds", "blue_vp", "red_vp"])
    ends = ends.filter(pc.equal(ends.column("type"), "game_end")).to_pylist()
    outcomes = [outcome_from_end(index[r["game_id"]], r["side"], r["reason"], r["rounds"], r["blue_vp"], r["red_vp"])
                for r in ends]
    return sorted(outcomes, key=lambda o: o.game_index)


def plan_jobs(sweep: Sweep, out: Path, played: str, result: SweepResult) -> list[PartJob]:
    """The jobs still to play; the complete parts' outcomes go into ``result`` as resumed."""
    jobs: list[PartJob] = []
    for pairing in sweep.pairings:
        folder = pairing_folder(out, pairing)
        batch = pairing.batch(sweep.spec.name, sweep.spec.scenario, played, sweep.spec.first_player)
        summary = result.summaries.setdefault(pairing.id, BatchSummary())
        done = set(list_parts(folder)) if folder.is_dir() else set()
        for part in sorted(done):
            outcomes = read_outcomes(folder, part)
            summary.add(outcomes)
            result.resumed += len(outcomes)
        jobs.extend(batch_jobs(batch, folder, "parquet", sweep.spec.part_size, skip=done))
    return jobs


def pairing_folder(out: Path, pairing: Pairing) -> Path:
    """Where a pairing's Parquet parts go."""
    return out.joinpath(*pairing.id.split("/"))


def run_sweep(sweep: Sweep, out: str | Path, backend: Backend,
              progress_callback: Callable[[int, int], None] | None = None) -> SweepResult:
    """Play every part of ``sweep`` not yet in ``out`` on ``backend`` (entered).

    ``progress_callback(done, total)`` counts games over the whole sweep, already complete
    parts included. Interrupted (Ctrl-C), it leaves only complete parts: run it again to
    resume. Raises :class:`PmimError` if ``out`` holds a different sweep.
    """
    folder = Path(out)
    played = prepare(sweep, folder)
    result = SweepResult()
    jobs = plan_jobs(sweep, folder, played, result)
    remove_temporaries({job.out for job in jobs if job.out is not None})
    done, total = result.resumed, sweep.games
    if progress_callback:
        progress_callback(done, total)
    with closing(backend.run(jobs)) as results:
        for job, outcomes in results:
            result.summaries[str(job.batch.name).removeprefix(sweep.spec.name + "/")].add(outcomes)
            result.played += len(outcomes)
            done += len(outcomes)
            if progress_callback:
                progress_callback(done, total)
    for summary in result.summaries.values():
        summary.outcomes.sort(key=lambda o: o.game_index)
    return result
