"""Domain values as the JSON-ready data the event log stores and the API serves, and back.

The shape follows the values' annotations, so a value is declared once, as a frozen
dataclass: a dataclass is an object of its fields in their order (under the ``key`` of a
field's metadata when its name cannot be the key, ``from``), a tuple is a list, a mapping
an object (its integer keys written as text), a datetime RFC 3339 text in UTC. Reading
back, a field that older data lacks takes the field's default. Nothing here validates:
the data read back is what this module wrote.
"""

from __future__ import annotations

import functools
import types
import typing
from collections.abc import Callable, Mapping, Sequence
from dataclasses import MISSING, Field, fields, is_dataclass
from datetime import UTC, datetime
from typing import Annotated, Any, Literal, Union, get_args, get_origin, get_type_hints


def describe(
    description: str | None = None,
    *,
    key: str | None = None,
    examples: Sequence[Any] | None = None,
) -> dict[str, Any]:
    """A field's metadata: what it means (as the contract says it), the key it is written
    under when not its name, and example values for the docs."""
    metadata: dict[str, Any] = {}
    if description is not None:
        metadata["description"] = description
    if key is not None:
        metadata["key"] = key
    if examples is not None:
        metadata["examples"] = list(examples)
    return metadata


def key_of(field: Field[Any]) -> str:
    """The key a field is written under."""
    return str(field.metadata.get("key", field.name))


def timestamp(at: datetime) -> str:
    """A UTC time as the API writes it (RFC 3339, ``Z``): what the event logs carry."""
    return at.astimezone(UTC).isoformat().replace("+00:00", "Z")


def to_data(value: Any) -> Any:
    """``value`` as JSON-ready data."""
    cls: type = type(value)
    return _writer(cls)(value)


@functools.cache
def _writer(cls: type) -> Callable[[Any], Any]:
    # Chosen once per class rather than by a chain of checks per value: a game's state is
    # a few hundred values of a dozen classes.
    if cls is type(None) or issubclass(cls, bool | int | str):
        return _identity
    if issubclass(cls, datetime):
        return timestamp
    # A value of a plain class is written as it is without a call (most of a state's
    # values are, and a change of a game writes its whole state).
    if issubclass(cls, tuple | list):
        return lambda value: [item if type(item) in _PLAIN else to_data(item) for item in value]
    if issubclass(cls, Mapping):
        return lambda value: {
            str(key): item if type(item) in _PLAIN else to_data(item) for key, item in value.items()
        }
    if is_dataclass(cls):
        plan = [(name, key) for name, key, _, _ in _fields_of(cls)]

        def write(value: Any) -> dict[str, Any]:
            data = {}
            for name, key in plan:
                item = getattr(value, name)
                data[key] = item if type(item) in _PLAIN else to_data(item)
            return data

        return write
    raise TypeError(f"{cls.__name__} has no JSON form")


#: The classes written as they are, by their exact class (see ``_writer``).
_PLAIN: frozenset[type] = frozenset({str, int, bool, type(None)})


def from_data(kind: Any, data: Any) -> Any:
    """The value of type ``kind`` that :func:`to_data` wrote as ``data``."""
    return _reader(kind)(data)


#: A dataclass's fields as read and written: name, key, type, default (MISSING: none).
_FieldPlan = tuple[str, str, Any, Any]


@functools.cache
def _fields_of(cls: type) -> tuple[_FieldPlan, ...]:
    hints = get_type_hints(cls, include_extras=True)
    plan = []
    for field in fields(cls):
        default = field.default
        if field.default_factory is not MISSING:
            default = field.default_factory()
        plan.append((field.name, key_of(field), hints[field.name], default))
    return tuple(plan)


@functools.cache
def _reader(kind: Any) -> Callable[[Any], Any]:
    origin, args = get_origin(kind), get_args(kind)
    if origin is Annotated:
        return _reader(args[0])
    if origin in (Union, types.UnionType):
        present = [arg for arg in args if arg is not type(None)]
        if len(present) != 1:
            raise TypeError(f"{kind} is not a single type or None")
        read = _reader(present[0])
        return lambda data: None if data is None else read(data)
    if origin is tuple:
        item = _reader(args[0])
        if item is _identity:
            return tuple
        return lambda data: tuple([item(value) for value in data])
    if origin in (Mapping, dict, typing.Mapping):
        key, value = _reader(args[0]), _reader(args[1])
        return lambda data: {key(k): value(v) for k, v in data.items()}
    if origin is Literal or kind in (str, bool, Any):
        return _identity
    if kind is int:
        return int  # an integer key is text in JSON
    if kind is datetime:
        return datetime.fromisoformat
    if isinstance(kind, type) and is_dataclass(kind):
        return _DataclassReader(kind)
    raise TypeError(f"{kind} has no JSON form")


def _identity(data: Any) -> Any:
    return data


class _DataclassReader:
    """Reads one dataclass: its fields' readers are looked up once, at its first read
    (not when made, so that a dataclass may hold itself), rather than once a field."""

    def __init__(self, cls: type) -> None:
        self._cls = cls
        self._plan: list[tuple[str, str, Callable[[Any], Any] | None, Any]] | None = None

    def __call__(self, data: Mapping[str, Any]) -> Any:
        plan = self._plan
        if plan is None:
            plan = self._plan = []
            for name, key, kind, default in _fields_of(self._cls):
                field_reader = _reader(kind)
                plain = field_reader is _identity
                plan.append((name, key, None if plain else field_reader, default))
        values = {}
        for name, key, read, default in plan:
            if key in data:
                values[name] = data[key] if read is None else read(data[key])
            elif default is MISSING:
                raise KeyError(f"{self._cls.__name__} data has no {key!r}")
            else:
                values[name] = default
        return self._cls(**values)
