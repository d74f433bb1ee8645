"""``pmim replay verify``, ``pmim ingest`` and ``pmim log write`` agree on what is a valid
replay: a replay edited after it was written, keeping its old game id, is refused by all
three with the same sentence (one content-id check, ``content_id_problem``)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.adversarial.test_cli_attacks import games_in, good_replays, pmim

__all__ = ["good_replays"]

SAID = "does not match the replay's content"


def test_an_edited_replay_keeping_its_old_id_is_refused_everywhere(tmp_path: Path, good_replays: list[Path]) -> None:
    lines = good_replays[0].read_text(encoding="utf-8").splitlines()
    n = next(i for i, x in enumerate(lines) if '"type":"attack"' in x.replace(" ", "") and '"hit":false' in x)
    attack = json.loads(lines[n])
    attack["roll"] = [1, 1]  # a miss stays a miss: the rules are kept, only the content changed
    lines[n] = json.dumps(attack, separators=(",", ":"))
    edited = tmp_path / "edited.jsonl"
    edited.write_text("\n".join(lines) + "\n", encoding="utf-8")
    v = pmim("replay", "verify", str(edited), str(good_replays[1]))
    assert v.code == 1 and SAID in v.out and "edited.jsonl" in v.out, (v.out, v.err)
    assert "2 game(s) checked, 1 with violations" in v.err
    db = tmp_path / "pmim.duckdb"
    r = pmim("ingest", str(edited), str(good_replays[1]), "--db", str(db), "-q")
    assert r.code == 1 and SAID in r.err and games_in(db) == 1, r.err
    w = pmim("log", "write", str(edited))
    assert w.code == 2 and SAID in w.err and w.out == ""
    assert pmim("replay", "verify", str(good_replays[1])).code == 0
