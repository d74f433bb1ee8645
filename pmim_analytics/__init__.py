"""pmim-analytics: playtest analytics and replay database for Plastic Mechs and Iron Men."""

__version__ = "0.1.0"
