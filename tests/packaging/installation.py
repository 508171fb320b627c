"""The project as a user installs it: a wheel built from this checkout, installed with the
locked runtime dependencies into a fresh virtualenv (the ``installation`` fixture)."""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from tests.support.servers import REPO_ROOT

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


def install(root: Path) -> Installation:
    """A fresh venv in ``root`` holding ``requirements/runtime.txt`` (hash-checked) and this
    project's wheel, built by ``pip wheel .`` as ``pip install .`` does (and the Dockerfile)."""
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
