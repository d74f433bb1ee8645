"""Who moves first (the ``first_player`` setting), the round limit in replays, and verify on both."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pmim_analytics.engine.actions import PlaceUnit
from pmim_analytics.engine.dice import game_streams
from pmim_analytics.engine.driver import play_game
from pmim_analytics.engine.spec import GameSpec
from pmim_analytics.engine.state import GameState
from pmim_analytics.engine.verify import verify_game
from pmim_analytics.errors import IllegalActionError, UnknownNameError
from pmim_analytics.model.events import FirstPlayer, GameEnd, RoundStart, event_from_row, event_to_row
from pmim_analytics.replay.format import read_game, write_game
from pmim_analytics.replay.sources import read_game_with_lines
from pmim_analytics.rules import load_army, validate_army
from pmim_analytics.sim.batch import BatchSpec, play_batch_game
from pmim_analytics.store import read_frame
from tests.conftest import ARMIES
from tests.support.own import ingest_own
from tests.support.positions import roster

BLUE2 = [("TY", ("HAC",), (0, 0)), ("TY", ("HAC",), (0, 0))]
RED2 = [("BE", ("LAC",), (0, 0)), ("BE", ("LAC",), (0, 0))]


def small_spec(first_player: str | None) -> GameSpec:
    return GameSpec.create("v3", "take-and-hold", roster("v3", BLUE2, "blue"), roster("v3", RED2, "red"),
                           first_player)


def legal_spec(first_player: str | None = None) -> GameSpec:
    """Two legal Take and Hold armies (verify checks the lists too)."""
    blue = validate_army(load_army(ARMIES / "v3-balanced.yaml"), "v3")
    red = validate_army(load_army(ARMIES / "v3-tank-heavy.yaml"), "v3")
    return GameSpec.create("v3", "take-and-hold", blue, red, first_player)


def deploy_all(st: GameState) -> list[str]:
    """Place every unit on its first legal hex; return the units in the order placed."""
    order = []
    while (actions := st.legal_actions()) and isinstance(actions[0], PlaceUnit):
        action = actions[0]
        order.append(action.unit)
        st.apply(action)
    return order


# -- the state ---------------------------------------------------------------------------
def test_alternate_is_the_default_and_records_nothing() -> None:
    st = GameState(small_spec(None))
    assert st.roll_needed() == 0 and st.events == []
    assert deploy_all(st)[0].startswith("B:")
    assert [st.spec.first_side(n) for n in (1, 2, 3, 4)] == [0, 1, 0, 1]


@pytest.mark.parametrize("side", ["blue", "red"])
def test_a_fixed_first_player_goes_first_in_every_round_and_says_so(side: str) -> None:
    st = GameState(small_spec(side))
    assert st.events == [FirstPlayer(seq=1, round=0, setting=side, die=None, side=side)]
    assert st.roll_needed() == 0
    assert deploy_all(st)[0][0] == side[0].upper()
    first = st.events[-1]
    assert isinstance(first, RoundStart) and first.first == side
    assert {st.spec.first_side(n) for n in range(1, 21)} == {0 if side == "blue" else 1}


@pytest.mark.parametrize(("die", "side"), [(1, "blue"), (3, "blue"), (4, "red"), (6, "red")])
def test_random_waits_for_one_die_then_alternates_from_the_drawn_side(die: int, side: str) -> None:
    st = GameState(small_spec("random"))
    assert st.roll_needed() == 1 and st.is_chance_node() and st.legal_actions() == [] and st.current_side() is None
    st.apply_roll((die,))
    assert st.events == [FirstPlayer(seq=1, round=0, setting="random", die=die, side=side)]
    assert st.roll_needed() == 0
    placed = deploy_all(st)
    assert placed[0][0] == side[0].upper() and placed[1][0] != side[0].upper()  # sides alternate placing
    assert st.events[-1] == RoundStart(seq=len(st.events), round=1, first=side)
    drawn = 0 if side == "blue" else 1
    assert [st.spec.first_side(n, drawn) for n in (1, 2, 3)] == [drawn, 1 - drawn, drawn]


def test_the_random_draw_takes_exactly_one_d6() -> None:
    st = GameState(small_spec("random"))
    with pytest.raises(IllegalActionError, match="expected 1 d6"):
        st.apply_roll((3, 4))
    with pytest.raises(IllegalActionError, match="expected 1 d6"):
        st.apply_roll((7,))
    assert st.roll_needed() == 1 and st.events == []


def test_an_unknown_setting_is_refused() -> None:
    with pytest.raises(UnknownNameError, match="choose one of alternate, blue, red, random"):
        small_spec("coin")


# -- the driver --------------------------------------------------------------------------
def test_the_driver_draws_from_the_games_own_dice_stream() -> None:
    spec = small_spec("random")
    for i in range(6):
        record = play_game(spec, "random", "random", seed=4, game_index=i, played="2026-01-01")
        die = game_streams(4, i)[0].roll(1)[0]  # the first d6 of game i's dice stream
        first = record.events[0]
        assert isinstance(first, FirstPlayer) and first.die == die
        starts = [e.first for e in record.events if isinstance(e, RoundStart)]
        want = first.side
        assert starts[0] == want and all(a != b for a, b in zip(starts, starts[1:], strict=False))


def test_a_batch_override_reaches_every_game() -> None:
    b = BatchSpec("v3", "take-and-hold", roster("v3", BLUE2, "a"), roster("v3", RED2, "b"), "random", "random",
                  seed=2, games=4, played="2026-01-01", first_player="red")
    for i in range(4):
        starts = {e.first for e in play_batch_game(b, i).events if isinstance(e, RoundStart)}
        assert starts == {"red"}


# -- verify ------------------------------------------------------------------------------
def _write(tmp_path: Path, record, edit=None) -> list:  # noqa: ANN001
    path = tmp_path / "g.jsonl"
    write_game(record, path)
    if edit is not None:
        lines = path.read_text().splitlines()
        events = [json.loads(x) for x in lines[1:]]
        edit(events)
        for n, ev in enumerate(events, start=1):
            ev["seq"] = n
        path.write_text("\n".join([lines[0], *(json.dumps(e) for e in events)]) + "\n")
    loaded = read_game_with_lines(path)
    return verify_game(loaded.record, loaded.lines)


@pytest.mark.parametrize("bots", [("greedy", "random"), ("search:budget=20", "tactician")])
@pytest.mark.parametrize("setting", ["alternate", "blue", "red", "random"])
def test_games_under_every_setting_verify_clean(tmp_path: Path, setting: str, bots: tuple[str, str]) -> None:
    """Every setting, with every kind of bot: the search bot once failed before the draw under
    ``random``, asking who would start the next round."""
    record = play_game(legal_spec(setting), *bots, seed=9, played="2026-01-01")
    assert _write(tmp_path, record) == []


def test_verify_catches_a_draw_recorded_for_the_wrong_side(tmp_path: Path) -> None:
    record = play_game(legal_spec("random"), "greedy", "random", seed=9, played="2026-01-01")

    def edit(evs: list[dict]) -> None:
        evs[0]["side"] = "red" if evs[0]["side"] == "blue" else "blue"

    found = _write(tmp_path, record, edit)
    assert found and found[0].line == 2 and "side is" in found[0].message


def test_verify_catches_a_die_changed_after_the_fact(tmp_path: Path) -> None:
    record = play_game(legal_spec("random"), "greedy", "random", seed=9, played="2026-01-01")

    def edit(evs: list[dict]) -> None:  # the die now gives the other side; the rest of the game does not follow
        evs[0]["die"] = 6 if evs[0]["die"] <= 3 else 1

    found = _write(tmp_path, record, edit)
    assert found and any("side is" in v.message for v in found)


def test_verify_catches_a_missing_first_player_event(tmp_path: Path) -> None:
    record = play_game(legal_spec("red"), "greedy", "random", seed=9, played="2026-01-01")
    found = _write(tmp_path, record, lambda evs: evs.pop(0))  # now read as `alternate`: blue should start
    assert found


# -- the round limit in replays ------------------------------------------------------------
def _short_scenario(data: Path, at_round_limit: str) -> None:
    path = data / "scenarios" / "take-and-hold.yaml"
    text = path.read_text().replace("round_limit: 20 ", "round_limit: 1 ")
    path.write_text(text.replace("at_round_limit: draw", f"at_round_limit: {at_round_limit}"))


def _limit_game() -> object:
    spec = legal_spec()
    for i in range(20):
        record = play_game(spec, "greedy", "greedy", seed=1, game_index=i, played="2026-01-01")
        end = record.events[-1]
        if end.reason == "round_limit" and end.blue_vp != end.red_vp:
            return record
    raise AssertionError("no game with unequal VP at a one-round limit")


def test_a_game_at_the_limit_is_a_draw_and_verify_holds_it_to_that(data_copy: Path, tmp_path: Path) -> None:
    _short_scenario(data_copy, "draw")
    record = _limit_game()
    end = record.events[-1]
    assert isinstance(end, GameEnd) and end.winner is None and end.rounds == 1
    assert _write(tmp_path, record) == []
    ahead = "blue" if end.blue_vp > end.red_vp else "red"

    def edit(evs: list[dict]) -> None:  # the old behaviour: the side ahead "wins" at the limit
        evs[-1]["winner"] = ahead

    found = _write(tmp_path, record, edit)
    assert len(found) == 1 and f"winner is {ahead!r}, the rules give None" in found[0].message


def test_with_the_vp_option_the_side_ahead_wins_at_the_limit(data_copy: Path, tmp_path: Path) -> None:
    _short_scenario(data_copy, "vp")
    record = _limit_game()
    end = record.events[-1]
    assert end.winner == ("blue" if end.blue_vp > end.red_vp else "red")
    assert _write(tmp_path, record) == []
    found = _write(tmp_path, record, lambda evs: evs[-1].update(winner=None))
    assert len(found) == 1 and "winner is None" in found[0].message


# -- storage -------------------------------------------------------------------------------
def test_the_draw_survives_parquet_rows_and_the_database(tmp_path: Path) -> None:
    record = play_game(small_spec("random"), "greedy", "random", seed=9, played="2026-01-01")
    first = record.events[0]
    assert event_from_row(event_to_row("g", first)) == first
    path = write_game(record, tmp_path / "g.jsonl")
    assert read_game(path).events[0] == first
    db = tmp_path / "pmim.duckdb"
    result = ingest_own([path], db)  # a small game off the army rules: stored as this installation's own
    assert result.loaded == 1 and not result.rejected, result
    row = read_frame("SELECT e.side, e.die1, e.reason, g.first_side FROM events e JOIN games g USING (game_id) "
                     "WHERE e.type = 'first_player'", db=db).row(0)
    assert row == (first.side, first.die, "random", first.side)


# -- batches: CLI and sweep files --------------------------------------------------------------------
def test_cli_play_takes_first_player_and_its_replay_verifies(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from pmim_analytics.cli import app
    runner = CliRunner()
    out = tmp_path / "g.jsonl"
    r = runner.invoke(app, ["play", "--blue", str(ARMIES / "v3-balanced.yaml"), "--red",
                            str(ARMIES / "v3-tank-heavy.yaml"), "--seed", "5", "--first-player", "random",
                            "--out", str(out)])
    assert r.exit_code == 0, r.output
    assert isinstance(read_game(out).events[0], FirstPlayer)
    assert runner.invoke(app, ["replay", "verify", str(out)]).exit_code == 0
    bad = runner.invoke(app, ["play", "--blue", str(ARMIES / "v3-balanced.yaml"), "--red",
                              str(ARMIES / "v3-tank-heavy.yaml"), "--first-player", "coin"])
    assert bad.exit_code == 2 and "unknown first-player setting 'coin'" in bad.output


def test_a_sweep_file_sets_first_player_for_every_pairing(tmp_path: Path) -> None:
    from pmim_analytics.replay.parquet import read_batch
    from pmim_analytics.sim.backends import LocalBackend
    from pmim_analytics.sweep import load_sweep, pairing_folder, run_sweep
    path = tmp_path / "s.yaml"
    path.write_text("name: s\nseed: 3\nrules: [v3]\ncompositions: [v3-balanced, v3-tank-heavy]\n"
                    "games_per_pairing: 4\npart_size: 4\nfirst_player: red\n", encoding="utf-8")
    plan = load_sweep(path)
    run_sweep(plan, tmp_path / "out", LocalBackend(1))
    games = list(read_batch(pairing_folder(tmp_path / "out", plan.pairings[0])))
    assert len(games) == 4
    for g in games:
        assert g.events[0] == FirstPlayer(seq=1, round=0, setting="red", die=None, side="red")
        assert {e.first for e in g.events if isinstance(e, RoundStart)} == {"red"}
    manifest = json.loads((tmp_path / "out" / "manifest.json").read_text())
    assert manifest["first_player"] == "red"
