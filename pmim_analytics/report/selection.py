"""The dashboard's filter selection in words: what a page or an exported file rests on.

The Export page puts :func:`selection_lines` at the top of the page and of ``report.md``,
so a file read later says which rules versions, source and composition it was made from,
and the dashboard address (query parameters) that opens the same view.
"""

from __future__ import annotations

from collections.abc import Sequence
from urllib.parse import urlencode

from pmim_analytics.analytics.dataset import Provenance


def selection_query(rules_ids: Sequence[str] | None, source: str | None, composition: str | None) -> str:
    """The dashboard's query string for a selection (``rules=v3,v3-llaser-rpt4&source=engine``)."""
    params = {"rules": ",".join(rules_ids) if rules_ids else None, "source": source, "composition": composition}
    return urlencode({k: v for k, v in params.items() if v})


def selection_lines(rules_ids: Sequence[str] | None, source: str | None, composition: str | None,
                    provenance: Provenance, composition_applies: bool = False) -> list[str]:
    """Markdown lines naming the selection: rules ids, source, composition, games, address.

    ``composition_applies`` says whether the output is narrowed to the composition (an
    export is not: it covers every composition of the other filters, and says so).
    """
    rules = ", ".join(rules_ids) if rules_ids else f"all ({', '.join(provenance.rules_ids) or 'none'})"
    comp = "all compositions"
    if composition:
        comp = (f"only games with {composition}" if composition_applies
                else f"all compositions (the filter {composition!r} narrows the dashboard's lists, not this export)")
    query = selection_query(rules_ids, source, composition)
    return [
        f"**Selection**: rules {rules}; source {source or 'engine and manual'}; {comp}.",
        f"**Games**: {provenance.caption()}.",
        f"**Dashboard view**: `?{query}`" if query else "**Dashboard view**: the default (no filters).",
    ]


def head_markdown_files(files: dict[str, bytes], lines: list[str]) -> dict[str, bytes]:
    """The export's files with the selection ``lines`` at the top of every top-level Markdown file."""
    head = "\n".join(["<!-- the dashboard selection this export was made from -->", *(f"{x}  " for x in lines),
                      "", ""]).encode("utf-8")
    return {name: head + data if name.endswith(".md") and "/" not in name else data for name, data in files.items()}
