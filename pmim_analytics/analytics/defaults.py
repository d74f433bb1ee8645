"""Defaults of the analytics that the command line shows in its help, in a module that loads
nothing (a command builds its options from them before it loads Polars)."""

from __future__ import annotations

#: Bootstrap samples of games behind the implied costs (each refits the whole chain).
RESAMPLES = 200
