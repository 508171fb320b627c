"""The domain stays pure: the import-linter contracts of pyproject.toml hold."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]


def lint_imports(*args: str) -> subprocess.CompletedProcess[str]:
    command = shutil.which("lint-imports") or str(Path(sys.executable).parent / "lint-imports")
    if not Path(command).exists():
        pytest.skip("import-linter is not installed")
    return subprocess.run(
        [command, "--no-cache", *args],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_import_contracts_pass() -> None:
    done = lint_imports()
    assert done.returncode == 0, done.stdout + done.stderr
    assert "BROKEN" not in done.stdout
