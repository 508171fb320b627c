"""A route's parameters read from a request by the endpoint's own signature.

The signature declares each parameter once, as FastAPI documents it, and FastAPI writes
the contract from it; the same declarations say here what to read and how to validate
it. What is read, in which order, and what a wrong value answers are FastAPI's (a 422's
list too, ``tests/api/test_explicit_route.py``): the dependencies first, each skipped when
its own values are wrong; then the endpoint's path, query and header values, in that
order; then the body. A value is validated by a pydantic ``TypeAdapter`` of its declared
type and constraints, built once per route. A ``str`` path parameter and a ``str | None``
header, which cannot be wrong, are handed over as found.

What the explicit path does not read (cookies, forms, nested or sync dependencies,
several bodies...) is refused when the route is built (``TypeError``).
"""

from __future__ import annotations

import copy
import inspect
import re
from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from typing import Annotated, Any, get_args, get_origin

from pydantic import BaseModel, TypeAdapter, ValidationError
from pydantic.fields import FieldInfo
from pydantic_core import PydanticUndefined as Undefined
from starlette.requests import HTTPConnection

from app.api.platform.fastapi_internals import Declared, declared, is_declaration

Errors = list[dict[str, Any]]
# Defaults handed over as they are: FastAPI copies the others for each request.
_IMMUTABLE = (type(None), bool, int, float, str, bytes, frozenset, tuple)
_PATH_PARAMETER = re.compile(r"{([^}:]+)")


def missing(loc: tuple[str | int, ...]) -> dict[str, Any]:
    """FastAPI's error for a required value not sent."""
    return {"type": "missing", "loc": loc, "msg": "Field required", "input": None}


def _validator(annotation: Any) -> TypeAdapter[Any]:
    """A validator of ``annotation``'s type with every constraint its metadata declares,
    as FastAPI builds it (its own declaration's attributes, such as an alias, left out)."""
    info = FieldInfo.from_annotation(annotation)
    target: Any = Annotated[(info.annotation, *info.metadata)] if info.metadata else info.annotation
    return TypeAdapter(target)


def _validate(
    adapter: TypeAdapter[Any], value: Any, loc: tuple[str | int, ...]
) -> tuple[Any, Errors]:
    try:
        return adapter.validate_python(value, from_attributes=True), []
    except ValidationError as exc:
        errors = exc.errors(include_url=False)
        return None, [{**error, "loc": (*loc, *error["loc"])} for error in errors]


@dataclass(frozen=True, slots=True)
class Value:
    """One parameter read from the path, the query or the headers."""

    name: str
    source: str
    key: str
    required: bool
    default: Any
    # None: handed over as found (it cannot be wrong).
    adapter: TypeAdapter[Any] | None

    def read(self, request: HTTPConnection) -> tuple[Any, Errors]:
        if self.source == "header":
            found = request.headers.get(self.key)
        elif self.source == "query":
            found = request.query_params.get(self.key)
        else:
            found = request.path_params.get(self.key)
        if found is None:
            if self.required:
                return None, [missing((self.source, self.key))]
            default = self.default
            return (default if isinstance(default, _IMMUTABLE) else copy.deepcopy(default)), []
        if self.adapter is None:
            return found, []
        return _validate(self.adapter, found, (self.source, self.key))


@dataclass(frozen=True, slots=True)
class Body:
    """The JSON body, validated as its model (at ``body`` in errors)."""

    name: str
    required: bool
    default: Any
    adapter: TypeAdapter[Any]

    def read(self, body: Any) -> tuple[Any, Errors]:
        if body is Undefined:
            if self.required:
                return None, [missing(("body",))]
            return copy.deepcopy(self.default), []
        return _validate(self.adapter, body, ("body",))


@dataclass(frozen=True, slots=True)
class Reads:
    """What one callable takes from a request: its values and the request itself."""

    values: tuple[Value, ...]
    takes_request: tuple[str, ...]

    def read(self, request: HTTPConnection) -> tuple[dict[str, Any], Errors]:
        found: dict[str, Any] = {}
        errors: Errors = []
        for value in self.values:
            read, wrong = value.read(request)
            if wrong:
                errors += wrong
            else:
                found[value.name] = read
        for name in self.takes_request:
            found[name] = request
        return found, errors


@dataclass(frozen=True, slots=True)
class Dependency:
    """A dependency of the endpoint: an async callable of request values, not nested."""

    name: str
    call: Callable[..., Coroutine[Any, Any, Any]]
    reads: Reads


@dataclass(frozen=True, slots=True)
class Signature:
    """What an endpoint takes: its dependencies, its own values and its body."""

    dependencies: tuple[Dependency, ...]
    reads: Reads
    body: Body | None
    parameters: frozenset[str]

    @classmethod
    def of(cls, endpoint: Callable[..., Any], path: str, where: str) -> Signature:
        path_names = set(_PATH_PARAMETER.findall(path))
        dependencies: list[Dependency] = []
        body: Body | None = None
        values: list[Value] = []
        takes_request: list[str] = []
        signature = _signature(endpoint, where)
        for name, parameter in signature.parameters.items():
            what = _declaration(name, parameter, path_names, where)
            if what.dependency is not None:
                if any(d.call is what.dependency for d in dependencies):
                    raise TypeError(f"{where}: the explicit path calls each dependency once")
                dependencies.append(_dependency(name, what.dependency, path_names, where))
            elif what.source == "body":
                if body is not None:
                    raise TypeError(f"{where}: the explicit path takes one JSON body")
                body = Body(name, *_default(parameter), _validator(parameter.annotation))
            elif what.source is None:
                takes_request.append(name)
            else:
                values.append(_value(name, parameter, what, where))
        reads = Reads(_in_fastapis_order(values), tuple(takes_request))
        return cls(tuple(dependencies), reads, body, frozenset(signature.parameters))


def _signature(call: Callable[..., Any], where: str) -> inspect.Signature:
    try:
        return inspect.signature(call, eval_str=True)
    except NameError as exc:  # an annotation that names what its module cannot see
        raise TypeError(f"{where}: {exc}") from None


def _declaration(
    name: str, parameter: inspect.Parameter, path_names: set[str], where: str
) -> Declared:
    """Where the parameter comes from, as FastAPI reads its declaration."""
    annotation, default = parameter.annotation, parameter.default
    if is_declaration(default):
        raise TypeError(f"{where}: {name}: declare it in Annotated, not as the default")
    if get_origin(annotation) is Annotated:
        marks = [m for m in get_args(annotation)[1:] if is_declaration(m)]
        if marks:
            what = declared(marks[-1], name, where)
            if name in path_names and what.source not in ("path", None):
                raise TypeError(f"{where}: {name} is a path parameter")
            return what
        annotation = get_args(annotation)[0]
    if inspect.isclass(annotation) and issubclass(annotation, HTTPConnection):
        return Declared()
    if inspect.isclass(annotation) and issubclass(annotation, BaseModel):
        return Declared(source="body")
    return Declared(source="path" if name in path_names else "query", alias=name)


def _default(parameter: inspect.Parameter) -> tuple[bool, Any]:
    """Whether the parameter is required, and its default."""
    if parameter.default is inspect.Parameter.empty:
        return True, None
    return False, parameter.default


def _value(name: str, parameter: inspect.Parameter, what: Declared, where: str) -> Value:
    assert what.source is not None and what.alias is not None
    required, default = _default(parameter)
    if what.source == "path" and not required:
        raise TypeError(f"{where}: the path parameter {name} has no default")
    annotation = parameter.annotation
    base = get_args(annotation)[0] if get_origin(annotation) is Annotated else annotation
    if get_origin(base) in (list, set, tuple, frozenset) or base in (list, set, tuple):
        raise TypeError(f"{where}: {name}: the explicit path reads one value, not a list")
    info = FieldInfo.from_annotation(annotation)
    as_found = not info.metadata and (
        (what.source == "path" and base is str)
        or (what.source == "header" and base == (str | None) and default is None)
    )
    adapter = None if as_found else _validator(annotation)
    return Value(name, what.source, what.alias, required, default, adapter)


def _in_fastapis_order(values: list[Value]) -> tuple[Value, ...]:
    order = {"path": 0, "query": 1, "header": 2}
    return tuple(sorted(values, key=lambda value: order[value.source]))


def _dependency(
    name: str, call: Callable[..., Any], path_names: set[str], where: str
) -> Dependency:
    if not _is_coroutine_function(call):
        raise TypeError(f"{where}: {name}: a dependency of the explicit path is async")
    signature = _signature(call, where)
    values, takes_request = [], []
    for parameter_name, parameter in signature.parameters.items():
        what = _declaration(parameter_name, parameter, path_names, where)
        if what.dependency is not None or what.source == "body":
            raise TypeError(f"{where}: {name}: dependencies are not nested and take no body")
        if what.source is None:
            takes_request.append(parameter_name)
        else:
            values.append(_value(parameter_name, parameter, what, where))
    return Dependency(name, call, Reads(_in_fastapis_order(values), tuple(takes_request)))


def _is_coroutine_function(call: Callable[..., Any]) -> bool:
    dunder_call = getattr(call, "__call__", None)  # noqa: B004 (an instance's method)
    return inspect.iscoroutinefunction(call) or inspect.iscoroutinefunction(dunder_call)
