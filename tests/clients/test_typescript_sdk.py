"""The TypeScript SDK in ``clients/typescript``, checked as CI checks the Python code.

``npm ci`` installs its locked tools; the types generated from ``openapi/openapi.json``
must equal the committed ``src/schema.ts``; ``npm test`` type-checks under ``--strict``,
runs the unit tests and plays a full game against a real ``python -m app`` (its URL in
``VATICAN_REPORT_URL``); ``npm run build`` makes the package that would be published.
Without node or npm the tests are skipped, except with ``CI=true`` where they fail.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.servers import REPO_ROOT, Server, running

SDK = REPO_ROOT / "clients" / "typescript"
VERSION = json.loads((SDK / "package.json").read_text(encoding="utf-8"))["version"]
# Generous bounds for a loaded 2-core machine: they stop a hang, they measure nothing.
INSTALL_TIMEOUT = 300
RUN_TIMEOUT = 300


def _npm() -> str:
    node, npm = shutil.which("node"), shutil.which("npm")
    if node is None or npm is None:
        message = "node and npm are needed for the TypeScript SDK (apt-get install nodejs npm)"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(message)
        pytest.skip(message)
    return npm


def npm(
    *args: str,
    env: dict[str, str] | None = None,
    timeout: int = RUN_TIMEOUT,
    cwd: Path = SDK,
) -> str:
    """Runs ``npm <args>`` in the SDK's folder; fails the test with its output on error."""
    result = subprocess.run(
        [_npm(), *args],
        cwd=cwd,
        env={**os.environ, **(env or {}), "NO_COLOR": "1", "npm_config_update_notifier": "false"},
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    output = result.stdout + result.stderr
    if result.returncode != 0:
        pytest.fail(f"npm {' '.join(args)} exited {result.returncode}:\n{output[-6000:]}")
    return output


def last_json(output: str) -> Any:
    """The JSON document npm printed last (its scripts print before it, notices after)."""
    start = max(output.rfind("\n{\n"), output.rfind("\n[\n"))
    document, _ = json.JSONDecoder().raw_decode(output[start + 1 :] if start >= 0 else output)
    return document


@pytest.fixture(scope="module")
def installed() -> None:
    """``npm ci``: exactly the versions package-lock.json pins, into node_modules."""
    npm("ci", "--no-audit", "--no-fund", timeout=INSTALL_TIMEOUT)


@pytest.fixture
def live_url(tmp_path: Path) -> Iterator[str]:
    server = Server(f"sqlite:///{tmp_path}/sdk.db", tmp_path, "sdk")
    with running(server):
        yield server.base_url
    assert "Traceback" not in server.log_path.read_text(), server.log_tail()


def test_generated_types_match_the_committed_contract(installed: None) -> None:
    output = npm("run", "check:generated")
    assert "matches openapi/openapi.json" in output


def test_drift_check_fails_on_a_stale_schema(installed: None, tmp_path: Path) -> None:
    """The check above can fail: one changed line of the generated file is caught."""
    stale = tmp_path / "schema.ts"
    generated = (SDK / "src" / "schema.ts").read_text(encoding="utf-8")
    stale.write_text(generated.replace("last_seq: number;", "last_seq: string;", 1))
    assert stale.read_text(encoding="utf-8") != generated
    result = subprocess.run(
        ["node", "scripts/check-generated.mjs", "--committed", str(stale)],
        cwd=SDK,
        capture_output=True,
        text=True,
        timeout=RUN_TIMEOUT,
        check=False,
    )
    assert result.returncode == 1, result.stdout + result.stderr
    assert "is stale: run `npm run generate`" in result.stderr


def test_sdk_type_checks_passes_its_unit_tests_and_plays_a_live_game(
    installed: None, live_url: str
) -> None:
    output = npm("test", env={"VATICAN_REPORT_URL": live_url})
    counts = {
        name: int(value)
        for name, value in re.findall(r"^\S*\s*(tests|pass|fail|skipped) (\d+)$", output, re.M)
    }
    # The live game must have run: nothing skipped, nothing failed, the whole suite counted.
    assert counts.get("fail") == 0 and counts.get("skipped") == 0, output[-4000:]
    assert counts.get("pass") == counts.get("tests") and counts.get("pass", 0) >= 30, output[-4000:]
    for name in (
        "a full game: create, faith, decisions",
        "two devices: the host's follow() keeps its version current",
        "gameState() equals a fresh read after a seeded random sequence",
        "gameState() ends typed: a seat given a new token is seat-closed",
        "five devices on one seat, four allowed: one is superseded twice in a row",
        "an event type the SDK does not know",
        "without EventSource, streamed bodies or randomUUID",
    ):
        assert f"✔ {name}" in output, output[-4000:]


def test_sdk_builds_the_package_it_would_publish(installed: None) -> None:
    npm("run", "build")
    for built in ("index.js", "index.d.ts", "schema.d.ts", "follow.js", "transport.d.ts"):
        assert (SDK / "dist" / built).is_file(), built
    packed = json.loads(npm("pack", "--dry-run", "--json", "--ignore-scripts"))
    files = {entry["path"] for entry in packed[0]["files"]}
    assert {"package.json", "README.md", "dist/index.js", "dist/index.d.ts"} <= files
    assert not any(f.startswith(("src/", "test/", "node_modules/", ".test-build/")) for f in files)


def test_npm_publish_dry_run_passes(installed: None) -> None:
    """What `npm publish` would upload, its checks and tests run (prepublishOnly, prepack)."""
    packed = last_json(npm("publish", "--dry-run", "--json"))["@vatican-report/client"]
    assert packed["name"] == "@vatican-report/client" and packed["version"] == VERSION
    files = {entry["path"] for entry in packed["files"]}
    assert {"LICENSE", "README.md", "package.json", "dist/index.js", "dist/index.d.ts"} <= files
    assert (SDK / "LICENSE").read_text() == (REPO_ROOT / "LICENSE").read_text()


def test_the_readme_install_from_the_repository_works(installed: None, tmp_path: Path) -> None:
    """The README's way until the package is published: `npm pack` in clients/typescript,
    then `npm install` the tarball in an app; the app imports it and type-checks against
    it (an ES module under NodeNext, --strict)."""
    (packed,) = last_json(npm("pack", "--json", "--pack-destination", str(tmp_path)))
    tarball = tmp_path / packed["filename"]
    app = tmp_path / "studio-app"
    app.mkdir()
    (app / "package.json").write_text(json.dumps({"name": "studio-app", "type": "module"}))
    npm("install", "--no-audit", "--no-fund", str(tarball), cwd=app)
    (app / "main.ts").write_text(
        'import { VaticanReportClient, isProblem, type Game } from "@vatican-report/client";\n'
        'const client = new VaticanReportClient({ baseUrl: "http://127.0.0.1:8000" });\n'
        "export const game: Game | undefined = client.gameState('g').current?.game;\n"
        "export const check = (e: unknown) =>\n"
        "  isProblem(e, 'version-mismatch') && e.problem.current_version;\n"
    )
    (app / "tsconfig.json").write_text(
        json.dumps(
            {
                "compilerOptions": {
                    "strict": True,
                    "noEmit": True,
                    "module": "NodeNext",
                    "moduleResolution": "NodeNext",
                    "target": "ES2022",
                    "lib": ["ES2022", "DOM"],
                    "types": [],
                },
                "files": ["main.ts"],
            }
        )
    )
    tsc = SDK / "node_modules" / "typescript" / "bin" / "tsc"
    run = subprocess.run(
        ["node", str(tsc), "-p", "tsconfig.json"],
        cwd=app,
        capture_output=True,
        text=True,
        timeout=RUN_TIMEOUT,
        check=False,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    script = (
        "import { VaticanReportClient, isUuidV4, randomIdempotencyKey }"
        " from '@vatican-report/client';"
        "new VaticanReportClient({ baseUrl: 'http://x' });"
        "console.log(isUuidV4(randomIdempotencyKey()));"
    )
    run = subprocess.run(
        ["node", "--input-type=module", "-e", script],
        cwd=app,
        capture_output=True,
        text=True,
        timeout=RUN_TIMEOUT,
        check=False,
    )
    assert run.returncode == 0 and run.stdout.strip() == "true", run.stdout + run.stderr


def test_missing_node_fails_under_ci_and_skips_elsewhere(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", "")
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="node and npm are needed"):
        _npm()
    monkeypatch.delenv("CI")
    with pytest.raises(pytest.skip.Exception, match="node and npm are needed"):
        _npm()
