"""The verdict words of the reports, what each means, and the multiple-testing adjustment behind them.

A verdict word is the outcome of a test, not of a look at two intervals: each row of a report
asks one question (does this matchup's score differ between bot levels? does this rules
change move this list?), and a report asks it of many rows at once. With 24 unit types, 4
metrics and several rules ids, a 5% test per row flags about one row in twenty by chance
alone. The p-values of one report are therefore adjusted together with Benjamini-Hochberg
(:func:`bh_adjust`), and a row is flagged when its adjusted value (its *q*) is at most
:data:`FDR` = 0.05. The family is the rows of the report as shown (every row that was
tested), and its size is printed beside the table.

Why Benjamini-Hochberg rather than Holm: a designer reads the flags as a to-do list, where a
few false leads among many true ones are acceptable but missing real effects is costly.
BH bounds the expected share of false flags among the flags at 5%; Holm bounds the chance
of any false flag at all, which with a hundred rows makes every single test very strict and
hides most real effects. Under the null (nothing differs) the two coincide: at most 5% of
reports show any flag.
"""

from __future__ import annotations

from collections.abc import Sequence

#: The false discovery rate a report's flags are controlled at.
FDR = 0.05

#: Every verdict word the reports print, with its meaning.
LEGEND: dict[str, str] = {
    "flips": "the strongest bot level favours the other side than a weaker level, and the difference of scores "
             "is significant (two-proportion test, BH-adjusted)",
    "vanishes": "a weaker level favours one side, the strongest level is even, and the difference is significant",
    "shrinks": "both levels favour the same side, the edge is smaller at the strongest level, and the difference "
               "is significant",
    "grows": "both levels favour the same side and the edge is significantly larger at the strongest level",
    "emerges": "only the strongest level favours a side, significantly more than a weaker level",
    "unconfirmed": "a weaker level favours a side, the strongest is even, but the difference is not significant: "
                   "more games at the strongest level would tell",
    "holds": "no significant difference between the levels",
    "one level": "only one bot level has enough games: nothing to compare",
    "bot-dependent": "flips, vanishes or shrinks: do not reprice on it before stronger bots confirm it",
    "significant": "the change's test rejects no change after BH adjustment across the report's rows",
}


def bh_adjust(pvalues: Sequence[float | None]) -> list[float | None]:
    """Benjamini-Hochberg adjusted p-values (q-values), in the input order; ``None`` stays
    ``None`` and is not counted in the family.

    Example: ``bh_adjust([0.01, 0.04, 0.03])`` is ``[0.03, 0.04, 0.04]``.
    """
    present = {i: p for i, p in enumerate(pvalues) if p is not None}
    idx = list(present)
    m = len(idx)
    out: list[float | None] = [None] * len(pvalues)
    if not m:
        return out
    order = sorted(idx, key=present.__getitem__)
    running = 1.0
    for rank in range(m, 0, -1):
        i = order[rank - 1]
        p = pvalues[i]
        assert p is not None
        running = min(running, p * m / rank)
        out[i] = min(1.0, running)
    return out


def family_note(tested: int, what: str = "rows") -> str:
    """``Flags: Benjamini-Hochberg over 36 rows, q <= 0.05``: the line printed beside a flagged table."""
    return f"Flags: tests adjusted with Benjamini-Hochberg over {tested} {what} (false discovery rate {FDR:.0%})."


def legend_lines(words: Sequence[str] | None = None) -> list[str]:
    """``word: meaning`` for ``words`` (every word when ``None``), in :data:`LEGEND` order."""
    chosen = [w for w in LEGEND if words is None or w in words]
    return [f"{w}: {LEGEND[w]}" for w in chosen]


__all__ = ["FDR", "LEGEND", "bh_adjust", "family_note", "legend_lines"]
