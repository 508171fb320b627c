"""Fixtures of tests/deploy: the Docker engine and the service's image, Debian's nginx.

A missing engine or nginx skips the tests that need it, except with ``CI=true`` where they
fail (``.ci/run`` installs docker.io, nginx and debootstrap, and starts the engine).
"""

from __future__ import annotations

import os
import shutil

import pytest

from tests.deploy.engine import build_image, engine_problem


def missing(what: str) -> None:
    message = f"{what}: the deployment tests cannot run"
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(message)
    pytest.skip(message)


@pytest.fixture(scope="session")
def docker_engine() -> None:
    problem = engine_problem()
    if problem is not None:
        missing(problem)


@pytest.fixture(scope="session")
def service_image(docker_engine: None) -> str:
    """The service's image on a base made from Debian's packages, built once a session."""
    return build_image()


@pytest.fixture(scope="session")
def nginx_binary() -> str:
    path = shutil.which("nginx", path=f"{os.environ.get('PATH', '')}:/usr/sbin")
    if path is None:
        missing("Debian's nginx is not installed")
    assert path is not None
    return path
