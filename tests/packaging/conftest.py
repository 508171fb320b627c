"""The project as a user installs it: a wheel built from this checkout, installed with the
locked runtime dependencies into a fresh virtualenv, once per test session."""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.live_server import REPO_ROOT

# Building and installing: generous, since pip may have to download on a cold cache.
INSTALL_TIMEOUT_SECONDS = 900


@dataclass(frozen=True)
class Installation:
    venv: Path
    python: Path
    wheel: Path


def outside_the_checkout() -> dict[str, str]:
    """The environment without PYTHONPATH, so nothing can import from the checkout."""
    return {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}


def run(*args: str | Path, cwd: Path) -> str:
    done = subprocess.run(
        [str(arg) for arg in args],
        cwd=cwd,
        env=outside_the_checkout(),
        capture_output=True,
        text=True,
        timeout=INSTALL_TIMEOUT_SECONDS,
    )
    assert done.returncode == 0, f"{args} failed:\n{done.stdout}\n{done.stderr}"
    return done.stdout


@pytest.fixture(scope="session")
def installation(tmp_path_factory: pytest.TempPathFactory) -> Installation:
    """A fresh venv holding ``requirements/runtime.txt`` (hash-checked) and this project's
    wheel, built by ``pip wheel .`` like ``pip install .`` does (and the Dockerfile)."""
    root = tmp_path_factory.mktemp("installation")
    venv = root / "venv"
    run(sys.executable, "-m", "venv", venv, cwd=root)
    python = venv / "bin" / "python"
    pip = (python, "-m", "pip", "--quiet", "--disable-pip-version-check")
    run(*pip, "wheel", "--no-deps", "--wheel-dir", root / "wheel", REPO_ROOT, cwd=root)
    (wheel,) = (root / "wheel").glob("*.whl")
    runtime_lock = REPO_ROOT / "requirements" / "runtime.txt"
    run(*pip, "install", "--require-hashes", "--requirement", runtime_lock, cwd=root)
    run(*pip, "install", "--no-deps", wheel, cwd=root)
    return Installation(venv=venv, python=python, wheel=wheel)
