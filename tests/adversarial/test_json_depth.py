"""The nesting limit reads the depth off the JSON text; it must agree with the parsed value's
nesting whatever the strings inside hold (brackets, quotes and backslashes included)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pmim_analytics.errors import Location
from pmim_analytics.limits import MAX_JSON_DEPTH, LimitError, json_depth, loads_json

_TRICKY = st.text(alphabet=st.sampled_from('[]{}"\\,:ab \u00e9\n'), max_size=8)
_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | _TRICKY,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_TRICKY, inner, max_size=3),
    max_leaves=25)


def _depth(value: Any) -> int:
    if isinstance(value, dict):
        return 1 + max(map(_depth, value.values()), default=0)
    if isinstance(value, list):
        return 1 + max(map(_depth, value), default=0)
    return 0


@given(_VALUES, st.booleans())
def test_depth_of_the_text_is_the_depth_of_the_value(value: Any, ascii_only: bool) -> None:
    text = json.dumps(value, ensure_ascii=ascii_only)
    assert json_depth(text) == _depth(value)


def test_a_header_one_level_too_deep_is_refused_and_one_at_the_limit_is_read() -> None:
    at_limit = "[" * MAX_JSON_DEPTH + "]" * MAX_JSON_DEPTH
    assert loads_json(at_limit, Location("x.jsonl", 1), check_depth=True) is not None
    too_deep = '{"a": "]]]]", "b": ' + "[" * MAX_JSON_DEPTH + "]" * MAX_JSON_DEPTH + "}"
    with pytest.raises(LimitError, match=f"deeper than {MAX_JSON_DEPTH}"):
        loads_json(too_deep.encode("utf-16"), Location("x.jsonl", 1), check_depth=True)
