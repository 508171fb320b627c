"""What the service uses of its web dependencies beyond their public APIs is confined to one
module per dependency, held to the minor series it is tested on, and checked here, so that
an upgrade that moves it fails loudly instead of serving differently.

- ``app/api/platform/fastapi_internals.py`` reads FastAPI's parameter declarations back;
- ``app/server/uvicorn_internals.py`` bounds uvicorn's httptools protocol and uses its
  workers' supervisor.

Starlette is used through its public modules only.
"""

from __future__ import annotations

import ast
import asyncio
import hashlib
import inspect
import re
import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.version import Version

ROOT = Path(__file__).resolve().parents[2]
PYPROJECT = ROOT / "pyproject.toml"
FASTAPI_INTERNALS = "app/api/platform/fastapi_internals.py"
UVICORN_INTERNALS = "app/server/uvicorn_internals.py"
# Each dependency held to one minor series, with where the code reaches past its public API.
INTERNALS_USED = {
    "fastapi": FASTAPI_INTERNALS,
    "starlette": "none: pinned with FastAPI, which is built on its internals",
    "uvicorn": UVICORN_INTERNALS,
    "httptools": f"{UVICORN_INTERNALS} (the parser's callbacks)",
}
# The public modules of each dependency (everything of Starlette's but its _private ones).
PUBLIC = {
    "fastapi": {
        "fastapi",
        "fastapi.concurrency",
        "fastapi.exceptions",
        "fastapi.openapi.docs",
        "fastapi.openapi.utils",
        "fastapi.responses",
        "fastapi.routing",
        "fastapi.security",
        "fastapi.staticfiles",
    },
    "uvicorn": {"uvicorn"},
}


def _imports(path: Path) -> list[tuple[str, str | None]]:
    """The (module, name) pairs ``path`` imports (name None for ``import module``)."""
    found: list[tuple[str, str | None]] = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found += [(alias.name, None) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found += [(node.module, alias.name) for alias in node.names]
    return found


def _reaches_past_public(module: str, name: str | None) -> bool:
    package = module.split(".")[0]
    if package not in ("fastapi", "starlette", "uvicorn"):
        return False
    if any(part.startswith("_") for part in module.split(".")):
        return True
    if name is not None and name.startswith("_"):
        return True
    if package == "starlette":
        return False
    if module not in PUBLIC[package]:
        return True
    # ``from fastapi import params`` is a module of FastAPI's internals, not a public name.
    return name in ("params", "dependencies", "datastructures", "_compat")


def test_only_the_guarded_modules_reach_past_the_public_apis() -> None:
    reaching = {
        f"{path.relative_to(ROOT)}: {module} {name or ''}".strip()
        for path in sorted((ROOT / "app").rglob("*.py"))
        for module, name in _imports(path)
        if _reaches_past_public(module, name)
        and str(path.relative_to(ROOT)) not in (FASTAPI_INTERNALS, UVICORN_INTERNALS)
    }
    assert reaching == set()


@pytest.mark.parametrize("name", sorted(INTERNALS_USED))
def test_the_dependency_is_held_to_one_minor_series(name: str) -> None:
    declared = tomllib.loads(PYPROJECT.read_text())["project"]["dependencies"]
    (requirement,) = [Requirement(d) for d in declared if Requirement(d).name == name]
    lower = [s for s in requirement.specifier if s.operator == ">="]
    upper = [s for s in requirement.specifier if s.operator == "<"]
    assert lower and upper, f"{name} needs >= and < bounds: {INTERNALS_USED[name]}"
    low, high = Version(lower[0].version), Version(upper[0].version)
    assert (high.major, high.minor) == (low.major, low.minor + 1), requirement


def test_fastapis_declarations_still_say_what_is_read_back() -> None:
    from fastapi import Body, Cookie, Depends, File, Form, Header, Path, Query, Security

    from app.api.platform.fastapi_internals import Declared, declared, is_declaration

    async def call() -> None:
        return None

    assert declared(Query(), "page", "t") == Declared(source="query", alias="page")
    assert declared(Query(alias="p"), "page", "t") == Declared(source="query", alias="p")
    assert declared(Path(), "game_id", "t") == Declared(source="path", alias="game_id")
    assert declared(Header(), "if_match", "t") == Declared(source="header", alias="if-match")
    unconverted = Header(convert_underscores=False)
    assert declared(unconverted, "x_a", "t") == Declared(source="header", alias="x_a")
    assert declared(Body(), "body", "t") == Declared(source="body")
    assert declared(Depends(call), "value", "t") == Declared(dependency=call)
    assert declared(Security(call), "value", "t") == Declared(dependency=call)
    for refused in (
        Cookie(),
        Form(),
        File(),
        Body(embed=True),
        Depends(),
        Security(call, scopes=["a"]),
    ):
        assert is_declaration(refused)
        with pytest.raises(TypeError):
            declared(refused, "value", "t")
    assert not is_declaration(object())


# What app/server/uvicorn_internals.py overrides (with the parameters it takes) and uses.
UVICORN_OVERRIDES = {
    "__init__": ["self", "config", "server_state", "app_state", "_loop"],
    "connection_made": ["self", "transport"],
    "connection_lost": ["self", "exc"],
    "data_received": ["self", "data"],
    "on_message_begin": ["self"],
    "on_url": ["self", "url"],
    "on_header": ["self", "name", "value"],
    "on_headers_complete": ["self"],
    "on_message_complete": ["self"],
    "on_response_complete": ["self"],
    "pause_writing": ["self"],
    "resume_writing": ["self"],
    "_start_asgi_task": ["self", "cycle", "app"],
}
UVICORN_METHODS = [
    "timeout_keep_alive_handler",
]
UVICORN_ATTRIBUTES = [
    "parser",
    "cycle",
    "pipeline",
    "server_state",
    "connections",
    "flow",
    "loop",
    "logger",
    "app",
]
# The code of uvicorn's methods that EdgeHttpToolsProtocol re-implements: a release that
# changes one must be read, and the re-implementation follow.
REIMPLEMENTED_SHA256 = {
    "data_received": "010a7ae59a5d3b1a5e7326ce246878568629d126a076d8af5ba10cab040fae43",
    "on_response_complete": "64e254f28e389e7614f2c828176d639174e66aa9d814a4b06624ec86ec0a5b95",
}


def test_uvicorns_protocol_still_has_what_the_bounded_protocol_uses() -> None:
    from uvicorn import Config
    from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
    from uvicorn.server import ServerState

    for method, parameters in UVICORN_OVERRIDES.items():
        signature = inspect.signature(getattr(HttpToolsProtocol, method))
        assert list(signature.parameters) == parameters, method
    for method in UVICORN_METHODS:
        assert callable(getattr(HttpToolsProtocol, method)), method
    for method, digest in REIMPLEMENTED_SHA256.items():
        source = inspect.getsource(getattr(HttpToolsProtocol, method))
        assert hashlib.sha256(source.encode()).hexdigest() == digest, method
    # The edge holds idle connections with a keep-alive timer of its own: uvicorn must arm
    # its own nowhere but in on_response_complete, which the edge does not call.
    arming = [
        name
        for name, function in inspect.getmembers(HttpToolsProtocol, inspect.isfunction)
        if "self.timeout_keep_alive_task = self.loop" in inspect.getsource(function)
    ]
    assert arming == ["on_response_complete"], arming
    # The edge paces requests per address where their apps start: uvicorn must start an
    # app nowhere but in _start_asgi_task, and call that from nowhere else than here.
    starting = {
        name
        for name, function in inspect.getmembers(HttpToolsProtocol, inspect.isfunction)
        if "run_asgi(" in inspect.getsource(function)
    }
    assert starting == {"_start_asgi_task"}, starting
    calling = {
        name
        for name, function in inspect.getmembers(HttpToolsProtocol, inspect.isfunction)
        if "self._start_asgi_task(" in inspect.getsource(function)
    }
    assert calling == {"on_headers_complete", "on_response_complete"}, calling

    async def app(scope: object, receive: object, send: object) -> None:
        return None

    config = Config(app)
    config.load()
    loop = asyncio.new_event_loop()
    try:
        protocol = HttpToolsProtocol(config, ServerState(), {}, loop)
        for attribute in UVICORN_ATTRIBUTES:
            assert hasattr(protocol, attribute), attribute
        assert hasattr(ServerState(), "default_headers")
    finally:
        loop.close()


# What a request's cycle calls on its transport, which OneWriteAnswer stands in for.
CYCLE_TRANSPORT_CALLS = {"write", "close", "is_closing"}
# What the edge reads or sets of a request's cycle (a body timed out or cut short).
CYCLE_ATTRIBUTES = {
    "disconnected",
    "keep_alive",
    "message_event",
    "more_body",
    "response_complete",
    "response_started",
    # Its request's headers (the client's X-Request-ID, X-Forwarded-For) and the ASGI
    # extension the edge leaves for the app (app/asgi_extensions.py).
    "scope",
    "transport",
    "waiting_for_100_continue",
}


def test_a_cycle_still_has_what_the_edge_reads_and_sets() -> None:
    from uvicorn.protocols.http.httptools_impl import RequestResponseCycle

    used = set(re.findall(r"cycle\.(\w+)", (ROOT / UVICORN_INTERNALS).read_text()))
    assert used == CYCLE_ATTRIBUTES, "list here what the edge uses of a cycle"
    made = set(re.findall(r"self\.(\w+) =", inspect.getsource(RequestResponseCycle.__init__)))
    assert made >= CYCLE_ATTRIBUTES, CYCLE_ATTRIBUTES - made


def test_a_cycles_transport_is_still_an_attribute_used_for_what_one_write_answer_has() -> None:
    from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol, RequestResponseCycle

    from app.server.uvicorn_internals import OneWriteAnswer

    source = inspect.getsource(RequestResponseCycle)
    assert "self.transport = transport" in inspect.getsource(RequestResponseCycle.__init__)
    assert set(re.findall(r"self\.transport\.(\w+)", source)) == CYCLE_TRANSPORT_CALLS
    assert all(callable(getattr(OneWriteAnswer, call)) for call in CYCLE_TRANSPORT_CALLS)
    # The cycle is made in on_headers_complete, where the edge protocol wraps its transport.
    assert "RequestResponseCycle(" in inspect.getsource(HttpToolsProtocol.on_headers_complete)


def test_uvicorns_supervisor_and_startup_status_are_still_there() -> None:
    from app.server.uvicorn_internals import STARTUP_FAILURE, Multiprocess

    assert isinstance(STARTUP_FAILURE, int) and STARTUP_FAILURE != 0
    # app/server/serve.py: Multiprocess(config, sockets=[socket]).run()
    assert list(inspect.signature(Multiprocess).parameters)[:2] == ["config", "sockets"]
    assert callable(Multiprocess.run)
