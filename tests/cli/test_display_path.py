"""How a file is named in messages and in the ``file`` column: relative to the working folder
when it lies below it (whether given as relative, absolute or through ``..``), as given otherwise."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from pmim_analytics.errors import display_path


def test_files_below_the_working_folder_are_named_relative_to_it(tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "replays" / "batch").mkdir(parents=True)
    (tmp_path / "elsewhere").mkdir()
    f = tmp_path / "replays" / "batch" / "g.jsonl"
    f.write_text("{}\n")
    monkeypatch.chdir(tmp_path / "replays")
    assert display_path(f) == os.path.join("batch", "g.jsonl")
    assert display_path("batch/g.jsonl") == os.path.join("batch", "g.jsonl")
    assert display_path("../replays/batch/g.jsonl") == os.path.join("batch", "g.jsonl")
    outside = tmp_path / "elsewhere" / "h.jsonl"
    assert display_path(outside) == str(outside)
    assert display_path("../elsewhere/h.jsonl") == os.path.join("..", "elsewhere", "h.jsonl")
    link = tmp_path / "elsewhere" / "link.jsonl"
    link.symlink_to(f)  # a link into the working folder is named by what it points to
    assert display_path(link) == os.path.join("batch", "g.jsonl")
    monkeypatch.chdir(tmp_path)  # the same names from another working folder
    assert display_path(f) == os.path.join("replays", "batch", "g.jsonl")
    assert display_path("replays/batch/g.jsonl") == os.path.join("replays", "batch", "g.jsonl")
