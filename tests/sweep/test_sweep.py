"""Sweeps: the file and its errors, the plan and its seeds, running, interrupting and resuming."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from pmim_analytics.cli import app
from pmim_analytics.errors import PmimError
from pmim_analytics.replay.parquet import list_parts, read_batch
from pmim_analytics.sim.backends import LocalBackend
from pmim_analytics.sim.runner import run_batch
from pmim_analytics.sweep import load_sweep, pairing_folder, run_sweep
from tests.conftest import REPO_ROOT

runner = CliRunner()

SMALL = """\
name: small
seed: 3
rules: [v3]
compositions: [v3-balanced, v3-infantry-swarm]
bots: [greedy]
games_per_pairing: 12
part_size: 4
"""


def sweep_file(tmp_path: Path, text: str = SMALL, name: str = "sweep.yaml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def files(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*.parquet"))}


@pytest.mark.parametrize(("change", "message"), [
    (("games_per_pairing: 12", "games_per_pairing: 0"), "field 'games_per_pairing': Input should be greater than"),
    (("rules: [v3]", "rules: [v3, v9]"), "field 'rules.1': unknown rules version 'v9'"),
    (("bots: [greedy]", "bots: [greedy, clever]"), "field 'bots.1': unknown bot 'clever'"),
    (("bots: [greedy]", "bots: [greedy, greedy]"), "field 'bots': 'greedy' is listed twice"),
    (("compositions: [v3-balanced,", "compositions: [nope,"), "field 'compositions.0': "),
    (("compositions: [v3-balanced,", "compositions: [../../x.yaml,"), "file not found"),
    (("compositions: [v3-balanced,", "compositions: [v1-heavy,"), "field 'compositions.0': "),
    (("seed: 3", "seed: 3\nround_limit: 5"), "field 'round_limit': Extra inputs are not permitted"),
    (("name: small", "name: my sweep"), "field 'name': String should match pattern"),
])
def test_a_bad_sweep_file_names_the_file_and_the_field(tmp_path: Path, change: tuple[str, str],
                                                       message: str) -> None:
    text = SMALL.replace(*change)
    assert text != SMALL
    path = sweep_file(tmp_path, text)
    with pytest.raises(PmimError) as info:
        load_sweep(path)
    rendered = info.value.render()
    assert "sweep.yaml" in rendered and message in rendered


def test_an_army_not_legal_under_a_rules_id_is_refused_with_both_named(tmp_path: Path) -> None:
    path = sweep_file(tmp_path, SMALL.replace("rules: [v3]", "rules: [v3, v1]"))
    with pytest.raises(PmimError, match=r"field 'compositions.0': .*v3-balanced.yaml is not legal under v1: "):
        load_sweep(path)


def test_yaml_errors_give_the_line(tmp_path: Path) -> None:
    path = sweep_file(tmp_path, SMALL.replace("seed: 3", "seed: [3"))
    with pytest.raises(PmimError, match=r"sweep.yaml, line \d+, column \d+: is not valid YAML"):
        load_sweep(path)


def test_the_plan_is_a_round_robin_and_seeds_follow_the_pairing_not_its_position(tmp_path: Path) -> None:
    three = SMALL.replace("[v3-balanced, v3-infantry-swarm]", "[v3-balanced, v3-infantry-swarm, v3-tank-heavy]")
    plan = load_sweep(sweep_file(tmp_path, three.replace("rules: [v3]", "rules: [v3, v3-llaser-rpt4]")))
    assert len(plan.pairings) == 2 * 3 and plan.games == 72
    assert {p.id for p in plan.pairings if p.rules_id == "v3"} == {
        "v3/v3-balanced--v3-infantry-swarm--greedy-greedy", "v3/v3-balanced--v3-tank-heavy--greedy-greedy",
        "v3/v3-infantry-swarm--v3-tank-heavy--greedy-greedy"}
    assert len({p.seed for p in plan.pairings}) == 6  # the same armies under another rules id: other dice
    two = load_sweep(sweep_file(tmp_path, SMALL))
    same = next(p for p in plan.pairings if p.id == two.pairings[0].id)
    assert same.seed == two.pairings[0].seed  # adding a composition and a rules id changed nothing here
    mirrors = load_sweep(sweep_file(tmp_path, three.replace("part_size: 4", "part_size: 4\nmirrors: true")))
    assert len(mirrors.pairings) == 6 and any(p.key_a == p.key_b for p in mirrors.pairings)
    both = SMALL.replace("bots: [greedy]", "bots: [greedy, random]\ncross_bots: true")
    cross = load_sweep(sweep_file(tmp_path, both))
    assert [(p.bot_a, p.bot_b) for p in cross.pairings] == [("greedy", "greedy"), ("greedy", "random"),
                                                           ("random", "greedy"), ("random", "random")]
    reseeded = load_sweep(sweep_file(tmp_path, SMALL.replace("seed: 3", "seed: 4")))
    assert reseeded.pairings[0].seed != two.pairings[0].seed


def test_a_pairing_is_the_batch_simulate_would_play(tmp_path: Path) -> None:
    plan = load_sweep(sweep_file(tmp_path))
    result = run_sweep(plan, tmp_path / "out", LocalBackend(1))
    pairing = plan.pairings[0]
    folder = pairing_folder(tmp_path / "out", pairing)
    assert list_parts(folder) == [0, 1, 2]
    manifest = json.loads((tmp_path / "out" / "manifest.json").read_text())
    batch = pairing.batch("small", "take-and-hold", manifest["played"])
    direct = run_batch(batch, out=tmp_path / "direct", part_size=4)
    assert files(tmp_path / "direct") == files(folder)
    assert result.summaries[pairing.id].outcomes == direct.outcomes
    games = list(read_batch(folder))
    assert {g.header.batch for g in games} == {"small/" + pairing.id}
    assert {g.header.seed for g in games} == {pairing.seed}


def test_an_interrupted_sweep_resumes_to_the_same_games(tmp_path: Path) -> None:
    text = SMALL.replace("[v3-balanced, v3-infantry-swarm]", "[v3-balanced, v3-infantry-swarm, v3-tank-heavy]")
    plan = load_sweep(sweep_file(tmp_path, text))
    whole = run_sweep(plan, tmp_path / "whole", LocalBackend(2))

    def stop_after_two_parts(done: int, total: int) -> None:
        if done >= 8:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run_sweep(plan, tmp_path / "cut", LocalBackend(1), stop_after_two_parts)
    assert len(files(tmp_path / "cut")) == 4  # two complete parts, events and games each
    seen: list[tuple[int, int]] = []
    resumed = run_sweep(plan, tmp_path / "cut", LocalBackend(2), lambda d, t: seen.append((d, t)))
    assert (resumed.resumed, resumed.played, resumed.games) == (8, 28, 36)
    assert seen[0] == (8, 36) and seen[-1] == (36, 36)
    assert files(tmp_path / "cut") == files(tmp_path / "whole")
    for pid, summary in whole.summaries.items():
        assert resumed.summaries[pid].outcomes == summary.outcomes
    again = run_sweep(plan, tmp_path / "cut", LocalBackend(1))
    assert (again.resumed, again.played) == (36, 0)


def test_a_folder_holding_another_sweep_is_refused(tmp_path: Path) -> None:
    run_sweep(load_sweep(sweep_file(tmp_path)), tmp_path / "out", LocalBackend(1))
    changed = load_sweep(sweep_file(tmp_path, SMALL.replace("games_per_pairing: 12", "games_per_pairing: 16")))
    with pytest.raises(PmimError, match=r"manifest.json: pairing v3/v3-balanced--v3-infantry-swarm--greedy-greedy "
                                        r"changed since this folder was started \(games\)"):
        run_sweep(changed, tmp_path / "out", LocalBackend(1))
    renamed = load_sweep(sweep_file(tmp_path, SMALL.replace("name: small", "name: other")))
    with pytest.raises(PmimError, match="holds a sweep with name 'small', not 'other'"):
        run_sweep(renamed, tmp_path / "out", LocalBackend(1))
    grown = load_sweep(sweep_file(tmp_path, SMALL.replace("rules: [v3]", "rules: [v3, v3-llaser-rpt4]")))
    result = run_sweep(grown, tmp_path / "out", LocalBackend(1))  # a new rules id: only its pairing is played
    assert (result.resumed, result.played) == (12, 12)


def test_cli_sweep_plays_prints_and_resumes(tmp_path: Path) -> None:
    path = sweep_file(tmp_path)
    r = runner.invoke(app, ["sweep", str(path), "--dry-run"])
    assert r.exit_code == 0 and "1 pairings, 12 games" in r.output and "v3-balanced--v3-infantry-swarm" in r.output
    out = tmp_path / "out"
    r = runner.invoke(app, ["sweep", str(path), "--out", str(out), "--workers", "1", "--no-ingest"])
    assert r.exit_code == 0, r.output
    assert "12 played now, 0 from earlier runs" in r.output and "v3-infantry-swarm" in r.output
    r = runner.invoke(app, ["sweep", str(path), "--out", str(out), "--workers", "1", "--no-ingest"])
    assert r.exit_code == 0 and "0 played now, 12 from earlier runs" in r.output
    r = runner.invoke(app, ["sweep", str(tmp_path / "missing.yaml")])
    assert r.exit_code == 2 and "missing.yaml: file not found" in r.output


def test_shipped_sweep_files_load() -> None:
    for path in sorted((REPO_ROOT / "data" / "sweeps").glob("*.yaml")):
        assert load_sweep(path).games > 0


def test_the_database_gets_each_part_once_whatever_was_loaded_before(tmp_path: Path) -> None:
    from pmim_analytics.store import ingest_paths, read_frame
    from pmim_analytics.sweep.ingest import ingest_sweep, parts_to_load

    text = SMALL.replace("rules: [v3]", "rules: [v3, v3-llaser-rpt4]")
    plan = load_sweep(sweep_file(tmp_path, text))
    out, db = tmp_path / "out", tmp_path / "sweep.duckdb"
    run_sweep(plan, out, LocalBackend(1))
    assert len(parts_to_load(plan, out, db)) == 6  # no database yet: every part
    first = pairing_folder(out, plan.pairings[0])
    ingest_paths([str(first / "games.00001.parquet")], db)  # one part loaded by hand
    assert len(parts_to_load(plan, out, db)) == 5
    result = ingest_sweep(plan, out, db)
    assert (result.inputs, result.loaded, result.duplicates, len(result.rejected)) == (5, 20, 0, 0)
    assert parts_to_load(plan, out, db) == [] and ingest_sweep(plan, out, db).inputs == 0
    counts = read_frame("SELECT batch, count(*) AS n FROM games GROUP BY batch ORDER BY batch", db=db)
    assert counts.rows() == [(f"small/{p.id}", 12) for p in sorted(plan.pairings, key=lambda p: p.id)]


def test_cli_sweep_loads_the_database_unless_told_not_to(tmp_path: Path) -> None:
    path, db = sweep_file(tmp_path), tmp_path / "x.duckdb"
    r = runner.invoke(app, ["sweep", str(path), "--out", str(tmp_path / "o"), "--workers", "1", "--db", str(db),
                            "--no-ingest"])
    assert r.exit_code == 0 and not db.exists() and "ingest" not in r.output
    r = runner.invoke(app, ["sweep", str(path), "--out", str(tmp_path / "o"), "--workers", "1", "--db", str(db)])
    assert r.exit_code == 0, r.output
    assert "ingest: loaded 12 games" in r.output
    r = runner.invoke(app, ["sweep", str(path), "--out", str(tmp_path / "o"), "--workers", "1", "--db", str(db)])
    assert "already holds every game of the sweep" in r.output
