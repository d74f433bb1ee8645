"""The ``pmim`` command: thin typer wrappers over the library.

Each command group lives in its own module and is registered here.
"""

from __future__ import annotations

import inspect
import os
import shutil
import signal
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from pmim_analytics.arrowshim import arrow_without_pandas  # re-exported; loads nothing but sys

# One BLAS thread unless the caller chose otherwise. OpenBLAS starts a thread per core for every
# matrix product, but the reports' matrices are small (a cost fit's bootstrap solves 25 x 25
# systems), so the extra threads only spin: on a busy two-core machine `pmim report costs` on
# the demo took 4.7 CPU-s and 9.9 s with them, 1.9 CPU-s and 2.8 s without, printing the same.
# OpenBLAS reads these once, when numpy loads, so they are set before anything imports it; the
# processes a command starts (simulation workers, the dashboard) inherit them.
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")


# Ctrl-C while the command's libraries load (about a second): leave quietly with the
# documented exit code instead of an import traceback. Restored once loaded.
def _quit_while_loading(signum: int, frame: object) -> None:
    os._exit(130)


@contextmanager
def _quiet_ctrl_c_while_loading() -> Iterator[None]:
    try:
        previous = signal.signal(signal.SIGINT, _quit_while_loading)
    except ValueError:  # imported outside the main thread: leave signals alone
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


with _quiet_ctrl_c_while_loading():
    import typer
    import typer.core


# Each command module is imported only when its commands are wanted: `pmim rules show v3` loads
# the rules commands, not the analytics, DuckDB and the engine behind the others (about half the
# CPU of a start). Help and unknown commands load them all. The loaders run in this order,
# which is the order of the commands in `pmim --help`.
def _load_rules(root: typer.Typer) -> None:
    from pmim_analytics.cli import rules_cmd

    root.add_typer(rules_cmd.app, name="rules")


def _load_army(root: typer.Typer) -> None:
    from pmim_analytics.cli import army_cmd

    root.add_typer(army_cmd.app, name="army")


def _load_log(root: typer.Typer) -> None:
    from pmim_analytics.cli import log_cmd

    root.add_typer(log_cmd.app, name="log")


def _load_play(root: typer.Typer) -> None:
    from pmim_analytics.cli import play_cmd

    root.command("play")(play_cmd.play)
    root.command("simulate")(play_cmd.simulate)


def _load_replay(root: typer.Typer) -> None:
    from pmim_analytics.cli import replay_cmd

    root.add_typer(replay_cmd.replay_app, name="replay")


def _load_db(root: typer.Typer) -> None:
    from pmim_analytics.cli import db_cmd

    db_cmd.register(root)


def _load_report(root: typer.Typer) -> None:
    from pmim_analytics.cli import meta_cmd as _meta_cmd  # noqa: F401 (adds `report meta` and `report power`)
    from pmim_analytics.cli import report_cmd

    report_cmd.register(root)


def _load_demo(root: typer.Typer) -> None:
    from pmim_analytics.cli import demo_cmd

    root.command("demo")(demo_cmd.demo)


def _load_sweep(root: typer.Typer) -> None:
    from pmim_analytics.cli import sweep_cmd

    root.command("sweep")(sweep_cmd.sweep)


def _load_bots(root: typer.Typer) -> None:
    from pmim_analytics.cli import bots_cmd

    bots_cmd.register(root)


def _load_robustness(root: typer.Typer) -> None:
    from pmim_analytics.cli import bots_cmd

    bots_cmd.register_robustness()


def _load_balance(root: typer.Typer) -> None:
    from pmim_analytics.cli import balance_cmd

    balance_cmd.register(root)


#: (the top-level names a loader serves, the loader); `report` is served by two (robustness is a bots command,
#: added to the report group once that is loaded)
_LOADERS: tuple[tuple[frozenset[str], Callable[[typer.Typer], None]], ...] = (
    (frozenset({"rules"}), _load_rules),
    (frozenset({"army"}), _load_army),
    (frozenset({"log"}), _load_log),
    (frozenset({"play", "simulate"}), _load_play),
    (frozenset({"replay"}), _load_replay),
    (frozenset({"ingest", "db"}), _load_db),
    (frozenset({"report", "dice", "export"}), _load_report),
    (frozenset({"demo"}), _load_demo),
    (frozenset({"sweep"}), _load_sweep),
    (frozenset({"bots", "calibrate"}), _load_bots),
    (frozenset({"report"}), _load_robustness),
    (frozenset({"balance"}), _load_balance),
)
COMMAND_NAMES = frozenset().union(*(names for names, _ in _LOADERS))


def build_app(command: str | None = None) -> typer.Typer:
    """The ``pmim`` app: with ``command`` (a top-level command name) only the modules it needs are
    imported; with None, every command. Run it as a group (``typer.main.get_group``): an app
    holding one command alone would take that command's place."""
    root = typer.Typer(
        name="pmim",
        help="Playtest analytics and replay database for Plastic Mechs and Iron Men.\n\n"
        "Example: pmim rules diff v2 v3",
        no_args_is_help=True,
        add_completion=False,
        pretty_exceptions_enable=False,
        rich_markup_mode="rich",
    )
    with _quiet_ctrl_c_while_loading():
        for names, load in _LOADERS:
            if command is None or command in names:
                load(root)
    _reflow_all(root)
    return root


_full_app: typer.Typer | None = None


def __getattr__(name: str) -> typer.Typer:
    """``app``: the whole ``pmim`` app, built (every command module imported) on first use."""
    global _full_app
    if name != "app":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    if _full_app is None:
        _full_app = build_app()
    return _full_app


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
    """Entry point of the ``pmim`` console script: loads only the command asked for (see
    :func:`build_app`); help, no command or an unknown one load them all."""
    use_plain_help_if_narrow()
    command = sys.argv[1] if len(sys.argv) > 1 else None
    if _full_app is not None or command not in COMMAND_NAMES:
        root = __getattr__("app")
    else:
        root = build_app(command)
    arrow_without_pandas()
    # always run as a group: typer would make an app of one command (`demo`) that command itself
    typer.main.get_group(root)()
