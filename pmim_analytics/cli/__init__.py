"""The ``pmim`` command: thin typer wrappers over the library.

Each command group lives in its own module and is registered here.
"""

from __future__ import annotations

import inspect
import os
import shutil
import signal


# Ctrl-C while the command's libraries load (about a second): leave quietly with the
# documented exit code instead of an import traceback. Restored once loaded.
def _quit_while_loading(signum: int, frame: object) -> None:
    os._exit(130)


try:
    _loading_handler = signal.signal(signal.SIGINT, _quit_while_loading)
except ValueError:  # imported outside the main thread: leave signals alone
    _loading_handler = None

import typer  # noqa: E402
import typer.core  # noqa: E402

from pmim_analytics.cli import (  # noqa: E402
    army_cmd,
    bots_cmd,
    db_cmd,
    demo_cmd,
    log_cmd,
    play_cmd,
    report_cmd,
    rules_cmd,
    sweep_cmd,
)
from pmim_analytics.cli import meta_cmd as _meta_cmd  # noqa: E402, F401 (adds `report meta` and `report power`)

if _loading_handler is not None:
    signal.signal(signal.SIGINT, _loading_handler)

app = typer.Typer(
    name="pmim",
    help="Playtest analytics and replay database for Plastic Mechs and Iron Men.\n\n"
    "Example: pmim rules diff v2 v3",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode="rich",
)
app.add_typer(rules_cmd.app, name="rules")
app.add_typer(army_cmd.app, name="army")
app.add_typer(log_cmd.app, name="log")
app.command("play")(play_cmd.play)
app.command("simulate")(play_cmd.simulate)
app.add_typer(play_cmd.replay_app, name="replay")
db_cmd.register(app)
report_cmd.register(app)
app.command("demo")(demo_cmd.demo)
app.command("sweep")(sweep_cmd.sweep)
bots_cmd.register(app)


def reflow_help(text: str) -> str:
    """A docstring as help text: each prose paragraph on one line, so the terminal wraps it at
    its own width instead of keeping the source's line breaks (which gives ragged lines at 80
    columns); list items stay one per line, and indented blocks (the examples) as written."""
    out = []
    for para in inspect.cleandoc(text).split("\n\n"):
        lines = para.split("\n")
        if lines[0][:1].isspace():  # an indented block: the examples
            out.append(para)
            continue
        items: list[str] = []
        in_list = False
        for line in lines:
            if line.startswith(("- ", "* ")):
                items.append(line)
                in_list = True
            elif line[:1].isspace() and not in_list:  # an example under a heading line
                items.append(line)
            elif items and not items[-1][:1].isspace():
                items[-1] += " " + line.strip()
            else:
                items.append(line.strip())
        out.append("\n".join(items))
    return "\n\n".join(out)


def _reflow_all(t: typer.Typer) -> None:
    """Apply :func:`reflow_help` to the help of every command and group under ``t``."""
    for cmd in t.registered_commands:
        if cmd.help:
            cmd.help = reflow_help(cmd.help)
        elif cmd.callback is not None and cmd.callback.__doc__:
            cmd.help = reflow_help(cmd.callback.__doc__)
    for group in t.registered_groups:
        if group.typer_instance is not None:
            _reflow_all(group.typer_instance)


_reflow_all(app)


#: Below this many columns help is click's plain text, which wraps cleanly at any width;
#: rich's boxed help would cut option names and texts short.
NARROW_HELP_COLUMNS = 72


def use_plain_help_if_narrow(columns: int | None = None) -> bool:
    """Switch typer to plain help on a narrow terminal (``COLUMNS`` or the terminal's width)."""
    narrow = (columns or shutil.get_terminal_size().columns) < NARROW_HELP_COLUMNS
    if narrow:
        typer.core.HAS_RICH = False  # typer reads this module global each time it formats help
    return narrow


def main() -> None:
    """Entry point of the ``pmim`` console script."""
    use_plain_help_if_narrow()
    app()
