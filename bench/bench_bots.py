"""Bots: games per second per bot and budget, clone() cost, and the search bot against tactician.

Run: .venv/bin/python bench/bench_bots.py [--games N] [--budgets 0,100,400] [--strength-games N] [--scripted-games N]
     [--workers W]

* speed: full games per second on one core (in this process) for each bot spec over a
  fixed rotation of the v3 sample armies, tactician in the same run as the baseline, both by
  the wall clock and per second of this process's CPU time (which a busy machine does not
  slow down, so it is the figure to compare with "N games a second on one core");
* clone: microseconds per ``GameState.clone()`` of mid-game states, beside one tactician
  decision on the same states;
* strength: ``search`` (at each budget given to --strength-budgets, default the default)
  against ``tactician`` over every ordered pairing of the v3 sample armies (mirrors
  included), sides swapped every other game: wins, losses, draws, the win rate
  of decided games and its 95% Wilson interval; then where the wins come from: the bot's
  wins per ordered pairing, the pairs of armies one army won (90% or more of the decided
  games whichever bot had it, in both seatings), and the bot's record outside those pairs;
* scripted (``--scripted-games``): tactician against greedy the same way, the ladder's
  check that tactician is the stronger scripted bot;
* mirror (``--mirror-games``): ``search`` against ``tactician`` with the same army on both
  sides, over the five v3 sample armies (sides swapped every other game), where the lists
  cannot decide: the bot-strength figure, with its 95% Wilson interval;
* playtest 1 (``--playtest-games``): the search bot on both sides of the playtest-1 matchup
  (v2, the designer's Balanced list against Richard's Heavy list, Balanced blue in even
  games and red in odd ones): in how many games Balanced has a unit in a capture zone at the
  end of round 1, and how many of its GEVs are.

The machine may be shared, so speed figures move between runs; compare the rows of one run.
"""

from __future__ import annotations

import argparse
import itertools
import os
import random
import statistics
import time

from pmim_analytics.botlab.ladder import sample_armies
from pmim_analytics.engine.bots import make_bot, parse_bot_spec
from pmim_analytics.engine.bots.search import DEFAULT_BUDGET
from pmim_analytics.engine.dice import game_streams
from pmim_analytics.engine.driver import play_game, run
from pmim_analytics.engine.spec import GameSpec
from pmim_analytics.rules.army import Roster
from pmim_analytics.sim.batch import BatchSpec, wilson_interval
from pmim_analytics.sim.runner import run_batch

RULES = "v3"
SCENARIO = "take-and-hold"
#: The playtest-1 matchup: rules and the two lists (data/armies).
PLAYTEST1 = ("v2", "v2-playtest-balanced", "v2-playtest1-heavy")


def v3_armies() -> dict[str, Roster]:
    """The v3 sample armies, by file name: those written for v3 and legal under it, the same
    armies the bot ladder plays (``pmim bots ladder --rules v3``)."""
    return dict(sample_armies(RULES, SCENARIO))


def speed(bot: str, armies: dict[str, Roster], games: int) -> tuple[float, float, float]:
    """(games per second of wall time, games per second of this process's CPU time, mean rounds) of
    ``bot`` against itself over a rotation of pairings, one core. CPU time is what one core spends,
    whatever else the machine runs; wall time also counts waiting for a core on a busy machine."""
    names = list(armies)
    pairs = list(itertools.permutations(names, 2))
    specs: dict[tuple[str, str], GameSpec] = {}
    rounds = 0
    t0 = time.perf_counter()
    c0 = time.process_time()
    for i in range(games):
        a, b = pairs[i % len(pairs)]
        spec = specs.get((a, b)) or specs.setdefault((a, b), GameSpec.create(RULES, SCENARIO, armies[a], armies[b]))
        rec = play_game(spec, bot, bot, 1, i, played="2026-01-01")
        rounds += rec.events[-1].rounds  # type: ignore[attr-defined]
    return games / (time.perf_counter() - t0), games / (time.process_time() - c0), rounds / games


def clone_cost(armies: dict[str, Roster], samples: int = 20) -> tuple[float, float, int]:
    """(µs per clone, µs per tactician decision, events per sampled state) on mid-game states."""
    names = list(armies)
    states = []
    for i, (a, b) in enumerate(itertools.islice(itertools.permutations(names, 2), samples)):
        spec = GameSpec.create(RULES, SCENARIO, armies[a], armies[b])
        dice, br, rr = game_streams(7, i)
        full = run(spec, make_bot("tactician", br), make_bot("tactician", rr), dice)
        # replay the same game up to half its events to get a mid-game state
        dice, br, rr = game_streams(7, i)
        from pmim_analytics.engine.state import GameState

        st = GameState(spec)
        bots = (make_bot("tactician", br), make_bot("tactician", rr))
        while len(st.events) < len(full.events) // 2:
            need = st.roll_needed()
            if need:
                st.apply_roll(dice.roll(need))
            else:
                st.apply(bots[st.to_act].choose(st))
        while st.roll_needed():
            st.apply_roll(dice.roll(st.roll_needed()))
        states.append(st)
    reps = 2000
    t0 = time.perf_counter()
    for st in states:
        for _ in range(reps):
            st.clone()
    per_clone = (time.perf_counter() - t0) / (reps * len(states)) * 1e6
    reps = 200
    t0 = time.perf_counter()
    for st in states:
        bot = make_bot("tactician", random.Random(1))
        for _ in range(reps):
            bot.choose(st)
    per_decision = (time.perf_counter() - t0) / (reps * len(states)) * 1e6
    return per_clone, per_decision, int(statistics.mean(len(s.events) for s in states))


PairResults = dict[tuple[str, str], tuple[int, int, int]]


def strength(bot: str, armies: dict[str, Roster], per_pairing: int, workers: int, seed: int = 2026,
             opponent: str = "tactician") -> tuple[int, int, int, float, PairResults]:
    """(wins, losses, draws, seconds, per pairing) of ``bot`` against ``opponent`` over every
    ordered pairing; per pairing: (bot's army, opponent's army) -> (wins, losses, draws)."""
    wins = losses = draws = 0
    pairs: PairResults = {}
    t0 = time.perf_counter()
    for n, (a, b) in enumerate(itertools.product(armies, repeat=2)):
        batch = BatchSpec(RULES, SCENARIO, armies[a], armies[b], bot, opponent, seed + n, per_pairing,
                          name="bench-bots", played="2026-01-01")
        s = run_batch(batch, workers=workers)
        pairs[a, b] = (s.wins_a, s.wins_b, s.draws)
        wins += s.wins_a
        losses += s.wins_b
        draws += s.draws
    return wins, losses, draws, time.perf_counter() - t0, pairs


def mirror(bot: str, armies: dict[str, Roster], per_army: int, workers: int, seed: int = 3030,
           opponent: str = "tactician") -> tuple[int, int, int, float]:
    """(wins, losses, draws, seconds) of ``bot`` against ``opponent`` with the same army on both
    sides, ``per_army`` games for each army (sides swapped every other game)."""
    wins = losses = draws = 0
    t0 = time.perf_counter()
    for n, a in enumerate(armies):
        batch = BatchSpec(RULES, SCENARIO, armies[a], armies[a], bot, opponent, seed + n, per_army,
                          name="bench-bots-mirror", played="2026-01-01")
        s = run_batch(batch, workers=workers)
        wins += s.wins_a
        losses += s.wins_b
        draws += s.draws
    return wins, losses, draws, time.perf_counter() - t0


def playtest1_round1(bot: str, games: int, seed: int = 11) -> tuple[int, int, int, int]:
    """(games, games where Balanced has a unit in a capture zone at the end of round 1, its GEVs
    in a capture zone then summed over the games, its GEVs summed over the games) with ``bot``
    on both sides of the playtest-1 matchup, Balanced blue in even games and red in odd ones."""
    from pmim_analytics.engine.checks import OVER
    from pmim_analytics.engine.state import GameState
    from pmim_analytics.rules import load_army, validate_army
    from pmim_analytics.rules.catalogue import data_dir

    rules, bal_name, heavy_name = PLAYTEST1
    bal = validate_army(load_army(data_dir() / "armies" / f"{bal_name}.yaml"), rules)
    heavy = validate_army(load_army(data_dir() / "armies" / f"{heavy_name}.yaml"), rules)
    specs = (GameSpec.create(rules, SCENARIO, bal, heavy), GameSpec.create(rules, SCENARIO, heavy, bal))
    in_zone = gev_in = gev_all = 0
    for i in range(games):
        side = i % 2  # Balanced's side
        dice, br, rr = game_streams(seed, i)
        st = GameState(specs[side])
        bots = (make_bot(bot, br), make_bot(bot, rr))
        while st.phase != OVER and st.round < 2:
            need = st.roll_needed()
            if need:
                st.apply_roll(dice.roll(need))
            else:
                st.apply(bots[st.to_act].choose(st))
        zones_of = st.board.zones_of
        mine = [u for u in st.side_units[side] if u.alive]
        in_zone += any(zones_of[u.pos] for u in mine)
        gevs = [u for u in st.side_units[side] if u.p.type == "GEV"]
        gev_all += len(gevs)
        gev_in += sum(1 for u in gevs if u.alive and zones_of[u.pos])
    return games, in_zone, gev_in, gev_all


#: A pair of armies is "one-sided" when the same army won at least this share of the decided
#: games with each bot at its side.
ONE_SIDED = 0.9


def short(name: str) -> str:
    """An army's file name without the rules prefix (``v3-tank-heavy`` -> ``tank-heavy``)."""
    return name.split("-", 1)[1] if name.startswith(RULES + "-") else name


def by_pairing(label: str, pairs: PairResults) -> list[str]:
    """Lines that say where ``label``'s wins come from: its wins per ordered pairing (its army
    down, the opponent's across), then each pair of different armies with the army that won
    it whichever bot had it, and the bot's record outside the one-sided pairs."""
    names = sorted({a for a, _ in pairs})
    width = max(len(short(n)) for n in names) + 2
    lines = [f"{label} wins per pairing (its army down, tactician's across, of the decided games):",
             " " * width + "".join(f"{short(b):>{width}}" for b in names)]
    for a in names:
        cells = "".join(f"{f'{w}/{w + lo}':>{width}}" for b in names for w, lo, _ in [pairs[a, b]])
        lines.append(f"{short(a):<{width}}{cells}")
    one_sided: list[tuple[str, str]] = []
    for i, x in enumerate(names):
        for y in names[i + 1:]:
            (w1, l1, _), (w2, l2, _) = pairs[x, y], pairs[y, x]  # x with the bot, then y with it
            # each army's (wins, decided games) when the bot had it, then when the opponent had it
            for strong, weak, mine, theirs in ((x, y, (w1, w1 + l1), (l2, w2 + l2)),
                                               (y, x, (w2, w2 + l2), (l1, w1 + l1))):
                if all(n and won >= ONE_SIDED * n for won, n in (mine, theirs)):
                    one_sided.append((strong, weak))
                    lines.append(f"  one-sided: {short(strong)} beat {short(weak)} in {mine[0] + theirs[0]} of "
                                 f"{mine[1] + theirs[1]} decided games, whichever bot had it")
    flat = {frozenset(p) for p in one_sided}
    rest = [(w, lo) for (a, b), (w, lo, _) in pairs.items() if frozenset((a, b)) not in flat or a == b]
    w, lo = sum(r[0] for r in rest), sum(r[1] for r in rest)
    if w + lo:
        low, high = wilson_interval(w, w + lo)
        lines.append(f"  outside the one-sided pairs: {w}-{lo}, {w / (w + lo):.1%} of decided games "
                     f"(95% Wilson {low:.1%} - {high:.1%})")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=30, help="games per bot for the speed rows (default 30)")
    speed_budgets = f"0,{DEFAULT_BUDGET},{4 * DEFAULT_BUDGET}"  # none, the default, four times it
    parser.add_argument("--budgets", default=speed_budgets,
                        help=f"search budgets for the speed rows (default {speed_budgets})")
    parser.add_argument("--strength-budgets", default=str(DEFAULT_BUDGET),
                        help="search budgets played against tactician (default: the default budget)")
    parser.add_argument("--strength-games", type=int, default=8,
                        help="games per ordered pairing of armies against tactician (default 8; 0 skips)")
    parser.add_argument("--scripted-games", type=int, default=0,
                        help="games per ordered pairing of tactician against greedy (default 0: skipped)")
    parser.add_argument("--mirror-games", type=int, default=0,
                        help="mirror games per v3 sample army of search against tactician (default 0: skipped; "
                             "80 gives the issue's 400)")
    parser.add_argument("--playtest-games", type=int, default=0,
                        help="playtest-1 games played to the end of round 1 by search (default 0: skipped)")
    parser.add_argument("--workers", type=int, default=1, help="processes for the strength games (default 1)")
    args = parser.parse_args()

    armies = v3_armies()
    print(f"v3 sample armies ({len(armies)}): {', '.join(armies)}; {os.cpu_count()} CPUs, "
          f"load average {os.getloadavg()[0]:.2f} at start")
    per_clone, per_decision, events = clone_cost(armies)
    print(f"clone(): {per_clone:.1f} µs per clone of a mid-game state (~{events} events so far); "
          f"one tactician decision on the same states: {per_decision:.1f} µs")

    bots = ["random", "greedy", "tactician"] + [f"search:budget={b}" for b in args.budgets.split(",") if b]
    print(f"\nspeed, one core, {args.games} games each (bot against itself, pairings rotated)")
    print(f"{'bot':<24}{'games/s':>10}{'games/cpu-s':>13}{'cpu-ms/game':>13}{'rounds':>8}{'vs tactician':>14}")
    base = None
    rows = []
    for bot in bots if args.games > 0 else []:  # --games 0 skips the speed rows
        label = parse_bot_spec(bot).label()
        n = args.games if not label.startswith("search") else max(3, args.games // 3)
        gps, cps, rounds = speed(label, armies, n)
        if label == "tactician":
            base = cps
        rows.append((label, gps, cps, rounds))
    for label, gps, cps, rounds in rows:
        ratio = f"{cps / base:.3f}x" if base else ""
        print(f"{label:<24}{gps:>10.2f}{cps:>13.2f}{1000 / cps:>13.1f}{rounds:>8.2f}{ratio:>14}")
    print("games/s: wall clock; games/cpu-s: per second of one core's CPU time (the figure that does not "
          "depend on what else runs)")

    if args.strength_games > 0:
        pairings = len(armies) ** 2
        print(f"\nstrength against tactician: {pairings} ordered pairings x {args.strength_games} games "
              "(sides swapped every other game)")
        print(f"{'bot':<24}{'W':>6}{'L':>6}{'D':>6}{'win rate (decided)':>20}{'95% Wilson':>18}{'games/s':>9}")
        details: list[str] = []
        for b in args.strength_budgets.split(","):
            label = parse_bot_spec(f"search:budget={b}").label()
            w, lo_, d, secs, pairs = strength(label, armies, args.strength_games, args.workers)
            decided = w + lo_
            lo, hi = wilson_interval(w, decided)
            rate = w / decided if decided else 0.0
            print(f"{label:<24}{w:>6}{lo_:>6}{d:>6}{rate:>20.1%}{f'{lo:.1%} - {hi:.1%}':>18}"
                  f"{(w + lo_ + d) / secs:>9.2f}")
            details.extend(["", *by_pairing(label, pairs)])
        print("\n".join(details))

    if args.scripted_games > 0:
        print(f"\ntactician against greedy: {len(armies) ** 2} ordered pairings x {args.scripted_games} games "
              "(sides swapped every other game)")
        w, lo_, d, secs, _ = strength("tactician", armies, args.scripted_games, args.workers, opponent="greedy")
        lo, hi = wilson_interval(w, w + lo_)
        print(f"tactician {w}-{lo_}-{d} (W-L-D): {w / max(1, w + lo_):.1%} of decided games, "
              f"95% Wilson {lo:.1%} - {hi:.1%}, {(w + lo_ + d) / secs:.1f} games/s")

    if args.mirror_games > 0:
        label = parse_bot_spec("search").label()
        print(f"\nmirror matches, {label} against tactician: {len(armies)} armies x {args.mirror_games} games "
              "(the same army on both sides, sides swapped every other game)")
        w, lo_, d, secs = mirror(label, armies, args.mirror_games, args.workers)
        lo, hi = wilson_interval(w, w + lo_)
        print(f"{label} {w}-{lo_}-{d} (W-L-D): {w / max(1, w + lo_):.1%} of decided games, "
              f"95% Wilson {lo:.1%} - {hi:.1%}, {(w + lo_ + d) / secs:.2f} games/s")

    if args.playtest_games > 0:
        label = parse_bot_spec("search").label()
        n, zone, gev_in, gev_all = playtest1_round1(label, args.playtest_games)
        print(f"\nplaytest 1 ({PLAYTEST1[0]}, {PLAYTEST1[1]} against {PLAYTEST1[2]}), {label} on both sides, "
              f"{n} games to the end of round 1: Balanced has a unit in a capture zone in {zone} of {n}; "
              f"{gev_in} of its {gev_all} GEVs are in one")


if __name__ == "__main__":
    main()
