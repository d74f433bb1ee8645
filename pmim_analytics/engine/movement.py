"""Where a unit can walk: the movement rule, for the game state and the manual-log reader alike.

A unit walks up to MOV hexes, one step at a time to a neighbouring hex; it may pass through
hexes held by friendly units but not through enemy units or impassable terrain, and the
length of a move is the shortest such path.
"""

from __future__ import annotations

from collections.abc import Container

from pmim_analytics.model.hexes import HexGrid


def walk_lengths(grid: HexGrid, start: int, mov: int, impassable: bytes | bytearray,
                 enemy_at: Container[int]) -> dict[int, int]:
    """Every hex index reachable from ``start`` in at most ``mov`` steps, with the fewest steps
    (``start`` itself at 0). Hexes in ``enemy_at`` and impassable hexes are never entered."""
    nbrs = grid.neighbours
    seen = {start: 0}
    frontier = [start]
    for step in range(1, mov + 1):
        nxt = []
        for h in frontier:
            for n in nbrs[h]:
                if n in seen or impassable[n] or n in enemy_at:
                    continue
                seen[n] = step
                nxt.append(n)
        frontier = nxt
    return seen
