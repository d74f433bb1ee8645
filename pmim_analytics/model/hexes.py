"""The hex type, its two notations, hex maths and the precomputed tables of one rectangular map.

Maps are written in offset coordinates ``(column, row)`` -- what a player reads off the
table and what replays store -- in the *odd-q* layout: flat-topped hexes in straight
columns, odd columns sitting half a hex lower. All maths (distance, neighbours) happens
on cube coordinates ``(q, r, s)`` with ``q + r + s == 0``, as in the Red Blob Games hex
guide, and the results for a whole map are tabulated once in :class:`HexGrid` so the
engine's hot paths do list look-ups instead of arithmetic.
"""

from __future__ import annotations

import re
from functools import cache
from typing import NamedTuple

from pmim_analytics.errors import PmimError

Cube = tuple[int, int, int]

#: The six cube directions, clockwise from north.
CUBE_DIRECTIONS: tuple[Cube, ...] = ((0, -1, 1), (1, -1, 0), (1, 0, -1), (0, 1, -1), (-1, 1, 0), (-1, 0, 1))

_HEX_TEXT = re.compile(r"^\s*\(?\s*(-?\d+)\s*[,\s]\s*(-?\d+)\s*\)?\s*$")
_HEX_COMPACT = re.compile(r"^(\d\d)(\d\d)$")


class Hex(NamedTuple):
    """One hex in offset coordinates: ``Hex(col, row)``.

    Two notations: ``"col,row"`` (:meth:`parse` / :meth:`format`, the CLI's and the
    engine's messages) and the four digits printed on a hex map, column then row
    (``"0412"``, :meth:`parse_compact` / :meth:`format_compact`, the manual logs').

    A named tuple, so it is immutable, compares and hashes by value, equals the plain
    ``(col, row)`` tuples replays store, and its ``repr`` rebuilds it.
    """

    col: int
    row: int

    @classmethod
    def parse(cls, text: str) -> Hex:
        """Read ``"5,6"`` (also ``"5 6"`` or ``"(5, 6)"``); raise :class:`PmimError` otherwise."""
        m = _HEX_TEXT.match(text)
        if not m:
            raise PmimError(f"{text!r} is not a hex; write it as column,row (for example 5,6)")
        return cls(int(m.group(1)), int(m.group(2)))

    def format(self) -> str:
        """The notation ``"col,row"`` that :meth:`parse` reads back."""
        return f"{self.col},{self.row}"

    def __str__(self) -> str:
        return self.format()

    @classmethod
    def parse_compact(cls, text: str) -> Hex | None:
        """Read the four-digit map notation ``"0412"`` (column 4, row 12); ``None`` if it is not one."""
        m = _HEX_COMPACT.match(text)
        return cls(int(m.group(1)), int(m.group(2))) if m else None

    def format_compact(self) -> str:
        """The four-digit map notation ``"0412"`` that :meth:`parse_compact` reads back."""
        return f"{self.col:02d}{self.row:02d}"

    def to_cube(self) -> Cube:
        """Cube coordinates of this hex (odd-q offset layout)."""
        q = self.col
        r = self.row - (self.col - (self.col & 1)) // 2
        return (q, r, -q - r)

    @classmethod
    def from_cube(cls, cube: Cube) -> Hex:
        """The offset hex at cube coordinates ``(q, r, s)``; raises ``ValueError`` if q+r+s != 0."""
        q, r, s = cube
        if q + r + s != 0:
            raise ValueError(f"cube coordinates must sum to 0, got {cube!r}")
        return cls(q, r + (q - (q & 1)) // 2)

    def distance(self, other: tuple[int, int]) -> int:
        """Hex distance (number of steps) to another hex."""
        return cube_distance(self.to_cube(), Hex(*other).to_cube())

    def neighbours(self) -> tuple[Hex, ...]:
        """The six adjacent hexes (some may lie off a map)."""
        q, r, s = self.to_cube()
        return tuple(Hex.from_cube((q + dq, r + dr, s + ds)) for dq, dr, ds in CUBE_DIRECTIONS)


def cube_distance(a: Cube, b: Cube) -> int:
    """Distance between two cube coordinates."""
    return max(abs(a[0] - b[0]), abs(a[1] - b[1]), abs(a[2] - b[2]))


class HexGrid:
    """A ``columns`` x ``rows`` odd-q map with every distance and neighbour precomputed.

    Hexes are numbered ``index = row * columns + col``. Tables (read-only by convention):

    * ``hexes[i]``: the :class:`Hex` at index ``i``;
    * ``dist[i][j]``: hex distance between indices ``i`` and ``j``;
    * ``neighbours[i]``: indices of the on-map neighbours of ``i``;
    * ``within(i, k)``: indices at distance 1..k from ``i``, nearest first.
    """

    def __init__(self, columns: int, rows: int) -> None:
        self.columns = columns
        self.rows = rows
        self.size = columns * rows
        self.hexes: tuple[Hex, ...] = tuple(Hex(i % columns, i // columns) for i in range(self.size))
        # cube_distance written out over (q, r): s = -q - r, so |s_a - s_b| = |dq + dr|
        # (a 20 x 14 map has 78,400 pairs; a call per pair cost a fifth of a second)
        qr = [h.to_cube()[:2] for h in self.hexes]
        self.dist: tuple[tuple[int, ...], ...] = tuple(
            tuple(max(abs(aq - bq), abs(ar - br), abs(aq - bq + ar - br)) for bq, br in qr) for aq, ar in qr
        )
        self.neighbours: tuple[tuple[int, ...], ...] = tuple(
            tuple(self.index(n) for n in h.neighbours() if self.contains(n)) for h in self.hexes
        )
        self._within: dict[tuple[int, int], tuple[int, ...]] = {}

    def contains(self, h: tuple[int, int]) -> bool:
        """True when ``(col, row)`` lies on the map."""
        return 0 <= h[0] < self.columns and 0 <= h[1] < self.rows

    def index(self, h: tuple[int, int]) -> int:
        """Index of an on-map hex; raises ``ValueError`` off the map."""
        if not self.contains(h):
            raise ValueError(f"hex {h[0]},{h[1]} lies off the {self.columns}x{self.rows} map")
        return h[1] * self.columns + h[0]

    def within(self, i: int, k: int) -> tuple[int, ...]:
        """Indices at distance 1..k from index ``i``, sorted by distance then index (cached)."""
        key = (i, k)
        found = self._within.get(key)
        if found is None:
            row = self.dist[i]
            found = tuple(sorted((j for j in range(self.size) if 0 < row[j] <= k), key=lambda j: (row[j], j)))
            self._within[key] = found
        return found

    def rotate_half_turn(self, h: tuple[int, int]) -> Hex:
        """The hex a half-turn of the map puts in place of ``h``: ``(C-1-c, R-1-r)``."""
        return Hex(self.columns - 1 - h[0], self.rows - 1 - h[1])


@cache
def grid_for(columns: int, rows: int) -> HexGrid:
    """The (shared, cached) grid of a map size."""
    return HexGrid(columns, rows)
