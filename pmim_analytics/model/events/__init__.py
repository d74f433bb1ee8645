"""The events a game is made of: the types (:mod:`.types`), the wide row they are stored in
(:mod:`.schema`) and the generic conversions between them (:mod:`.codecs`).

Everything is re-exported here, so ``from pmim_analytics.model.events import Move`` reads as before.
"""

from pmim_analytics.model.events.codecs import (
    event_from_dict,
    event_from_row,
    event_to_row,
    events_from_columns,
    events_of_type,
    type_columns,
)
from pmim_analytics.model.events.schema import (
    COLUMN_TYPES,
    EVENT_COLUMN_NAMES,
    EVENT_COLUMNS,
    WIDE_COLUMNS,
    ColumnType,
    WideColumn,
    events_ddl,
)
from pmim_analytics.model.events.types import (
    COMMON_FIELDS,
    EVENT_FIELDS,
    EVENT_TYPES,
    FIRST_PLAYER_SETTINGS,
    GAME_END_REASONS,
    KINDS,
    OPTIONAL_RULE_EVENT_TYPES,
    VP,
    Activate,
    Attack,
    Coords,
    Deploy,
    Disarmed,
    Event,
    EventField,
    FirstPlayer,
    GameEnd,
    Immobilized,
    InitiativeRoll,
    Kind,
    LocationDestroyed,
    Move,
    OverheatRoll,
    RoundEnd,
    RoundStart,
    Rush,
    UnitDestroyed,
    WeaponLost,
    column,
    dispatch,
    first_side_of_die,
)

__all__ = [
    "COLUMN_TYPES", "COMMON_FIELDS", "EVENT_COLUMNS", "EVENT_COLUMN_NAMES", "EVENT_FIELDS", "EVENT_TYPES",
    "FIRST_PLAYER_SETTINGS", "GAME_END_REASONS", "KINDS", "OPTIONAL_RULE_EVENT_TYPES", "VP", "WIDE_COLUMNS",
    "Activate", "Attack", "ColumnType", "Coords", "Deploy", "Disarmed", "Event", "EventField", "FirstPlayer",
    "GameEnd", "Immobilized", "InitiativeRoll", "Kind", "LocationDestroyed", "Move", "OverheatRoll", "RoundEnd",
    "RoundStart", "Rush", "UnitDestroyed", "WeaponLost", "WideColumn", "column", "dispatch", "event_from_dict",
    "event_from_row", "event_to_row", "events_ddl", "events_from_columns", "events_of_type",
    "first_side_of_die", "type_columns",
]
