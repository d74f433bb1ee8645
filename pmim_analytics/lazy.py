"""Package names that load on first use: the one ``__getattr__`` body the lazy packages share.

A package (``engine``, ``sim``, ``sweep``, ``analytics``) maps each public name to the module
it lives in, and its module-level ``__getattr__`` calls :func:`load_attribute`. Importing one
light module of the package then does not load the heavy ones (NumPy, Polars, the pool) with
it, so a command can check its options before paying for them. Imports nothing but the stdlib.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Mapping
from typing import Any


def load_attribute(package: str, homes: Mapping[str, str], name: str) -> Any:
    """``package``'s attribute ``name``, imported from its home in ``homes`` and kept on the package.

    A home equal to ``f"{package}.{name}"`` is a submodule, and the name is the module itself.
    """
    home = homes.get(name)
    if home is None:
        raise AttributeError(f"module {package!r} has no attribute {name!r}")
    module = importlib.import_module(home)
    value = module if home == f"{package}.{name}" else getattr(module, name)
    setattr(sys.modules[package], name, value)
    return value
