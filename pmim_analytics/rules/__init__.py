"""Rules as data: versions, variants, scenarios and army lists (no I/O beyond ``data/``)."""

from pmim_analytics.rules.army import (
    ArmyList,
    Roster,
    RosterUnit,
    army_violations,
    build_roster,
    load_army,
    validate_army,
)
from pmim_analytics.rules.catalogue import (
    DEFAULT_SCENARIO,
    data_dir,
    find_unit,
    find_weapon,
    list_rules_ids,
    load_rules,
    load_scenario,
    rules_label,
    usable_rules_ids,
)
from pmim_analytics.rules.models import RulesVersion
from pmim_analytics.rules.scenario import Scenario

__all__ = [
    "DEFAULT_SCENARIO",
    "ArmyList",
    "Roster",
    "RosterUnit",
    "RulesVersion",
    "Scenario",
    "army_violations",
    "build_roster",
    "data_dir",
    "find_unit",
    "find_weapon",
    "list_rules_ids",
    "load_army",
    "load_rules",
    "load_scenario",
    "rules_label",
    "usable_rules_ids",
    "validate_army",
]
