"""Manual-log reading speed, beside reading the same game as a JSON Lines replay.

Run: .venv/bin/python bench/bench_manual_log.py [REPEATS]

Prints events per second for (a) parsing and checking the detailed sample log against
the rules and (b) the baseline, reading the same game from its JSON Lines replay with
``read_game`` (which validates types but knows no rules).
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

from pmim_analytics.replay.format import read_game, write_game
from pmim_analytics.replay.manual import parse_log, read_log

LOG = Path(__file__).resolve().parents[1] / "data" / "playtests" / "sample-detailed-v3.pmimlog"


def rate(func, repeats: int, n_events: int) -> float:
    """Events per second over ``repeats`` calls (after one warm-up call)."""
    func()
    t0 = time.perf_counter()
    for _ in range(repeats):
        func()
    return repeats * n_events / (time.perf_counter() - t0)


def main() -> None:
    repeats = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    game = read_log(LOG)
    text = LOG.read_text()
    with tempfile.TemporaryDirectory() as tmp:
        jsonl = write_game(game, Path(tmp) / "g.jsonl")
        n = len(game.events)
        manual = rate(lambda: parse_log(text, str(LOG), base_dir=LOG.parent), repeats, n)
        baseline = rate(lambda: read_game(jsonl), repeats, n)
    print(f"{LOG.name}: {n} events, {repeats} repeats")
    print(f"  manual log (parse + rules checks): {manual:12,.0f} events/s")
    print(f"  JSON Lines read_game (baseline):   {baseline:12,.0f} events/s")
    print(f"  ratio manual/baseline:             {manual / baseline:12.2f}")


if __name__ == "__main__":
    main()
