"""Clients generated from the committed contract with each generator's default settings
type-check cleanly: what a studio gets on its first afternoon, with no flag to learn.

- openapi-typescript (+ openapi-fetch) and @hey-api/openapi-ts, pinned by
  ``tests/contract/generators/package-lock.json``, each generate into a scratch ES-module
  project compiled by ``tsc --strict`` under NodeNext resolution, with a small consumer
  (``generators/consumers/``) that creates a game with only the fields it means;
- openapi-python-client (a dev dependency, pinned by the lock files) generates a client
  package that ``mypy --strict`` must pass.

Generated code is never committed. Without node and npm the TypeScript generators skip
locally and fail under ``CI=true``.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from fastapi import FastAPI
from pydantic import BaseModel

from app.api.documentation.openapi_document import build_openapi

ROOT = Path(__file__).resolve().parents[2]
CONTRACT = ROOT / "openapi" / "openapi.json"
GENERATORS = Path(__file__).resolve().parent / "generators"
# npm ci, the generators and tsc start slowly on a loaded machine: a bound, not a timing.
TIMEOUT_SECONDS = 600


def _run(command: list[str], cwd: Path, env: dict[str, str] | None = None) -> str:
    result = subprocess.run(
        command,
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=TIMEOUT_SECONDS,
        env={**os.environ, "NO_COLOR": "1", **(env or {})},
        check=False,
    )
    output = result.stdout + result.stderr
    assert result.returncode == 0, f"{' '.join(command)} exited {result.returncode}:\n{output}"
    return output


@pytest.fixture(scope="module")
def node_modules() -> Path:
    """tests/contract/generators/node_modules, installed from its lock file when stale."""
    npm = shutil.which("npm")
    if npm is None or shutil.which("node") is None:
        message = "node and npm are needed to run the TypeScript generators"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(message)
        pytest.skip(message)
    installed = GENERATORS / "node_modules" / ".package-lock.json"
    lock = GENERATORS / "package-lock.json"
    if not installed.exists() or installed.stat().st_mtime < lock.stat().st_mtime:
        _run([npm, "ci", "--no-audit", "--no-fund"], GENERATORS)
    return GENERATORS / "node_modules"


def _project(tmp_path: Path, node_modules: Path, consumer: str) -> Path:
    """A scratch ES-module project with the generators' tsconfig and the consumer."""
    project = tmp_path / "project"
    project.mkdir()
    (project / "node_modules").symlink_to(node_modules, target_is_directory=True)
    (project / "package.json").write_text(json.dumps({"type": "module", "private": True}))
    shutil.copy(GENERATORS / "tsconfig.json", project / "tsconfig.json")
    shutil.copy(GENERATORS / "consumers" / consumer, project / "consumer.ts")
    return project


def _tsc(project: Path, node_modules: Path) -> None:
    tsc = node_modules / "typescript" / "bin" / "tsc"
    _run(["node", str(tsc), "-p", str(project / "tsconfig.json")], project)


def test_openapi_typescript_with_openapi_fetch(tmp_path: Path, node_modules: Path) -> None:
    project = _project(tmp_path, node_modules, "openapi-typescript.ts")
    cli = node_modules / "openapi-typescript" / "bin" / "cli.js"
    schema = project / "generated" / "schema.ts"
    _run(["node", str(cli), str(CONTRACT), "--output", str(schema)], project)
    # Every field that has a default is optional in a request: none is typed as required.
    assert "players_enter_faith?: boolean" in schema.read_text(encoding="utf-8")
    _tsc(project, node_modules)


def test_hey_api_openapi_ts(tmp_path: Path, node_modules: Path) -> None:
    project = _project(tmp_path, node_modules, "hey-api.ts")
    package = node_modules / "@hey-api" / "openapi-ts"
    cli = package / json.loads((package / "package.json").read_text())["bin"]["openapi-ts"]
    _run(["node", str(cli), "--input", str(CONTRACT), "--output", "generated"], project)
    index = (project / "generated" / "index.ts").read_text(encoding="utf-8")
    assert "from './sdk.gen.js'" in index, "hey-api wrote imports NodeNext cannot resolve"
    _tsc(project, node_modules)


def test_openapi_python_client_passes_mypy_strict(tmp_path: Path) -> None:
    bin_dir = Path(sys.executable).parent
    found = shutil.which("openapi-python-client", path=str(bin_dir))
    if found is None:
        pytest.fail("openapi-python-client is not installed (it is a dev dependency)")
    # Its post-generation hook runs ruff, installed beside this Python.
    path = f"{bin_dir}{os.pathsep}{os.environ['PATH']}"
    output = _run([found, "generate", "--path", str(CONTRACT)], tmp_path, env={"PATH": path})
    # It still exits 0 when it skips an operation or a schema it cannot read.
    assert "Warning" not in output and "Unable to" not in output, output
    (package,) = [p for p in tmp_path.glob("*/*") if (p / "client.py").is_file()]
    _run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental", package.name],
        package.parent,
    )


class Undo(BaseModel):
    steps: int = 1
    reason: str


class Undo2(BaseModel):
    undo2: str


def test_schemas_added_later_are_made_plain_too() -> None:
    """The transformation is generic: a new request model's defaults and a new model named
    like one of its fields are handled with no per-schema edit."""
    app = FastAPI(title="t", version="0")

    @app.post("/undo", operation_id="undo")
    def undo(body: Undo) -> Undo2:
        return Undo2(undo2=body.reason)

    schemas = build_openapi(app)["components"]["schemas"]
    steps = schemas["Undo"]["properties"]["steps"]
    assert "default" not in steps and steps["description"].endswith("Default: `1`.")
    assert schemas["Undo2"]["title"] == "Undo2Model"
    assert schemas["Undo"]["title"] == "Undo"
