"""The floor: when the agent may speak, when it must stop, and what the glyph shows."""

from app.floor.freshness import Freshness, Staleness
from app.floor.fsm import FloorFSM
from app.floor.outputs import (
    CancelGeneration,
    ClearCitation,
    Command,
    Delivered,
    Dropped,
    Earcon,
    PatienceChanged,
    Play,
    RequestDirectAnswer,
    ShowCitation,
    SnoozeChanged,
    SnoozeSource,
    StateChanged,
    Stop,
)
from app.floor.permission import Permission, classify, snooze_request
from app.language.talk import is_backchannel

__all__ = [
    "CancelGeneration",
    "ClearCitation",
    "Command",
    "Delivered",
    "Dropped",
    "Earcon",
    "FloorFSM",
    "Freshness",
    "PatienceChanged",
    "Permission",
    "Play",
    "RequestDirectAnswer",
    "ShowCitation",
    "SnoozeChanged",
    "SnoozeSource",
    "Staleness",
    "StateChanged",
    "Stop",
    "classify",
    "snooze_request",
    "is_backchannel",
]
