"""Hostile variant, army and scenario files, and replay headers that record hostile settings.

Each case runs the real ``pmim`` capped (see :mod:`tests.adversarial.test_cli_attacks`): a
bad file is refused in one sentence naming the file, the commands that do not need it carry
on, and the good games of the same ingest are stored.
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from pmim_analytics.limits import MAX_OPTIONAL_FACTOR, MAX_STAT, MAX_YAML_DEPTH, MAX_YAML_VALUES
from pmim_analytics.model.record import compute_game_id
from pmim_analytics.replay.format import read_game
from pmim_analytics.rules.catalogue import REPO_ROOT, load_rules, load_yaml_text
from tests.adversarial.test_cli_attacks import MAX_RSS_MB, _rss_of, games_in, good_replays, pmim
from tests.support.cli import pmim_in_process

__all__ = ["good_replays"]  # the fixture, shared with the attack suite

#: nine anchors, each nine aliases of the one before: 9**9 values once expanded
BOMB = "optional_rules:\n  a0: &a0 [x, x, x, x, x, x, x, x, x]\n" + "".join(
    f"  a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 9)}]\n" for i in range(1, 9)) + "  rush: *a8\n"


@pytest.fixture
def data(tmp_path: Path) -> Path:
    """A private copy of data/ for the child processes (PMIM_DATA)."""
    dst = tmp_path / "data"
    shutil.copytree(REPO_ROOT / "data", dst, ignore=shutil.ignore_patterns("*.duckdb*"))
    return dst


def _variant(data: Path, vid: str, body: str, base: str = "v3") -> Path:
    p = data / "rules" / "variants" / f"{vid}.yaml"
    p.write_text(f"id: {vid}\nname: {vid}\nbase: {base}\n{body}", encoding="utf-8")
    return p


def test_the_loader_refuses_a_bomb_deep_nesting_and_a_cycle_of_aliases_at_once() -> None:
    with pytest.raises(yaml.YAMLError, match="MAX_YAML_VALUES"):
        load_yaml_text(BOMB)
    with pytest.raises(yaml.YAMLError, match="MAX_YAML_DEPTH"):
        load_yaml_text("a: " + "[" * 20_000 + "]" * 20_000)
    with pytest.raises(yaml.YAMLError, match="MAX_YAML_DEPTH"):  # deep only through aliases
        load_yaml_text("a0: &a0 [1]\n" + "".join(f"a{i}: &a{i} [*a{i - 1}]\n" for i in range(1, 40)))
    with pytest.raises(yaml.YAMLError, match="cycle"):
        load_yaml_text("a: &a [1, *a]\n")
    # at the limits exactly, the file is read
    assert load_yaml_text("a: " + "[" * (MAX_YAML_DEPTH - 1) + "]" * (MAX_YAML_DEPTH - 1)) is not None
    assert len(load_yaml_text("- 1\n" * (MAX_YAML_VALUES - 1))) == MAX_YAML_VALUES - 1
    assert load_yaml_text("a: &x [1, 2]\nb: *x\n") == {"a": [1, 2], "b": [1, 2]}


def test_an_alias_bomb_variant_is_refused_by_name_and_skipped_by_the_others(
        tmp_path: Path, data: Path, good_replays: list[Path]) -> None:
    _variant(data, "v3-bomb", BOMB)
    env = {"PMIM_DATA": str(data)}
    show = pmim("rules", "show", "v3-bomb", env=env, timeout=60)
    assert show.code == 2 and "v3-bomb.yaml" in show.err and "MAX_YAML_VALUES" in show.err, show.err
    assert "Traceback" not in show.err
    listing = pmim("rules", "list", "--format", "csv", env=env, timeout=60)
    assert listing.code == 0 and "v3-rush" in listing.out and "v3-bomb" not in listing.out
    assert "skipped" in listing.err and "v3-bomb.yaml" in listing.err
    db = tmp_path / "pmim.duckdb"
    r = pmim("ingest", *map(str, good_replays), "--db", str(db), "-q", env=env, timeout=120)
    assert r.code == 0 and games_in(db) == len(good_replays) and r.rss_mb < MAX_RSS_MB, r.err
    assert "v3-bomb" in r.err and "skipped" in r.err
    assert _rss_of(["rules", "show", "v3-bomb"], tmp_path) < MAX_RSS_MB


@pytest.mark.parametrize(("body", "key"), [
    ("optional_rules:\n  rush: {factor: 1000000000000}\n", "optional_rules.rush.factor"),
    ("optional_rules:\n  catch_up: {ratio: 2, activations: 1000000}\n", "optional_rules.catch_up.activations"),
    ("overrides:\n  weapons:\n    LL: {rpt: 1000000000}\n", "weapons"),
])
def test_a_setting_or_a_stat_over_its_ceiling_is_refused_naming_the_key(
        data: Path, body: str, key: str) -> None:
    _variant(data, "v3-huge", body)
    r = pmim_in_process("rules", "show", "v3-huge", env={"PMIM_DATA": str(data)})  # a sentence, no hang to fear
    assert r.returncode == 2 and "v3-huge.yaml" in r.stderr and key in r.stderr, r.stderr
    assert "less than or equal" in r.stderr and (str(MAX_OPTIONAL_FACTOR) in r.stderr or str(MAX_STAT) in r.stderr)


def test_deep_nesting_in_a_variant_an_army_or_a_scenario_is_one_sentence(tmp_path: Path, data: Path) -> None:
    deep = "[" * 20_000 + "]" * 20_000
    _variant(data, "v3-deep", f"description: {deep}\n")
    army = tmp_path / "deep.yaml"
    army.write_text(f"name: Deep\nrules: v3\nunits: {deep}\n", encoding="utf-8")
    (data / "scenarios" / "deep.yaml").write_text(f"id: deep\nmap: {deep}\n", encoding="utf-8")
    env = {"PMIM_DATA": str(data)}
    for args in (["rules", "show", "v3-deep"], ["army", "validate", str(army)],
                 ["army", "validate", str(REPO_ROOT / "data" / "armies" / "v3-balanced.yaml"), "--scenario", "deep"]):
        r = pmim(*args, env=env, timeout=60)
        assert r.code == 2 and "MAX_YAML_DEPTH" in r.err and "Traceback" not in r.err, (args, r.err)
        assert "RecursionError" not in r.err and r.err.count("\n") <= 2


def test_two_variants_based_on_each_other_are_one_sentence(data: Path) -> None:
    _variant(data, "v3-ping", "", base="v3-pong")
    _variant(data, "v3-pong", "", base="v3-ping")
    env = {"PMIM_DATA": str(data)}
    r = pmim_in_process("rules", "show", "v3-ping", env=env)  # a RecursionError would fail the test
    assert r.returncode == 2 and "cycle" in r.stderr and "v3-ping is based on v3-pong" in r.stderr, r.stderr
    assert "base one of them on a version" in r.stderr
    listing = pmim_in_process("rules", "list", "--format", "csv", env=env)
    assert listing.returncode == 0 and "v3-rush" in listing.stdout and listing.stderr.count("cycle") == 2


@pytest.mark.parametrize(("setting", "key"), [
    ({"rush": {"factor": 10**12}}, "optional_rules.rush.factor"),
    ({"catch_up": {"ratio": 2, "activations": 10**12}}, "optional_rules.catch_up.activations"),
    ({"rolled_initiative": {"die": 10**12}}, "optional_rules.rolled_initiative.die"),
], ids=["rush factor", "catch-up activations", "initiative die"])
def test_a_replay_recording_a_huge_setting_is_refused_before_it_is_replayed(
        tmp_path: Path, good_replays: list[Path], setting: dict[str, Any], key: str) -> None:
    """Every setting a replay header records is bounded as a variant file's is, before a replay."""
    lines = good_replays[0].read_text(encoding="utf-8").splitlines()
    head = json.loads(lines[0])
    head.update(version=2, optional_rules=setting)
    record = read_game(good_replays[0])
    head["game_id"] = compute_game_id(head, record.events)  # the id fits the edited content
    bad = tmp_path / "rush.jsonl"
    bad.write_text("\n".join([json.dumps(head), *lines[1:]]) + "\n", encoding="utf-8")
    v = pmim("replay", "verify", str(bad), timeout=300)
    assert v.code == 2 and key in v.err and "Traceback" not in v.err, v.err
    db = tmp_path / "pmim.duckdb"
    r = pmim("ingest", str(bad), *map(str, good_replays[1:]), "--db", str(db), "-q", timeout=300)
    assert r.code == 1 and key in r.err, r.err
    assert games_in(db) == len(good_replays) - 1 and r.rss_mb < MAX_RSS_MB



def test_the_dashboards_rules_picker_skips_a_bad_variant_and_names_it_once(
        tmp_path: Path, data_copy: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The library: :func:`usable_rules_ids` leaves out (and names) each id whose file does not
    load; the dashboard's Simulate page offers the others and warns once."""
    import streamlit as st
    from streamlit.testing.v1 import AppTest

    from pmim_analytics.rules import list_rules_ids, usable_rules_ids

    _variant(data_copy, "v3-bomb", BOMB)
    _variant(data_copy, "v3-ping", "", base="v3-pong")
    _variant(data_copy, "v3-pong", "", base="v3-ping")
    ids, skipped = usable_rules_ids()
    assert {"v3-bomb", "v3-ping", "v3-pong"} <= set(list_rules_ids())
    assert set(skipped) == {"v3-bomb", "v3-ping", "v3-pong"}
    assert ids == [r for r in list_rules_ids() if r not in skipped] and "v3" in ids and "v3-rush" in ids
    assert "v3-bomb.yaml" in skipped["v3-bomb"].render() and "MAX_YAML_VALUES" in skipped["v3-bomb"].render()
    assert "cycle" in skipped["v3-ping"].render()
    monkeypatch.setenv("PMIM_DB", str(tmp_path / "none.duckdb"))
    st.cache_resource.clear()  # the dashboard's catalogue is cached per process
    main = sys.modules["__main__"]  # AppTest leaves its page as __main__, which a later fork server would import
    try:
        at = AppTest.from_file(str(REPO_ROOT / "app" / "streamlit_app.py"), default_timeout=600)
        at.switch_page("views/simulate.py").run()
        assert not at.exception
        assert at.selectbox(key="sim_rules").options == [f"{r}: {load_rules(r).name}" for r in ids]
        warnings = [w.value for w in at.warning if "skipped" in w.value]
        assert len(warnings) == 3 and any("v3-bomb.yaml" in w for w in warnings), warnings
        at.run()  # a rerun of the session does not warn again
        assert not [w for w in at.warning if "skipped" in w.value]
    finally:
        sys.modules["__main__"] = main
        st.cache_resource.clear()
