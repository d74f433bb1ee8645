"""The suite's hypothesis profile (tests/conftest.py) is loaded: no property test has a deadline,
so none fails because a busy machine ran an example slowly."""

from __future__ import annotations

from hypothesis import HealthCheck, settings

from tests.botlab.test_bot_ratings import test_hex_distance_expression_matches_the_engine


def test_the_no_deadline_profile_is_the_default() -> None:
    assert settings.default.deadline is None
    assert HealthCheck.too_slow in settings.default.suppress_health_check


def test_a_property_test_without_its_own_settings_has_no_deadline() -> None:
    # the test that once failed at 300 ms against hypothesis' default 200 ms
    used = test_hex_distance_expression_matches_the_engine._hypothesis_internal_use_settings
    assert used.deadline is None
    assert settings().deadline is None
