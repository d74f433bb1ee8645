"""The manual-log notation's syntax: lines into tokens, tokens into statements.

Nothing here knows the rules or the armies; :mod:`.builder` checks statements against
them. Every statement keeps the tokens it came from, so a later error can point at the
exact line and column. The notation itself is described in ``docs/manual-logs.md``.

A line is one of

* blank or a comment (``#`` to the end of the line is always a comment);
* a tag, ``key: value`` (``rules: v3``, ``blue army: ../armies/v3-balanced.yaml``);
* a body line: an optional round marker (``R3``, ``R0``, ``R?``) then a statement:
  ``B:GE1 deploy 0412``, ``B:GE1 move 0409``, ``B:GE1 rush 0406`` (under the optional rushing
  rule), ``B:TW1 MAC>R:TY3 9 hit LT 3``,
  ``R:TY3 destroyed by B:TW1``, ``B:TW1 LA destroyed``, ``vp 5-3``, ``initiative 5-3``
  (under the optional rolled-initiative rule), ``B:GR1 MAC overheat 1 RA(2) 6`` (under the
  optional heat rule).
  A round marker holds for the following lines until the next one.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from pmim_analytics.errors import Location, ReplayError
from pmim_analytics.model.vocab import LOCATION_CODES

Hex = tuple[int, int]

COMMENT = "#"
#: Tag keys are words and spaces before a colon that is followed by a blank (unit ids
#: such as ``B:TW1`` have no blank after their colon).
_TAG_RE = re.compile(r"^(\s*)([A-Za-z][A-Za-z ]*[A-Za-z])(\s*):(?=\s|$)")
_TOKEN_RE = re.compile(r">|[^\s>]+")
_ROUND_RE = re.compile(r"^[Rr](\d+|\?)$")
_UNIT_RE = re.compile(r"^([BRbr]):([A-Za-z]+\d+)$")
_HEX_RE = re.compile(r"^(\d\d)(\d\d)$")
_MOVE_RE = re.compile(r"^(\d{4})(?:-(\d{4}))?$")
_TOTAL_RE = re.compile(r"^\d{1,2}$")
_DICE_RE = re.compile(r"^(\d)\+(\d)$")
_LOC_RE = re.compile(r"^([A-Za-z]{2})(?:\((\d(?:,\d)*)\))?$")
_VP_RE = re.compile(r"^(\d+)-(\d+)$")
_WEAPON_RE = re.compile(r"^([A-Za-z][A-Za-z0-9]*)(?:/([A-Za-z]{2,4}))?$")

LOCATIONS = frozenset(LOCATION_CODES.values())
MARKERS = {"destroyed": "destroyed", "immobilized": "immobilized", "immobilised": "immobilized",
           "disarmed": "disarmed"}


@dataclass(frozen=True, slots=True)
class Token:
    """A piece of a line: its text and where it starts (1-based line and column)."""

    text: str
    line: int
    column: int


@dataclass(frozen=True, slots=True)
class Tag:
    """``key: value``. ``name`` is the key lower-cased with single spaces."""

    line: int
    key: Token
    value: Token  # the whole rest of the line (stripped); text may be empty

    @property
    def name(self) -> str:
        """The key, normalised: ``Blue  Army`` -> ``blue army``."""
        return " ".join(self.key.text.lower().split())


@dataclass(frozen=True, slots=True)
class Body:
    """What every body statement shares: its line, its round and the marker's token."""

    line: int
    round: int | None
    round_tok: Token | None


@dataclass(frozen=True, slots=True)
class RoundMark(Body):
    """A line holding only a round marker (``R3``): it sets the round of what follows."""


@dataclass(frozen=True, slots=True)
class DeployStmt(Body):
    """``B:GE1 deploy 0412``."""

    unit: Token
    hex: Hex
    hex_tok: Token


@dataclass(frozen=True, slots=True)
class MoveStmt(Body):
    """``B:GE1 move``, ``B:GE1 move 0412`` or ``B:GE1 move 0409-0412``; with ``rush`` the verb
    was ``rush`` (the optional rushing rule: farther, and no attacks in that activation)."""

    unit: Token
    from_hex: Hex | None
    to_hex: Hex | None
    hex_tok: Token | None
    rush: bool = False


@dataclass(frozen=True, slots=True)
class HoldStmt(Body):
    """``B:GE1 hold``: the unit activates and does nothing (it neither moves nor attacks)."""

    unit: Token


@dataclass(frozen=True, slots=True)
class AttackStmt(Body):
    """``B:TW1 MAC>R:TY3 [roll] hit|miss [location[(dice)]] [damage]``."""

    unit: Token
    weapon: Token  # the acronym as typed, without the /MOUNT suffix
    mount: str | None
    target: Token
    roll_tok: Token | None
    total: int | None
    dice: tuple[int, int] | None
    hit: bool
    hit_tok: Token
    location: str | None
    location_rolls: tuple[int, ...]
    location_tok: Token | None
    damage: int | None
    damage_tok: Token | None


@dataclass(frozen=True, slots=True)
class OverheatStmt(Body):
    """``B:PA1 HAC overheat 4`` or ``B:PA1 HAC overheat 1 RA(4) 6``: the overheat d6 after an attack
    (optional heat rule); when the weapon overheats, where its hit on its own Warmech went."""

    unit: Token
    weapon: Token
    mount: str | None
    roll_tok: Token
    result: int
    location: str | None
    location_rolls: tuple[int, ...]
    location_tok: Token | None
    damage: int | None
    damage_tok: Token | None


@dataclass(frozen=True, slots=True)
class MarkerStmt(Body):
    """``R:TY3 destroyed [by B:TW1]``, ``B:TW1 LA destroyed``, ``B:TW1 immobilized``."""

    unit: Token
    kind: str  # destroyed | immobilized | disarmed
    location: str | None
    location_tok: Token | None
    kind_tok: Token
    by: Token | None


@dataclass(frozen=True, slots=True)
class VPStmt(Body):
    """``vp 5-3``: both sides' VP totals (blue first) after the round's scoring."""

    blue: int
    red: int
    vp_tok: Token


@dataclass(frozen=True, slots=True)
class InitiativeStmt(Body):
    """``initiative 5-3``: the round's initiative dice (optional rule), blue's first."""

    blue: int
    red: int
    dice_tok: Token


Statement = (Tag | RoundMark | DeployStmt | MoveStmt | HoldStmt | AttackStmt | OverheatStmt | MarkerStmt | VPStmt
             | InitiativeStmt)
ErrorHook = Callable[[ReplayError], None]


def tokenize(text: str, line: int, start: int = 0) -> list[Token]:
    """Split ``text`` (a line without its comment) into tokens; ``>`` is a token of its own."""
    return [Token(m.group(), line, start + m.start() + 1) for m in _TOKEN_RE.finditer(text)]


def strip_comment(text: str) -> str:
    """The line without its ``#`` comment and trailing blanks (and line ending)."""
    cut = text.find(COMMENT)
    return (text if cut < 0 else text[:cut]).rstrip()


#: Characters a free-text tag value (a name, a player, the notes) cannot hold as typed: line
#: breaks of any kind (``str.splitlines`` splits at each), other control characters, and the
#: comment sign.
_UNSAFE_VALUE_RE = re.compile("[\x00-\x1f\x7f\x85\u2028\u2029#]")
_QUOTE_ESCAPES = {"#": "\\u0023", "\x85": "\\u0085", "\u2028": "\\u2028", "\u2029": "\\u2029", "\x7f": "\\u007f"}


def quote_value(text: str) -> str:
    """A free-text tag value as a log line holds it: as it is, or, when it has a line break,
    a control character, a ``#``, blanks at either end or a leading ``"``, as a JSON string
    (``"..."``) with those characters escaped, so no value can start a line of its own."""
    if text and text == text.strip() and not text.startswith('"') and not _UNSAFE_VALUE_RE.search(text):
        return text
    quoted = json.dumps(text, ensure_ascii=False)
    return "".join(_QUOTE_ESCAPES.get(c, c) for c in quoted)


def unquote_value(tok: Token, source: str) -> str:
    """The text of a free-text tag value written by :func:`quote_value`. Raises
    :class:`ReplayError` for a quoted value that is not a valid JSON string."""
    text = tok.text
    if len(text) < 2 or not (text.startswith('"') and text.endswith('"')):
        return text
    try:
        value = json.loads(text)
    except ValueError:
        value = None
    if not isinstance(value, str):
        raise ReplayError(f"{text[:40]!r} starts and ends with a quote but is not a quoted text "
                          "(write it without the quotes, or escape it as JSON)", Location(source, tok.line, tok.column))
    return value


def parse_tag(text: str, line: int) -> Tag | None:
    """Return the tag on this (comment-free) line, or ``None`` when it is not a tag line."""
    m = _TAG_RE.match(text)
    if m is None:
        return None
    key = Token(m.group(2), line, len(m.group(1)) + 1)
    rest = text[m.end():]
    stripped = rest.lstrip()
    col = m.end() + (len(rest) - len(stripped)) + 1
    return Tag(line, key, Token(stripped.rstrip(), line, col))


def parse_unit_id(tok: Token) -> str | None:
    """The canonical unit id (``B:TW1``) of a token, or ``None`` if it is not one."""
    m = _UNIT_RE.match(tok.text)
    return f"{m.group(1).upper()}:{m.group(2).upper()}" if m else None


def parse_hex(text: str) -> Hex | None:
    """``0412`` -> ``(4, 12)``: two digits of column then two of row; ``None`` otherwise."""
    m = _HEX_RE.match(text)
    return (int(m.group(1)), int(m.group(2))) if m else None


def format_hex(h: Hex) -> str:
    """``(4, 12)`` -> ``0412``."""
    return f"{h[0]:02d}{h[1]:02d}"


def parse_vp(text: str) -> tuple[int, int] | None:
    """``11-7`` -> ``(11, 7)`` (blue first); ``None`` otherwise."""
    m = _VP_RE.match(text)
    return (int(m.group(1)), int(m.group(2))) if m else None


class Reject(Exception):
    """A statement refused, by the notation or the rules: the token at fault and why."""

    def __init__(self, tok: Token | None, message: str) -> None:
        super().__init__(message)
        self.tok = tok
        self.message = message


def _expect(toks: list[Token], i: int, what: str, after: Token) -> Token:
    if i >= len(toks):
        raise Reject(after, f"expected {what} after {after.text!r}, but the line ends")
    return toks[i]


def _round(tok: Token) -> int | None:
    m = _ROUND_RE.match(tok.text)
    assert m is not None
    return None if m.group(1) == "?" else int(m.group(1))


def _parse_by(toks: list[Token], i: int) -> tuple[Token | None, int]:
    if i < len(toks) and toks[i].text.lower() == "by":
        by = _expect(toks, i + 1, "the unit id of the attacker", toks[i])
        if parse_unit_id(by) is None:
            raise Reject(by, f"expected a unit id such as 'B:TW1' after 'by', got {by.text!r}")
        return by, i + 2
    return None, i


def _parse_attack(head: Body, unit: Token, toks: list[Token]) -> AttackStmt:
    # toks: weapon '>' target rest...
    wtok = toks[0]
    weapon, mount = _parse_weapon(wtok)
    gt = _expect(toks, 1, "'>' and the target", wtok)
    if gt.text != ">":
        raise Reject(gt, f"expected '>' between the weapon and the target, got {gt.text!r}")
    target = _expect(toks, 2, "the target's unit id", gt)
    if parse_unit_id(target) is None:
        raise Reject(target, f"expected the target's unit id such as 'R:TY3', got {target.text!r}")
    i = 3
    roll_tok = total = dice = None
    if i < len(toks) and (_TOTAL_RE.match(toks[i].text) or _DICE_RE.match(toks[i].text)):
        roll_tok = toks[i]
        dm = _DICE_RE.match(roll_tok.text)
        if dm:
            dice = (int(dm.group(1)), int(dm.group(2)))
            if not all(1 <= d <= 6 for d in dice):
                raise Reject(roll_tok, f"each die of a roll is 1 to 6, got {roll_tok.text!r}")
            total = sum(dice)
        else:
            total = int(roll_tok.text)
            if not 2 <= total <= 12:
                raise Reject(roll_tok, f"a 2d6 roll totals 2 to 12, got {roll_tok.text!r}")
        i += 1
    prev = roll_tok or target
    hit_tok = _expect(toks, i, "'hit' or 'miss'", prev)
    word = hit_tok.text.lower()
    if word not in ("hit", "miss"):
        raise Reject(hit_tok, f"expected 'hit' or 'miss' after {prev.text!r}, got {hit_tok.text!r}")
    i += 1
    location, location_rolls, location_tok, damage, damage_tok = _parse_hit_tail(
        toks, i, "an attack (… hit|miss [location] [damage])")
    return AttackStmt(head.line, head.round, head.round_tok, unit, weapon, mount, target, roll_tok, total, dice,
                      word == "hit", hit_tok, location, location_rolls, location_tok, damage, damage_tok)


def _parse_hit_tail(toks: list[Token], i: int, what: str
                    ) -> tuple[str | None, tuple[int, ...], Token | None, int | None, Token | None]:
    """``[LOCATION[(DICE)]] [DAMAGE]`` from ``toks[i]`` to the end of the line: (location, its dice,
    its token, damage, its token); ``what`` names the line for an unexpected token."""
    location = location_tok = damage = damage_tok = None
    location_rolls: tuple[int, ...] = ()
    if i < len(toks) and _LOC_RE.match(toks[i].text) and not toks[i].text.isdigit():
        location_tok = toks[i]
        lm = _LOC_RE.match(location_tok.text)
        assert lm is not None
        location = lm.group(1).upper()
        if location not in LOCATIONS:
            raise Reject(location_tok, f"unknown hit location {location_tok.text!r}; use one of "
                          f"{' '.join(sorted(LOCATIONS))}")
        if lm.group(2):
            location_rolls = tuple(int(d) for d in lm.group(2).split(","))
            if not all(1 <= d <= 6 for d in location_rolls):
                raise Reject(location_tok, f"hit-location dice are 1 to 6, got {location_tok.text!r}")
        i += 1
    if i < len(toks) and toks[i].text.isdigit():
        damage_tok = toks[i]
        damage = int(damage_tok.text)
        i += 1
    if i < len(toks):
        t = toks[i]
        raise Reject(t, f"unexpected {t.text!r} at the end of {what}")
    return location, location_rolls, location_tok, damage, damage_tok


def _parse_weapon(wtok: Token) -> tuple[Token, str | None]:
    """``MAC`` or ``ML/LA`` -> (the acronym's token, the mount or ``None``)."""
    wm = _WEAPON_RE.match(wtok.text)
    if wm is None:
        raise Reject(wtok, f"expected a weapon acronym such as 'MAC', got {wtok.text!r}")
    return Token(wm.group(1), wtok.line, wtok.column), (wm.group(2).upper() if wm.group(2) else None)


def _parse_overheat(head: Body, unit: Token, toks: list[Token]) -> OverheatStmt:
    # toks: weapon 'overheat' d6 [location[(dice)]] [damage]
    weapon, mount = _parse_weapon(toks[0])
    roll_tok = _expect(toks, 2, "the overheat roll (a d6, 1 to 6)", toks[1])
    if not roll_tok.text.isdigit() or not 1 <= int(roll_tok.text) <= 6:
        raise Reject(roll_tok, f"the overheat roll is one d6, 1 to 6, got {roll_tok.text!r}")
    location, location_rolls, location_tok, damage, damage_tok = _parse_hit_tail(
        toks, 3, "an overheat roll (… overheat D6 [location] [damage])")
    return OverheatStmt(head.line, head.round, head.round_tok, unit, weapon, mount, roll_tok, int(roll_tok.text),
                        location, location_rolls, location_tok, damage, damage_tok)


def _parse_action(head: Body, unit: Token, toks: list[Token]) -> Statement:
    verb = toks[0]
    low = verb.text.lower()
    rest = toks[1:]
    if low == "deploy":
        h = _expect(toks, 1, "the hex to deploy in (e.g. 0412)", verb)
        hx = parse_hex(h.text)
        if hx is None:
            raise Reject(h, f"expected a hex as four digits, column then row (e.g. 0412), got {h.text!r}")
        if len(rest) > 1:
            raise Reject(rest[1], f"unexpected {rest[1].text!r} after the deployment hex")
        return DeployStmt(head.line, head.round, head.round_tok, unit, hx, h)
    if low in ("move", "rush"):
        rush = low == "rush"
        if not rest:
            return MoveStmt(head.line, head.round, head.round_tok, unit, None, None, None, rush)
        h = rest[0]
        m = _MOVE_RE.match(h.text)
        if m is None:
            raise Reject(h, f"expected the hex {'rushed' if rush else 'moved'} to (0412) or from-to (0409-0412), "
                         f"got {h.text!r}")
        if len(rest) > 1:
            raise Reject(rest[1], f"unexpected {rest[1].text!r} after the {low}'s hexes")
        if m.group(2):
            return MoveStmt(head.line, head.round, head.round_tok, unit, parse_hex(m.group(1)),
                            parse_hex(m.group(2)), h, rush)
        return MoveStmt(head.line, head.round, head.round_tok, unit, None, parse_hex(m.group(1)), h, rush)
    if low == "hold":
        if rest:
            raise Reject(rest[0], f"unexpected {rest[0].text!r} after 'hold' (a unit that holds does nothing)")
        return HoldStmt(head.line, head.round, head.round_tok, unit)
    if low in MARKERS:
        by, i = _parse_by(toks, 1)
        if i < len(toks):
            raise Reject(toks[i], f"unexpected {toks[i].text!r} after {verb.text!r} (only 'by UNIT' may follow)")
        return MarkerStmt(head.line, head.round, head.round_tok, unit, MARKERS[low], None, None, verb, by)
    if verb.text.upper() in LOCATIONS and len(toks) > 1 and toks[1].text.lower() == "destroyed":
        by, i = _parse_by(toks, 2)
        if i < len(toks):
            raise Reject(toks[i], f"unexpected {toks[i].text!r} after 'destroyed' (only 'by UNIT' may follow)")
        return MarkerStmt(head.line, head.round, head.round_tok, unit, "destroyed", verb.text.upper(), verb,
                          toks[1], by)
    if len(toks) > 1 and toks[1].text == ">":
        return _parse_attack(head, unit, toks)
    if len(toks) > 1 and toks[1].text.lower() == "overheat":
        return _parse_overheat(head, unit, toks)
    raise Reject(verb, f"expected deploy, move, rush, hold, an attack (WEAPON>TARGET), an overheat roll "
                  f"(WEAPON overheat D6), a location or 'destroyed' after the unit id, got {verb.text!r}")


#: Lines of a keyword and a blue-red pair of numbers: what the pair is, and the statement.
_PAIR_LINES: dict[str, tuple[str, type[VPStmt] | type[InitiativeStmt]]] = {
    "vp": ("VP totals", VPStmt), "initiative": ("initiative dice", InitiativeStmt)}


def parse_body(toks: list[Token], line: int, current_round: int | None,
               round_tok: Token | None) -> Statement:
    """Parse one body line's tokens (comment already removed).

    ``current_round`` is the round in force from an earlier marker. Raises
    :class:`Reject` with the offending token.
    """
    i = 0
    if _ROUND_RE.match(toks[0].text):
        round_tok = toks[0]
        current_round = _round(round_tok)
        i = 1
    head = Body(line, current_round, round_tok)
    if i == len(toks):
        return RoundMark(line, current_round, round_tok)
    first = toks[i]
    word = first.text.lower()
    if word in _PAIR_LINES:
        what, cls = _PAIR_LINES[word]
        v = _expect(toks, i + 1, f"the {what}, blue's first (e.g. 5-3)", first)
        pair = parse_vp(v.text)
        if pair is None:
            raise Reject(v, f"expected the {what} as BLUE-RED (e.g. 5-3), got {v.text!r}")
        if i + 2 < len(toks):
            raise Reject(toks[i + 2], f"unexpected {toks[i + 2].text!r} after the {what}")
        return cls(line, current_round, round_tok, pair[0], pair[1], v)
    if parse_unit_id(first) is None:
        raise Reject(first, f"expected a round (R3), a unit id (B:TW1), 'vp', 'initiative' or a tag (key: value), "
                      f"got {first.text!r}")
    if i + 1 == len(toks):
        raise Reject(first, f"expected an action after the unit id {first.text!r}, but the line ends")
    return _parse_action(head, first, toks[i + 1:])


def iter_statements(text: str, source: str, on_error: ErrorHook) -> Iterator[Statement]:
    """Yield every tag and body statement of a log, in line order.

    A line with a syntax error is reported through ``on_error`` (a :class:`ReplayError`
    naming ``source``, the line, the column and the token) and skipped; a round marker on
    it still holds for the following lines.
    """
    current_round: int | None = None
    round_tok: Token | None = None
    for n, raw in enumerate(text.splitlines(), start=1):
        body = strip_comment(raw)
        if not body.strip():
            continue
        tag = parse_tag(body, n)
        if tag is not None:
            yield tag
            continue
        toks = tokenize(body, n)
        try:
            stmt = parse_body(toks, n, current_round, round_tok)
        except Reject as e:
            if _ROUND_RE.match(toks[0].text):
                current_round, round_tok = _round(toks[0]), toks[0]
            tok = e.tok or toks[0]
            on_error(ReplayError(e.message, Location(source, tok.line, tok.column)))
            continue
        assert isinstance(stmt, Body)  # a body line never parses as a tag
        current_round, round_tok = stmt.round, stmt.round_tok
        yield stmt
