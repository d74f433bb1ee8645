"""``pmim ARGS`` run inside the test process, as the console script runs it.

A ``pmim`` subprocess spends about a second of CPU loading Python and its libraries before it
reads its first argument, and the suite starts hundreds of them. A test whose point is what a
command prints and the code it exits with (a bad input's one sentence and exit 2, a report's
rows) runs it here: the same entry as :func:`pmim_analytics.cli.main` (only the command's own
modules loaded, the app run as a group), stdout and stderr kept apart, any exception other than
the command's own exit raised in the test (so a traceback fails it). Tests whose point is the
process itself (a hang, Ctrl-C, a kill, memory, a crash, pipes, the terminal, concurrency) keep
a real subprocess.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Mapping
from pathlib import Path

from click.testing import CliRunner

from pmim_analytics.rules.catalogue import clear_caches


def pmim_in_process(*args: str, env: Mapping[str, str] | None = None,
                    cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """``pmim ARGS`` run here; the result reads as ``subprocess.run(..., capture_output=True, text=True)``'s.

    ``env`` adds to (or, with an empty value, removes from) the environment for the run only;
    ``cwd`` is the folder the command runs in."""
    import typer

    from pmim_analytics import cli

    command = args[0] if args else None
    root = cli.build_app(command) if command in cli.COMMAND_NAMES else cli.build_app()
    old_cwd = Path.cwd()
    clear_caches()  # the rules catalogue follows PMIM_DATA, which ``env`` may change
    try:
        if cwd is not None:
            os.chdir(cwd)
        result = CliRunner().invoke(typer.main.get_group(root), list(args), prog_name="pmim",
                                    env={k: (v or None) for k, v in (env or {}).items()},
                                    catch_exceptions=False)
    finally:
        os.chdir(old_cwd)
        clear_caches()
    return subprocess.CompletedProcess(["pmim", *args], result.exit_code, result.stdout, result.stderr)
