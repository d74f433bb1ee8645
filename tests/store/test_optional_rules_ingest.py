"""Games played with optional rules load into a real DuckDB file event for event; a replay whose
overheat or initiative roll contradicts the rule is rejected whole, and the rest still loads."""

from __future__ import annotations

import dataclasses
import random
from pathlib import Path

from pmim_analytics.engine.driver import play_game
from pmim_analytics.engine.spec import GameSpec
from pmim_analytics.model.events import EVENT_COLUMN_NAMES, InitiativeRoll, OverheatRoll, event_to_row
from pmim_analytics.model.record import GameRecord
from pmim_analytics.replay.format import game_id_of
from pmim_analytics.rules import validate_army
from pmim_analytics.rules.generate import random_army
from pmim_analytics.store import ingest_paths, read_frame
from tests.store.conftest import write_games


def _games(rules: str, n: int) -> list[GameRecord]:
    out = []
    for seed in range(n):
        rng = random.Random(f"{rules}/{seed}")
        a, b = (validate_army(random_army(rules, rng), rules) for _ in range(2))
        out.append(play_game(GameSpec.create(rules, "take-and-hold", a, b), "random", "random", seed=seed,
                             played="2026-01-01"))
    return out


def _first_with(games: list[GameRecord], kind: type) -> GameRecord:
    return next(g for g in games if any(isinstance(e, kind) for e in g.events))


def test_optional_rule_games_are_stored_as_their_wide_rows(tmp_path: Path, db: Path) -> None:
    games = _games("v3-heat", 6) + _games("v3-rolled-initiative", 2) + _games("v3-rush", 2)
    assert any(isinstance(e, OverheatRoll) for g in games for e in g.events)
    write_games(tmp_path, games)
    result = ingest_paths([tmp_path], db)
    assert (result.loaded, result.rejected) == (len(games), [])
    for g in games:
        cols = ", ".join(f'"{c}"' for c in EVENT_COLUMN_NAMES)
        stored = read_frame(f"SELECT {cols} FROM events WHERE game_id = ? ORDER BY seq", [g.header.game_id],
                            db=db).to_dicts()
        assert stored == [{c: event_to_row(g.header.game_id, ev).get(c) for c in EVENT_COLUMN_NAMES}
                          for ev in g.events]


def test_contradicting_overheat_and_initiative_rolls_are_rejected_whole(tmp_path: Path, db: Path) -> None:
    heat = _first_with(_games("v3-heat", 8), OverheatRoll)
    init = _first_with(_games("v3-rolled-initiative", 2), InitiativeRoll)

    def tamper(game: GameRecord, kind: type, **changes: object) -> GameRecord:
        i = next(i for i, e in enumerate(game.events) if isinstance(e, kind) and
                 (kind is not InitiativeRoll or e.first is not None))
        events = list(game.events)
        events[i] = dataclasses.replace(events[i], **changes)
        header = game.header.model_copy(update={"notes": "tampered"})
        # re-identified, as a buggy writer would: the engine's replay judges it (a file whose id
        # does not match its content is refused for that alone)
        return GameRecord(header.model_copy(update={"game_id": game_id_of(header, events)}), tuple(events))

    roll = next(e for e in heat.events if isinstance(e, OverheatRoll))
    bad_heat = tamper(heat, OverheatRoll, overheated=not roll.overheated)
    first = next(e for e in init.events if isinstance(e, InitiativeRoll) and e.first is not None)
    bad_init = tamper(init, InitiativeRoll, first="red" if first.first == "blue" else "blue")
    write_games(tmp_path, [bad_heat, bad_init, heat])
    result = ingest_paths([tmp_path], db)
    assert result.loaded == 1
    reasons = sorted(r.message for r in result.rejected)
    assert len(reasons) == 2
    assert any("overheated is" in m for m in reasons) and any("first is" in m for m in reasons), reasons


def test_the_optional_rules_report_counts_what_the_events_say(tmp_path: Path, db: Path) -> None:
    from pmim_analytics.analytics import optional_rules
    from pmim_analytics.store.readers import DuckDBData

    heat, init = _games("v3-heat", 8), _games("v3-rolled-initiative", 3)
    write_games(tmp_path, heat + init)
    assert ingest_paths([tmp_path], db).loaded == len(heat) + len(init)
    ev = DuckDBData(db).optional_rule_events()
    rolls = [e for g in heat for e in g.events if isinstance(e, OverheatRoll)]
    t = optional_rules.heat_table(ev)
    assert t["rolls"].sum() == len(rolls) and t["overheats"].sum() == sum(r.overheated for r in rolls)
    assert {(r["excess"], r["exact"]) for r in t.iter_rows(named=True)} <= {(k, min(k, 6) / 6) for k in range(1, 20)}
    lost = optional_rules.heat_by_weapon(ev)
    assert lost["lost"].sum() == sum(r.overheated for r in rolls)
    inits = [e for g in init for e in g.events if isinstance(e, InitiativeRoll)]
    it = optional_rules.initiative_table(ev).row(0, named=True)
    assert (it["rules_id"], it["rolls"], it["blue_first"]) == (
        "v3-rolled-initiative", len(inits), sum(e.first == "blue" for e in inits))
    only_heat = DuckDBData(db, rules_ids=["v3-heat"]).optional_rule_events()
    assert set(only_heat["type"].to_list()) <= {"overheat_roll", "weapon_lost"}


def test_the_exported_report_has_an_optional_rules_section(tmp_path: Path, db: Path) -> None:
    from pmim_analytics.report.export import export_report

    write_games(tmp_path / "replays", _games("v3-heat", 8) + _games("v3-rolled-initiative", 2))
    ingest_paths([tmp_path / "replays"], db)
    export_report(db, ["v3-heat", "v3-rolled-initiative"], tmp_path / "notes")
    report = (tmp_path / "notes" / "report.md").read_text()
    assert "## Optional rules" in report and "| v3-rolled-initiative |" in report.split("## Optional rules")[1]
    assert (tmp_path / "notes" / "tables" / "optional_overheat.csv").exists()


def test_the_impact_report_pairs_v3_with_v3_plus_an_optional_rule(tmp_path: Path, db: Path) -> None:
    from pmim_analytics.analytics import tables
    from pmim_analytics.rules import load_army
    from pmim_analytics.sim.batch import BatchSpec
    from pmim_analytics.sim.runner import run_batch
    from pmim_analytics.store.readers import DuckDBData

    root = Path(__file__).resolve().parents[2] / "data" / "armies"
    for rules in ("v3", "v3-heat"):
        a = validate_army(load_army(root / "v3-mech-heavy.yaml"), rules)
        b = validate_army(load_army(root / "v3-balanced.yaml"), rules)
        run_batch(BatchSpec(rules, "take-and-hold", a, b, "greedy", "greedy", 21, 8, name=f"imp-{rules}",
                            played="x"), out=tmp_path / rules, fmt="jsonl")
    assert ingest_paths([tmp_path / "v3", tmp_path / "v3-heat"], db).loaded == 16
    imp = tables.impact_report(DuckDBData(db, ["v3", "v3-heat"]), "v3", "v3-heat")
    rows = {r["composition_a"]: r for r in imp.compositions.iter_rows(named=True)}
    assert set(rows) == {"Mech-heavy", "Balanced"}
    assert all(r["games_a"] == 8 and r["games_b"] == 8 for r in rows.values())  # every game paired
