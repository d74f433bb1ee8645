"""The ``pmim`` command: thin typer wrappers over the library.

Each command group lives in its own module and is registered here.
"""

from __future__ import annotations

import typer

from pmim_analytics.cli import army_cmd, db_cmd, demo_cmd, log_cmd, play_cmd, report_cmd, rules_cmd, sweep_cmd
from pmim_analytics.cli import meta_cmd as _meta_cmd  # noqa: F401 (adds `report meta` and `report power`)

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


def main() -> None:
    """Entry point of the ``pmim`` console script."""
    app()
