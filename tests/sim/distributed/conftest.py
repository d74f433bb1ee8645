"""One real local Ray instance for the whole test session (started only if a test asks for it)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest


@pytest.fixture(scope="session")
def ray_instance() -> Iterator[Any]:
    """``ray`` initialised with 2 CPUs; the Ray backend uses it as it is and leaves it running."""
    ray = pytest.importorskip("ray")
    ray.init(address="local", num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False)
    yield ray
    ray.shutdown()
