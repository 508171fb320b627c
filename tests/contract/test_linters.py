"""The committed contract passes three validators with no error (nor warning):
openapi-spec-validator (the OpenAPI 3.1 schema), Redocly CLI (`recommended`) and Spectral
(`spectral:oas`), both pinned in openapi/package-lock.json and installed by `npm ci`.

Without node and npm the two npm linters skip locally but fail under CI=true.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from openapi_spec_validator import validate
from openapi_spec_validator.readers import read_from_filename

OPENAPI_DIR = Path(__file__).resolve().parents[2] / "openapi"
CONTRACT = OPENAPI_DIR / "openapi.json"
# npm ci and the linters start slowly on a loaded machine: generous, never a timing assert.
TIMEOUT_SECONDS = 900


def test_the_contract_is_a_valid_openapi_document() -> None:
    document, _ = read_from_filename(str(CONTRACT))
    validate(document)


@pytest.fixture(scope="module")
def linters() -> Path:
    """openapi/node_modules/.bin, installed from the lock file when missing or stale."""
    npm = shutil.which("npm")
    if npm is None or shutil.which("node") is None:
        message = "node and npm are needed to run Redocly CLI and Spectral"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    installed = OPENAPI_DIR / "node_modules" / ".package-lock.json"
    lock = OPENAPI_DIR / "package-lock.json"
    if not installed.exists() or installed.stat().st_mtime < lock.stat().st_mtime:
        subprocess.run(
            [npm, "ci", "--no-audit", "--no-fund", "--ignore-scripts"],
            cwd=OPENAPI_DIR,
            check=True,
            timeout=TIMEOUT_SECONDS,
        )
    return OPENAPI_DIR / "node_modules" / ".bin"


def _run(command: list[str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        command,
        cwd=OPENAPI_DIR,
        capture_output=True,
        text=True,
        timeout=TIMEOUT_SECONDS,
        env={**os.environ, "REDOCLY_TELEMETRY": "off", "NO_COLOR": "1"},
    )


def test_redocly_recommended_finds_nothing(linters: Path) -> None:
    command = ["lint", "--config", "redocly.yaml", "--format", "json", "openapi.json"]
    result = _run([str(linters / "redocly"), *command])
    assert result.returncode == 0, result.stdout + result.stderr
    report = json.loads(result.stdout)
    assert report["problems"] == []
    assert report["totals"] == {"errors": 0, "warnings": 0, "ignored": 0}


def test_spectral_oas_finds_nothing(linters: Path) -> None:
    result = _run(
        [
            str(linters / "spectral"),
            "lint",
            "--ruleset",
            ".spectral.yaml",
            "--fail-severity",
            "hint",
            "openapi.json",
        ]
    )
    output = result.stdout + result.stderr
    assert result.returncode == 0, output
    assert "No results with a severity of 'hint' or higher found" in output, output
