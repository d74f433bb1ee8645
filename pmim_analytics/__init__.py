"""pmim-analytics: playtest analytics and replay database for Plastic Mechs and Iron Men."""

import os as _os

__version__ = "0.1.0"

if _os.environ.get("PMIM_LIFELINE_OWNER"):  # a fork server of pmim ingest, just started: see pmim_analytics.lifeline
    from pmim_analytics.lifeline import serve_for_owner as _serve_for_owner

    _serve_for_owner()
