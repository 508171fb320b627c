"""The events' schemas, derived from their one declaration (``app/domain/events.py``).

Each event class gives its ``data`` schema (``<Class>Data``: its fields, in their order,
with their descriptions and keys, and its docstring) and its event schema
(``<Class>Event``: ``seq``, ``at``, ``type`` and ``data``); ``EventRead`` tells them apart
by ``type``. A value an event carries that clients also read as a document (a player, a
report, a round) is that document's schema; a class the events module declares for its
events' parts (``FaithChange``...) gets a schema of its own, by its name.
"""

from __future__ import annotations

import types
import typing
from collections.abc import Mapping
from dataclasses import MISSING, fields, is_dataclass
from dataclasses import Field as DataclassField
from datetime import datetime
from functools import cache
from typing import TYPE_CHECKING, Annotated, Any, Literal, Union, cast, get_args, get_origin

from pydantic import BaseModel, ConfigDict, Field, RootModel, create_model

from app.api.schemas.base import PeriodKey, PeriodNumber, ResponseModel, Seed
from app.api.schemas.documents import PlayerRead, ReportRead, RoundRead
from app.domain import draw, events, faith
from app.domain.json_data import key_of
from app.domain.report import Outcome
from app.domain.rounds import RoundState
from app.domain.state import PlayerState
from app.domain.views import ReportView

#: The domain's values that the API serves as one of its own schemas.
_SERVED_AS: dict[Any, Any] = {
    faith.PeriodNumber: PeriodNumber,
    draw.Seed: Seed,
    PlayerState: PlayerRead,
    ReportView: ReportRead,
    RoundState: RoundRead,
    Outcome: Outcome,
    datetime: datetime,
}
#: The same, as the key of a JSON object (text).
_SERVED_AS_KEY: dict[Any, Any] = {faith.PeriodNumber: PeriodKey}


class EventPayload(ResponseModel):
    """An event's `data`, as the log stores it (`from` is a Python keyword, hence aliases)."""

    model_config = ConfigDict(serialize_by_alias=True, validate_by_name=True)


class _Event(ResponseModel):
    seq: int = Field(description="The game version this change produced: 1, 2, 3, ...")
    at: datetime


def _declared_doc(cls: type) -> str | None:
    """The docstring a class declares (not the signature a dataclass writes without one)."""
    doc = cls.__dict__.get("__doc__")
    return None if doc is None or doc.startswith(f"{cls.__name__}(") else doc


def _payload_class(event: type[events.GameEvent]) -> type:
    """The class that declares an event's fields: an undo and a redo share theirs."""
    parent = event.__mro__[1]
    declared = is_dataclass(parent) and fields(parent) == fields(cast(Any, event))
    return parent if declared else event


def _api_field(field: DataclassField[Any], hint: Any) -> tuple[Any, Any]:
    options: dict[str, Any] = {
        name: field.metadata[name] for name in ("description", "examples") if name in field.metadata
    }
    if key_of(field) != field.name:
        options["alias"] = key_of(field)
    if field.default is not MISSING:
        options["default"] = field.default
    return _api_type(hint), Field(**options)


@cache
def _model(cls: type, name: str) -> type[BaseModel]:
    """The schema of the dataclass ``cls``, named ``name``."""
    hints = typing.get_type_hints(cls, include_extras=True)
    model: type[BaseModel] = create_model(
        name,
        __base__=EventPayload,
        __doc__=_declared_doc(cls),
        __module__=__name__,
        **{f.name: _api_field(f, hints[f.name]) for f in fields(cls)},  # type: ignore[call-overload]
    )
    return model


def _api_type(hint: Any) -> Any:
    if hint in _SERVED_AS:
        return _SERVED_AS[hint]
    origin, args = get_origin(hint), get_args(hint)
    if origin is tuple:
        return list[_api_type(args[0])]  # type: ignore[misc]
    if origin in (Union, types.UnionType):
        return Union[tuple(_api_type(arg) for arg in args)]  # noqa: UP007
    if origin is Mapping:
        key = _SERVED_AS_KEY.get(args[0], args[0])
        return dict[key, _api_type(args[1])]  # type: ignore[misc,valid-type]
    if origin is Literal or hint in (str, int, bool) or hint is type(None):
        return hint
    if isinstance(hint, type) and hint.__module__ == events.__name__ and is_dataclass(hint):
        return _model(hint, hint.__name__)
    raise TypeError(f"{hint}: say in _SERVED_AS how the API serves it")


def _event_model(event: type[events.GameEvent]) -> type[BaseModel]:
    payload = _payload_class(event)
    event_type: Any = Literal[event.type]
    model: type[BaseModel] = create_model(
        f"{event.__name__}Event",
        __base__=_Event,
        __module__=__name__,
        type=(event_type, ...),
        data=(_model(payload, f"{payload.__name__}Data"), ...),
    )
    return model


EVENT_MODELS: tuple[type[BaseModel], ...] = tuple(_event_model(e) for e in events.EVENTS)

if TYPE_CHECKING:
    _AnyEvent = Any
else:
    _AnyEvent = Annotated[Union[EVENT_MODELS], Field(discriminator="type")]  # noqa: UP007


class EventRead(RootModel[_AnyEvent]):
    """One change to a game; `type` says which, and the shape of its `data`."""

    model_config = ConfigDict(from_attributes=True)


class EventList(ResponseModel):
    events: list[EventRead]
    last_seq: int = Field(description="The seq of the last event returned (or `after`).")
