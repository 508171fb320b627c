"""What FastAPI's parameter declarations say, read back: the one module that reads them.

A route declares its parameters as FastAPI documents it (``Annotated[int, Query(ge=1)]``,
``Annotated[str | None, Header(alias="If-Match")]``, ``Depends(...)``), and FastAPI writes
the contract from them. The explicit request path
(:mod:`app.api.platform.request_values`) reads a request by the same declarations, so
that a parameter is declared once. FastAPI documents the functions that make the
declarations (``Query``, ``Header``, ``Path``, ``Body``, ``Depends``), not the classes of
what they return nor their attributes: reading a declaration back is not its public API.
That reading happens here and nowhere else: ``tests/packaging/test_internals_pinned.py``
fails when another module imports FastAPI's internals, and when a FastAPI release no
longer has what is read below; pyproject.toml holds FastAPI to the minor series tested.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from fastapi import params

Source = Literal["path", "query", "header", "body"]


@dataclass(frozen=True, slots=True)
class Declared:
    """One parameter's declaration: where it is read from (``source``) under which key,
    or the dependency that gives its value."""

    source: Source | None = None
    alias: str | None = None
    dependency: Callable[..., Any] | None = None


def is_declaration(item: object) -> bool:
    """Whether ``item``, met in an ``Annotated``'s metadata or as a default, is one of
    FastAPI's declarations (FastAPI takes the last one of an ``Annotated``)."""
    return isinstance(item, params.Param | params.Body | params.Depends)


def declared(item: object, name: str, where: str) -> Declared:
    """What the declaration ``item`` of the parameter ``name`` says; ``TypeError`` for a
    declaration the explicit path does not read (a cookie, a form, a file, security
    scopes, a dependency without its callable)."""
    if isinstance(item, params.Security) and item.scopes:
        raise TypeError(f"{where}: {name}: the explicit path takes no security scopes")
    if isinstance(item, params.Depends):
        if item.dependency is None or not item.use_cache:
            raise TypeError(f"{where}: {name}: a dependency names its callable, cached")
        return Declared(dependency=item.dependency)
    if isinstance(item, params.Form | params.File):
        raise TypeError(f"{where}: {name}: the explicit path takes no form or file")
    if isinstance(item, params.Body):
        if item.embed:
            raise TypeError(f"{where}: {name}: the explicit path takes one body, not embedded")
        return Declared(source="body")
    if isinstance(item, params.Path | params.Query | params.Header):
        source: Source = item.in_.value  # type: ignore[assignment]
        return Declared(source=source, alias=item.alias or _default_alias(item, name))
    raise TypeError(f"{where}: {name}: the explicit path takes no {type(item).__name__}")


def _default_alias(item: params.Param, name: str) -> str:
    """FastAPI's key for a parameter declared without an alias: a header's name with its
    underscores as hyphens (unless told not to), else the name itself."""
    if isinstance(item, params.Header) and item.convert_underscores:
        return name.replace("_", "-")
    return name
