"""Find the games behind a path: a JSON Lines replay, a folder of them, or a Parquet batch."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from pmim_analytics.errors import Location, ReplayError, display_path
from pmim_analytics.replay.format import GameRecord, content_id_problem, iter_lines, read_game


@dataclass(frozen=True)
class LoadedGame:
    """A game and where it came from. ``lines[i]`` is the file line of event ``i`` (0 = header),
    or ``None`` for games without lines (Parquet). ``id_problem``: the file's ``game_id`` is
    not its content's (the file was edited after it was written), as ``pmim ingest`` says."""

    source: str
    record: GameRecord
    lines: list[int] | None
    id_problem: ReplayError | None = None


def read_game_with_lines(path: str | Path) -> LoadedGame:
    """Read a JSON Lines replay and the line number of its header and of every event.

    Raises :class:`ReplayError` as :func:`~pmim_analytics.replay.format.read_game` does.
    """
    p = Path(path)
    record = read_game(p)
    texts = [(n, text) for n, text in iter_lines(p) if text.strip()]
    try:
        raw = json.loads(texts[0][1])
    except ValueError:  # read_game read it: cannot happen
        raw = None
    problem = content_id_problem(record.header, record.events, raw if isinstance(raw, dict) else None,
                                 display_path(p))
    return LoadedGame(display_path(p), record, [n for n, _ in texts], problem)


def iter_games(path: str | Path) -> Iterator[LoadedGame]:
    """Every game at ``path``: one replay file, a folder of ``*.jsonl``, or a Parquet batch folder.

    Raises :class:`ReplayError` for a missing path or an unreadable file.
    """
    p = Path(path)
    if p.is_dir():
        from pmim_analytics.replay.parquet import list_parts, read_part

        parts = list_parts(p)
        files = sorted(p.glob("*.jsonl"))
        if not parts and not files:
            raise ReplayError("the folder holds no replays (*.jsonl) and no Parquet parts",
                              Location(display_path(p)))
        for part in parts:
            for rec in read_part(p, part):
                yield LoadedGame(f"{display_path(p)} game {rec.header.game_id}", rec, None)
        for f in files:
            yield read_game_with_lines(f)
        return
    if not p.exists():
        raise ReplayError("file not found; check the path", Location(display_path(p)))
    yield read_game_with_lines(p)
