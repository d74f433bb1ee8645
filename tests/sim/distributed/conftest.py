"""One real local Ray instance for the whole test session (started only if a test asks for it)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

#: Tries at starting the local Ray instance (each has Ray's own 30 s limit).
STARTS = 4


@pytest.fixture(scope="session")
def ray_instance() -> Iterator[Any]:
    """``ray`` initialised with 2 CPUs; the Ray backend uses it as it is and leaves it running."""
    ray = pytest.importorskip("ray")
    for attempt in range(STARTS):
        try:
            ray.init(address="local", num_cpus=2, include_dashboard=False, log_to_driver=False,
                     configure_logging=False)
            break
        except Exception as e:  # Ray gives its raylet a fixed 30 s to start, which a busy machine can miss
            ray.shutdown()
            if "timed out during startup" not in str(e) or attempt == STARTS - 1:
                raise
    yield ray
    ray.shutdown()
