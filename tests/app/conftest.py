"""Shared fixtures of the dashboard tests."""

from __future__ import annotations

import sys
from collections.abc import Iterator

import pytest


@pytest.fixture(autouse=True)
def _keep_main_module() -> Iterator[None]:
    """Streamlit's script runner (AppTest too) installs the page it runs as ``sys.modules['__main__']``.
    Left there, a process pool started later in the same xdist worker (the ingest's fork server)
    would try to import that page as its main module and fail, so each test puts the real one back."""
    main = sys.modules["__main__"]
    yield
    sys.modules["__main__"] = main
