"""Shared pieces of the CLI: consoles, error rendering, exit codes.

stdout is data, stderr is diagnostics. Exit codes: 0 ok, 1 findings (an invalid army,
rejected games, rule violations in a replay), 2 usage or unreadable input.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import ParamSpec, TypeVar

import typer
from rich.console import Console, ConsoleDimensions

from pmim_analytics.errors import PmimError

#: The width of a console writing to a pipe or a file: wide enough that nothing wraps.
UNBOUNDED_WIDTH = 1_000_000


class PipeSafeConsole(Console):
    """A rich console that fits a terminal but never wraps or cuts what goes to a pipe or a file.

    On a terminal it is rich's console as usual. Elsewhere (``| less``, ``> file``, a test
    capturing output) its width has no practical limit whatever ``COLUMNS`` says, so a table
    keeps every row on one line and every cell whole.
    """

    @property
    def size(self) -> ConsoleDimensions:
        dims = super().size
        return dims if self.is_terminal else ConsoleDimensions(UNBOUNDED_WIDTH, dims.height)

    @size.setter
    def size(self, new_size: tuple[int, int]) -> None:
        self._width, self._height = new_size


out = PipeSafeConsole()
err = PipeSafeConsole(stderr=True)

P = ParamSpec("P")
R = TypeVar("R")


def guarded(func: Callable[P, R]) -> Callable[P, R]:
    """Render library errors as one red sentence on stderr and exit with their code."""

    @functools.wraps(func)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return func(*args, **kwargs)
        except PmimError as e:
            err.print(f"[bold red]error:[/] {e.render()}", highlight=False, soft_wrap=True)
            raise typer.Exit(e.exit_code) from None
        except KeyboardInterrupt:
            err.print("[yellow]interrupted[/]")
            raise typer.Exit(130) from None

    return wrapper
