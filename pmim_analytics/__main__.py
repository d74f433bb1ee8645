"""``python -m pmim_analytics`` runs the ``pmim`` command."""

from pmim_analytics.cli import main

main()
