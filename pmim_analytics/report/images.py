"""Figures as PNG files (Plotly's static export, rendered locally by Chromium) and the export
as one self-contained HTML page (plotly.js embedded, no network needed to open it).

Kaleido 1.x drives a headless Chrome or Chromium. We point it at Debian's ``/usr/bin/chromium``
(``scripts/ensure-chromium.sh`` installs it) unless ``BROWSER_PATH`` names another; it needs no
network: plotly.js comes from the plotly package.
"""

from __future__ import annotations

import html
import os
import re
from collections.abc import Mapping
from pathlib import Path

import plotly.graph_objects as go
import plotly.io as pio
from plotly.offline import get_plotlyjs

from pmim_analytics.errors import PmimError

#: Width of a PNG figure in pixels (a blog column at 2x would be about this).
PNG_WIDTH = 1000
#: Height when a figure does not set its own.
PNG_HEIGHT = 520
DEBIAN_CHROMIUM = Path("/usr/bin/chromium")


class FigureExportError(PmimError):
    """The figures could not be rendered (no browser to render them with)."""


def _use_debian_chromium() -> None:
    if "BROWSER_PATH" not in os.environ and DEBIAN_CHROMIUM.exists():
        os.environ["BROWSER_PATH"] = str(DEBIAN_CHROMIUM)


def write_pngs(figs: Mapping[str, go.Figure], folder: Path) -> dict[str, Path]:
    """Render every figure to ``folder/<name>.png`` with one browser; returns the paths by name.

    Raises :class:`FigureExportError` when no Chrome or Chromium can render them.
    """
    if not figs:
        return {}
    _use_debian_chromium()
    folder.mkdir(parents=True, exist_ok=True)
    paths = {name: folder / f"{name}.png" for name in figs}
    for path in paths.values():
        path.unlink(missing_ok=True)  # so a file left by an earlier export is never taken for a new one
    _render(figs, paths)
    # Kaleido renders each figure in its own browser tab and, when one tab fails or times out (a
    # busy machine), drops that file and returns without raising; render what is missing once
    # more, then say which figures could not be made.
    missing = {name: fig for name, fig in figs.items() if not _written(paths[name])}
    if missing:
        _render(missing, {name: paths[name] for name in missing})
        still = [name for name in missing if not _written(paths[name])]
        if still:
            raise FigureExportError(
                f"could not render the PNG figure(s) {', '.join(still)} after a second try (the browser "
                "gave no image); run the export again, or export without them (--no-png)")
    return paths


def _written(path: Path) -> bool:
    return path.is_file() and path.stat().st_size > 0


def _render(figs: Mapping[str, go.Figure], paths: Mapping[str, Path]) -> None:
    heights = [int(figs[name].layout.height or PNG_HEIGHT) for name in figs]
    try:
        pio.write_images(list(figs.values()), [paths[name] for name in figs], format="png",
                         width=PNG_WIDTH, height=heights)
    except (KeyboardInterrupt, PmimError):
        raise
    except Exception as e:  # kaleido and choreographer raise their own kinds for a missing or failing browser
        detail = (str(e).splitlines() or ["no detail"])[0]
        raise FigureExportError(
            f"could not render the PNG figures ({type(e).__name__}: {detail}); install Debian's chromium "
            "(scripts/ensure-chromium.sh) or set BROWSER_PATH to a Chrome, or export without them (--no-png)"
            ) from None


_IMG = re.compile(r'<img src="(?P<src>[^"]+)" alt="(?P<alt>[^"]*)"\s*/?>')
_STYLE = """
body { font-family: Inter, Helvetica, Arial, sans-serif; max-width: 1040px; margin: 2em auto; padding: 0 1em;
       line-height: 1.45; color: #222; }
table { border-collapse: collapse; margin: 1em 0; font-size: 0.9em; }
th, td { border: 1px solid #ccc; padding: 0.25em 0.6em; }
th { background: #f3f3f3; }
code { background: #f3f3f3; padding: 0 0.2em; }
hr { margin: 3em 0; }
"""


def markdown_to_html(markdown: str, figs: Mapping[str, go.Figure], title: str) -> str:
    """One HTML page: the Markdown rendered (raw HTML in it shown as text), each PNG figure
    replaced by the interactive figure, plotly.js embedded once."""
    from markdown_it import MarkdownIt

    body = MarkdownIt("commonmark", {"html": False}).enable("table").render(markdown)

    def figure(m: re.Match[str]) -> str:
        name = Path(html.unescape(m["src"])).stem
        if name not in figs:
            return m[0]
        return str(pio.to_html(figs[name], full_html=False, include_plotlyjs=False,
                               config={"displaylogo": False, "responsive": True}))

    body = _IMG.sub(figure, body)
    return (f'<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
            f'<meta name="viewport" content="width=device-width, initial-scale=1">\n'
            f"<title>{html.escape(title)}</title>\n<style>{_STYLE}</style>\n"
            f'<script type="text/javascript">{get_plotlyjs()}</script>\n</head>\n<body>\n{body}\n</body>\n</html>\n')
