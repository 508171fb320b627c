"""A stored game, as the other layers use it: its state (``state.py``), the commands a
table sends (``commands.py``), the events they log (``events.py``), folding those into
the state (``replay.py``) and what clients read of it (``views.py``).

The changes of play (:data:`PLAY_TYPES`) can be undone and redone (``history.py``): the
state keeps the stack of those in effect and of those undone, and the events that undo
and redo carry the values they leave, which ``apply`` puts in place.
"""

from __future__ import annotations

from app.domain.commands import (
    HOST_SEAT,
    MAX_FAITH_DELTA,
    NewPlayer,
    advance_round,
    change_faith,
    change_seat_token,
    create_game,
    resolve,
    set_decision,
    set_faith,
    set_leaders,
    set_turn_order,
)
from app.domain.events import (
    PLAY_TYPES,
    EventType,
    GameEvent,
    PlayType,
    SeatTokenChange,
    closed_seat,
    read_event,
)
from app.domain.json_data import timestamp
from app.domain.replay import apply, replay
from app.domain.state import (
    ChangeRef,
    ChangeStack,
    Decision,
    GameState,
    PlayerState,
    ReportState,
)
from app.domain.views import player_data, player_from_data, report_view

__all__ = [
    "HOST_SEAT",
    "MAX_FAITH_DELTA",
    "PLAY_TYPES",
    "ChangeRef",
    "ChangeStack",
    "Decision",
    "EventType",
    "GameEvent",
    "GameState",
    "NewPlayer",
    "PlayType",
    "PlayerState",
    "ReportState",
    "SeatTokenChange",
    "advance_round",
    "apply",
    "change_faith",
    "change_seat_token",
    "closed_seat",
    "create_game",
    "player_data",
    "player_from_data",
    "read_event",
    "replay",
    "report_view",
    "resolve",
    "set_decision",
    "set_faith",
    "set_leaders",
    "set_turn_order",
    "timestamp",
]
