"""Property tests: random logs, lenient reading, and the writer's round trip.

Hypothesis types random lines (attacks with or without dice, moves and rushes, markers, VP
lines) for two real armies, under v3 or under ``v3-rush`` (where a rush is legal); many break
the rules. Three properties must hold for every log:

* a refused line leaves nothing behind: dropping the lines the lenient reader refused
  gives a log the strict reader accepts, with exactly the same events;
* writing the game back in the notation and reading it again gives the same events and
  the same game id;
* the written form is a fixed point (writing the re-read game gives the same text).
"""

from __future__ import annotations

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from pmim_analytics.replay.manual import format_log, parse_log
from pmim_analytics.rules import build_roster, find_unit, find_weapon, load_army, load_rules
from pmim_analytics.rules.catalogue import REPO_ROOT

RULES = load_rules("v3")
HEADER = "rules: v3\nblue army: v3-mech-heavy\nred army: v3-tank-heavy\n"
ARMIES = REPO_ROOT / "data" / "armies"
UNITS = {
    prefix: [(f"{prefix}:{u.id}", u) for u in build_roster(load_army(ARMIES / name), "v3").units]
    for prefix, name in (("B", "v3-mech-heavy.yaml"), ("R", "v3-tank-heavy.yaml"))
}
ALL = UNITS["B"] + UNITS["R"]
LOCS = ["LA", "RA", "LL", "RL", "LT", "RT", "CT"]
DEPLOY_ROWS = {"B": (12, 13), "R": (0, 1)}


@st.composite
def attack_line(draw: st.DrawFn) -> str:
    uid, unit = draw(st.sampled_from(ALL))
    enemy = UNITS["R" if uid[0] == "B" else "B"]
    tid, target = draw(st.sampled_from(enemy))
    weapon = find_weapon(RULES, draw(st.sampled_from(unit.weapons)))
    spec = find_unit(RULES, target.code)
    roll = draw(st.one_of(st.none(), st.tuples(st.integers(1, 6), st.integers(1, 6))))
    total_only = draw(st.booleans())
    if roll is None:
        hit = draw(st.booleans())
        roll_text = ""
    else:
        hit = sum(roll) + weapon.acc >= spec.def_
        roll_text = f" {sum(roll)}" if total_only else f" {roll[0]}+{roll[1]}"
    parts = f"{uid} {weapon.code}>{tid}{roll_text} {'hit' if hit else 'miss'}"
    if hit and target.kind == "warmech":
        parts += " " + draw(st.sampled_from(LOCS))
        if draw(st.booleans()):
            parts += f"({draw(st.integers(1, 6))})"
    return parts


@st.composite
def move_line(draw: st.DrawFn, pos: dict[str, tuple[int, int]]) -> str:
    """A move (or a rush); for a unit deployed earlier, mostly a short step from where it should be."""
    uid, _ = draw(st.sampled_from(ALL))
    verb = draw(st.sampled_from(["move", "move", "rush"]))
    c, r = draw(st.integers(0, 19)), draw(st.integers(0, 13))
    if uid in pos and draw(st.integers(0, 3)):
        c0, r0 = pos[uid]
        c = min(19, max(0, c0 + draw(st.integers(-1, 1))))
        r = min(13, max(0, r0 + draw(st.integers(-2, 2))))
        pos[uid] = (c, r)
        return f"{uid} {verb} {c:02d}{r:02d}"
    how = draw(st.sampled_from(["bare", "to", "from-to"]))
    if how == "bare":
        return f"{uid} {verb}"
    if how == "to":
        return f"{uid} {verb} {c:02d}{r:02d}"
    c0, r0 = draw(st.integers(0, 19)), draw(st.integers(0, 13))
    return f"{uid} {verb} {c0:02d}{r0:02d}-{c:02d}{r:02d}"


@st.composite
def marker_line(draw: st.DrawFn) -> str:
    uid, unit = draw(st.sampled_from(ALL))
    by = draw(st.one_of(st.none(), st.sampled_from(UNITS["R" if uid[0] == "B" else "B"])))
    what = f"{draw(st.sampled_from(LOCS))} destroyed" if unit.kind == "warmech" and draw(st.booleans()) \
        else draw(st.sampled_from(["destroyed", "immobilized", "disarmed"]))
    return f"{uid} {what}" + (f" by {by[0]}" if by else "")


@st.composite
def game_text(draw: st.DrawFn) -> str:
    lines = [HEADER.replace("rules: v3", f"rules: {draw(st.sampled_from(['v3', 'v3-rush']))}").rstrip("\n"), "R0"]
    pos: dict[str, tuple[int, int]] = {}
    for uid, _ in draw(st.lists(st.sampled_from(ALL), max_size=10, unique_by=lambda x: x[0])):
        lo, hi = DEPLOY_ROWS[uid[0]]
        pos[uid] = (draw(st.integers(0, 19)), draw(st.integers(lo, hi)))
        lines.append(f"{uid} deploy {pos[uid][0]:02d}{pos[uid][1]:02d}")
    vp = [0, 0]
    for rnd in range(1, draw(st.integers(1, 4)) + 1):
        lines.append(f"R{rnd}")
        body = st.one_of(attack_line(), attack_line(), move_line(pos), move_line(pos), marker_line())
        lines.extend(draw(st.lists(body, max_size=10)))
        if draw(st.booleans()):
            vp = [vp[0] + draw(st.integers(0, 3)), vp[1] + draw(st.integers(0, 3))]
            lines.append(f"vp {vp[0]}-{vp[1]}")
    lines.append("result: draw manual")
    return "\n".join(lines) + "\n"


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(game_text())
# a move line with no hex is an activation the writer puts down as `hold`: the hold must read
# back as a play line, or the written log turns into a summary log (another game id)
@example(HEADER + "R0\nR1\nB:GR1 move\nresult: draw manual\n")
def test_refused_lines_leave_nothing_and_the_writer_round_trips(text: str) -> None:
    game, errors = parse_log(text, "p.pmimlog", strict=False)
    assert game is not None
    bad = {e.where.line for e in errors}
    kept = "\n".join(line for n, line in enumerate(text.splitlines(), 1) if n not in bad) + "\n"
    strict_game, _ = parse_log(kept, "p.pmimlog", strict=True)
    assert strict_game is not None
    assert strict_game.events == game.events

    written = format_log(game)
    again, _ = parse_log(written, "w.pmimlog", strict=True)
    assert again is not None
    assert again.events == game.events
    assert again.header == game.header
    assert format_log(again) == written
