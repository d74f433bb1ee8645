"""Shared pieces of the CLI: consoles, error rendering, exit codes.

stdout is data, stderr is diagnostics. Exit codes: 0 ok, 1 findings (an invalid army,
rejected games, rule violations in a replay), 2 usage or unreadable input.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar

import typer
from rich.console import Console

from pmim_analytics.errors import PmimError

out = Console()
err = Console(stderr=True)

F = TypeVar("F", bound=Callable[..., Any])


def guarded(func: F) -> F:
    """Render library errors as one red sentence on stderr and exit with their code."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except PmimError as e:
            err.print(f"[bold red]error:[/] {e.render()}", highlight=False, soft_wrap=True)
            raise typer.Exit(e.exit_code) from None
        except KeyboardInterrupt:
            err.print("[yellow]interrupted[/]")
            raise typer.Exit(130) from None

    return wrapper  # type: ignore[return-value]
