"""Bot specs: a bot named with its settings in one short text, ``name[:key=value[,key=value]]``.

``tactician``, ``search:budget=400``, ``search:budget=800,persona=aggressive``,
``search:skill=0.75``. The same text is accepted wherever a bot is named (``pmim play``,
``pmim simulate``, sweep files, batches) and its canonical form -- every parameter written
out with its value, in the bot's own order, then the skill when it is below 1, the persona
last when one is given -- is what a replay header records, so a game says exactly which
bot played it. A plain name stays a plain name (``tactician``), and skill 1 is not
written, so older replays read the same.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pmim_analytics.engine.bots.base import Bot
from pmim_analytics.engine.bots.persona import load_persona
from pmim_analytics.engine.bots.skill import format_skill, parse_skill
from pmim_analytics.errors import BotSpecError, UnknownNameError


@dataclass(frozen=True, eq=False)
class BotSpec:
    """A bot with its settings: ``name``, whole-number ``params`` (every one, defaults filled in)
    ``persona`` (``None`` for the bot's default) and ``skill`` (0 to 1; 1, the bot at its
    best, for bots without one). Equal specs have equal labels."""

    name: str
    params: dict[str, int] = field(default_factory=dict)
    persona: str | None = None
    skill: float = 1.0

    def label(self) -> str:
        """The canonical text, e.g. ``search:budget=400``, ``search:budget=100,skill=0.75`` or ``tactician``."""
        parts = [f"{k}={v}" for k, v in self.params.items()]
        if self.skill != 1.0:
            parts.append(f"skill={format_skill(self.skill)}")
        if self.persona is not None:
            parts.append(f"persona={self.persona}")
        return self.name + (":" + ",".join(parts) if parts else "")

    def __str__(self) -> str:
        return self.label()

    def __eq__(self, other: object) -> bool:
        return isinstance(other, BotSpec) and self.label() == other.label()

    def __hash__(self) -> int:
        return hash(self.label())


def _int_value(bot: str, key: str, value: str) -> int:
    try:
        return int(value.replace("_", ""))
    except ValueError:
        raise BotSpecError(f"bot {bot!r}: {key}={value!r} is not a whole number") from None


def parse_bot_spec(text: str, bots: dict[str, type[Bot]] | None = None) -> BotSpec:
    """Read ``name[:key=value[,key=value]]`` into a :class:`BotSpec`, checking everything.

    Raises :class:`UnknownNameError` for an unknown bot or persona and
    :class:`BotSpecError` (a ``ValueError``) for a parameter the bot does not take, a value
    that is not a whole number or out of range, or a repeated key; a malformed persona file
    raises :class:`~pmim_analytics.errors.DataFileError` naming the file and field.
    """
    if bots is None:
        from pmim_analytics.engine.bots.registry import BOTS

        bots = BOTS
    if not isinstance(text, str):
        raise BotSpecError(f"a bot is named by text such as 'search:budget=400', not {text!r}")
    name, sep, rest = text.strip().partition(":")
    name = name.strip()
    cls = bots.get(name)
    if cls is None:
        raise UnknownNameError(f"unknown bot {name!r}; choose one of {', '.join(sorted(bots))} "
                               "(settings go after a colon, e.g. search:budget=400)")
    given: dict[str, str] = {}
    if sep:
        if not rest.strip():
            raise BotSpecError(f"bot {name!r}: nothing after the colon; write e.g. {name}:key=value or just {name}")
        for item in rest.split(","):
            key, eq, value = (s.strip() for s in item.partition("="))
            if not eq or not key or not value:
                raise BotSpecError(f"bot {name!r}: {item.strip()!r} is not key=value (e.g. search:budget=400)")
            if key in given:
                raise BotSpecError(f"bot {name!r}: {key} is given twice")
            given[key] = value
    persona = given.pop("persona", None)
    skill_text = given.pop("skill", None)
    skill = 1.0
    if skill_text is not None:
        if not cls.takes_skill:
            takers = sorted(n for n, c in bots.items() if c.takes_skill)
            raise BotSpecError(f"bot {name!r} takes no skill (only {', '.join(takers)} do)")
        skill = parse_skill(name, skill_text)
    if persona is not None:
        if not cls.takes_persona:
            takers = personas_takers(bots)
            raise BotSpecError(f"bot {name!r} takes no persona" + (f" (only {', '.join(takers)} do)" if takers else ""))
        load_persona(persona)  # unknown or malformed: its own clear error
    unknown = [k for k in given if k not in cls.params]
    if unknown:
        takes = ", ".join(list(cls.params) + (["skill"] if cls.takes_skill else [])
                          + (["persona"] if cls.takes_persona else [])) or "no settings"
        raise BotSpecError(f"bot {name!r} has no setting {unknown[0]!r}; it takes {takes}")
    params: dict[str, int] = {}
    for key, p in cls.params.items():
        v = _int_value(name, key, given[key]) if key in given else p.default
        if not p.low <= v <= p.high:
            raise BotSpecError(f"bot {name!r}: {key}={v} is out of range; use {p.low} to {p.high}")
        params[key] = v
    return BotSpec(name, params, persona, skill)


def canonical_bot_key(spec_or_text: BotSpec | str) -> str:
    """The bot level a spec plays at: its name and the settings that differ from their defaults,
    sorted by key (``search:budget=0``). Specs that play identical games share one key:
    ``search:budget=0`` and ``search:budget=0,persona=balanced`` both give ``search:budget=0``,
    and a spec written with every default (``search:budget=100``) gives the plain name.

    Generic by design: any setting equal to its declared default is dropped, and so is the
    default persona. A text naming a bot this code does not know (an old replay's) keeps its
    settings as written, sorted, so it still compares equal to itself.
    """
    from pmim_analytics.engine.bots.persona import DEFAULT_PERSONA
    from pmim_analytics.engine.bots.registry import BOTS

    if isinstance(spec_or_text, BotSpec):
        spec: BotSpec | None = spec_or_text
    else:
        try:
            spec = parse_bot_spec(spec_or_text)
        except (BotSpecError, UnknownNameError):
            spec = None
    if spec is None or spec.name not in BOTS:
        text = str(spec_or_text).strip()
        name, _, rest = text.partition(":")
        items = sorted(p.strip().replace(" ", "") for p in rest.split(",") if p.strip())
        return name.strip() + (":" + ",".join(items) if items else "")
    declared = BOTS[spec.name].params
    kept = {k: str(v) for k, v in spec.params.items() if k not in declared or v != declared[k].default}
    if spec.persona is not None and spec.persona != DEFAULT_PERSONA:
        kept["persona"] = spec.persona
    if spec.skill != 1.0:  # a skill below 1 plays other games: its own level, never pooled with the best play
        kept["skill"] = format_skill(spec.skill)
    return spec.name + (":" + ",".join(f"{k}={kept[k]}" for k in sorted(kept)) if kept else "")


def personas_takers(bots: dict[str, type[Bot]]) -> list[str]:
    """The bots that read a persona."""
    return sorted(n for n, c in bots.items() if c.takes_persona)


def as_spec(spec_or_text: BotSpec | str) -> BotSpec:
    """A :class:`BotSpec` from either a spec or its text (parsed and checked)."""
    return spec_or_text if isinstance(spec_or_text, BotSpec) else parse_bot_spec(spec_or_text)


def bot_options(spec: BotSpec) -> dict[str, Any]:
    """The keyword arguments a bot of ``spec`` is built with (persona loaded when it takes one)."""
    opts: dict[str, Any] = dict(spec.params)
    from pmim_analytics.engine.bots.registry import BOTS

    if BOTS[spec.name].takes_persona:
        opts["persona"] = load_persona(spec.persona)
    if BOTS[spec.name].takes_skill:
        opts["skill"] = spec.skill
    return opts


__all__ = ["BotSpec", "as_spec", "bot_options", "canonical_bot_key", "parse_bot_spec"]
