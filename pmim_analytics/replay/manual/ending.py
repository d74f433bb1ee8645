"""The end of a logged game: the result line and the wording of its check (the rule is the
engine's, :func:`~pmim_analytics.engine.rulings.result_refusal`).

``result: WINNER [REASON] [BLUE-RED]`` -- winner ``blue``, ``red`` or ``draw``; reason
``vp``, ``wipeout``, ``round_limit`` or ``manual`` (the default); the final VP, blue first.
"""

from __future__ import annotations

from dataclasses import dataclass

from pmim_analytics.engine import rulings
from pmim_analytics.model.vocab import END_REASONS as GAME_END_REASONS
from pmim_analytics.replay.manual.notation import Reject, Tag, Token, parse_vp, tokenize
from pmim_analytics.replay.manual.state import UnitState
from pmim_analytics.rules.mechanics import round_limit_winner
from pmim_analytics.rules.scenario import Scenario

#: (round, winner, reason, line) of a win the log itself shows (a VP total or a wipeout).
Ended = tuple[int | None, str, str, int]


@dataclass(frozen=True)
class ResultLine:
    """The result tag, parsed: what it says and the tokens that said it."""

    winner: str | None
    reason: str
    vp: tuple[int, int] | None
    win_tok: Token
    reason_tok: Token  # the winner's token when no reason is written
    vp_tok: Token | None


def parse_result(tag: Tag) -> ResultLine:
    """Read ``result: blue vp 11-7``; raises :class:`Reject` at the token at fault."""
    toks = tokenize(tag.value.text, tag.line, tag.value.column - 1)
    if not toks:
        raise Reject(tag.key, "the result names no winner; e.g. 'result: blue vp 11-7'")
    win_tok, i = toks[0], 1
    word = win_tok.text.lower()
    if word not in ("blue", "red", "draw"):
        raise Reject(win_tok, f"the result starts with the winner, blue, red or draw, got {win_tok.text!r}")
    reason, reason_tok = "manual", win_tok
    if i < len(toks) and toks[i].text.lower() in GAME_END_REASONS:
        reason_tok, reason = toks[i], toks[i].text.lower()
        i += 1
    vp_tok = vp = None
    if i < len(toks):
        vp_tok = toks[i]
        vp = parse_vp(vp_tok.text)
        if vp is None:
            raise Reject(vp_tok, f"expected the reason ({', '.join(GAME_END_REASONS)}) or the final VP as "
                         f"BLUE-RED (e.g. 11-7), got {vp_tok.text!r}")
        i += 1
    if i < len(toks):
        raise Reject(toks[i], f"unexpected {toks[i].text!r} after the result's VP")
    return ResultLine(None if word == "draw" else word, reason, vp, win_tok, reason_tok, vp_tok)


def check_result(res: ResultLine, vp: tuple[int, int] | None, rounds: int | None, scenario: Scenario,
                 units: list[UnitState], ended: Ended | None) -> None:
    """Check a result by the engine's rule (:func:`~pmim_analytics.engine.rulings.result_refusal`)
    against the scenario and what the log shows, and word a refusal at the token at fault.

    ``vp`` are the final totals (typed, or from the last VP line). Raises :class:`Reject`.
    """
    winner, reason, win_tok, reason_tok = res.winner, res.reason, res.win_tok, res.reason_tok
    vp_tok = res.vp_tok or win_tok
    vp_text = vp_tok.text if res.vp_tok else f"{vp[0]}-{vp[1]}" if vp else ""
    living = (sum(1 for u in units if u.side == "blue" and not u.is_destroyed),
              sum(1 for u in units if u.side == "red" and not u.is_destroyed))
    n_obj = len(scenario.objectives.hexes)
    refused = rulings.result_refusal(scenario.victory, n_obj, winner, reason, vp, rounds, living,
                                     None if ended is None else (ended[1], ended[2]))
    if refused is None:
        return
    if refused == rulings.VP_IMPOSSIBLE:
        most, n_rounds = rulings.most_vp(n_obj, scenario.victory, rounds)
        raise Reject(vp_tok, f"VP {vp_text!r} are impossible: {n_obj} objectives give at most one VP each "
                     f"a round, {most} in {n_rounds} rounds")
    if refused == rulings.WINNER_WIPED_OUT:
        raise Reject(win_tok, f"{win_tok.text!r} cannot have won: the log destroys every {winner} unit")
    if refused == rulings.DRAW_WON:
        raise Reject(reason_tok, f"a draw cannot be won by {reason_tok.text!r}")
    if refused in (rulings.NOT_THE_SHOWN_WINNER, rulings.NOT_THE_SHOWN_END):
        assert ended is not None
        _, ewinner, ereason, line = ended
        if refused == rulings.NOT_THE_SHOWN_WINNER:
            raise Reject(win_tok, f"the log shows {ewinner} winning by {ereason} (line {line}), so the result "
                         f"names {ewinner}, not {win_tok.text!r}")
        raise Reject(win_tok, f"the log shows {ewinner} winning by {ereason} (line {line}), not "
                     f"{win_tok.text!r} by {reason}")
    if refused == rulings.VP_NEEDED:
        raise Reject(reason_tok, "a win on VP needs the final VP, e.g. 'result: blue vp 11-7'")
    if refused == rulings.VP_DISAGREE:
        raise Reject(vp_tok, f"VP totals {vp_text!r} are inconsistent with a {winner} win on VP, "
                     f"which needs more than {scenario.victory.vp_to_win} VP and more than the other side")
    if refused == rulings.NOT_WIPED_OUT:
        loser = "red" if winner == "blue" else "blue"
        left = " ".join(u.id for u in units if u.side == loser and not u.is_destroyed)
        raise Reject(reason_tok, f"{reason_tok.text!r} but {loser} is not wiped out in this log: "
                     f"{left} never destroyed")
    if refused == rulings.LIMIT_NOT_REACHED:
        raise Reject(reason_tok, f"{reason_tok.text!r} needs the game to last {scenario.victory.round_limit} "
                     f"rounds; the log has {rounds if rounds is not None else 'no round count'}")
    if refused == rulings.LIMIT_IS_DRAW:
        raise Reject(win_tok, f"{scenario.name} makes a game that reaches the round limit without a "
                     f"winner a draw, so {win_tok.text!r} cannot win by round_limit; write "
                     f"'result: draw round_limit'")
    assert refused == rulings.LIMIT_WINNER and vp is not None
    ahead = round_limit_winner(scenario.victory, vp[0], vp[1])
    raise Reject(vp_tok, f"at the round limit the side ahead on VP wins, and {vp_text!r} "
                 f"gives {ahead or 'a draw'}")
