"""A dependency whose non-public parts the code uses is held to the minor series it is
tested on, so that a fresh install never picks a release whose internals moved."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.version import Version

PYPROJECT = Path(__file__).resolve().parents[2] / "pyproject.toml"
# Each with where the code reaches past its public API.
INTERNALS_USED = {
    "fastapi": "app/api/lean_route.py (dependency solving)",
    "starlette": "app/api routing and responses",
    "uvicorn": "app/server/protocol.py (the httptools protocol)",
    "httptools": "app/server/protocol.py (the parser's callbacks)",
}


@pytest.mark.parametrize("name", sorted(INTERNALS_USED))
def test_the_dependency_is_held_to_one_minor_series(name: str) -> None:
    declared = tomllib.loads(PYPROJECT.read_text())["project"]["dependencies"]
    (requirement,) = [Requirement(d) for d in declared if Requirement(d).name == name]
    lower = [s for s in requirement.specifier if s.operator == ">="]
    upper = [s for s in requirement.specifier if s.operator == "<"]
    assert lower and upper, f"{name} needs >= and < bounds: {INTERNALS_USED[name]}"
    low, high = Version(lower[0].version), Version(upper[0].version)
    assert (high.major, high.minor) == (low.major, low.minor + 1), requirement
