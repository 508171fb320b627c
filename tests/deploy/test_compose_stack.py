"""docker-compose.yml run as an operator runs it, with Compose v2 (`docker compose`) and
with Debian's docker-compose 1.29: nginx, three replicas and PostgreSQL, every image made
from Debian's packages (deploy/compose.debian.yml), on a host port asked for; a full game
by curl passes through nginx; the stack comes down with its volume."""

from __future__ import annotations

import os
import random
import shutil
import subprocess
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass

import httpx
import pytest

from tests.deploy.conftest import missing
from tests.deploy.engine import BUILD_TIMEOUT, base_images
from tests.support.servers import REPO_ROOT, free_port
from tests.support.walkthrough import run_walkthrough

UP_TIMEOUT = 300.0  # seconds: from `up` until nginx answers /readyz with every replica ready


@dataclass
class Stack:
    command: list[str]
    env: dict[str, str]

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.env['HOST_PORT']}"

    def compose(self, *args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
        files = ["-f", "docker-compose.yml", "-f", "deploy/compose.debian.yml"]
        return subprocess.run(
            [*self.command, *files, *args],
            cwd=REPO_ROOT,
            env={**os.environ, **self.env},
            capture_output=True,
            text=True,
            timeout=timeout,
        )


def _compose_command(kind: str) -> list[str]:
    if kind == "v1":
        if shutil.which("docker-compose") is None:
            missing("Debian's docker-compose is not installed")
        return ["docker-compose"]
    probe = subprocess.run(["docker", "compose", "version"], capture_output=True, timeout=30)
    if probe.returncode != 0:
        missing("Compose v2 is not installed (deploy/compose/install-v2.sh)")
    return ["docker", "compose"]


@pytest.fixture(params=["v2", "v1"])
def stack(request: pytest.FixtureRequest, docker_engine: None) -> Iterator[Stack]:
    debian_base, python_base = base_images()
    stack = Stack(
        _compose_command(request.param),
        {
            "COMPOSE_PROJECT_NAME": f"vrstack{uuid.uuid4().hex[:8]}",
            "HOST_PORT": str(free_port()),
            # A subnet of its own, so that a stack left by another run never collides.
            "SUBNET_PREFIX": f"172.30.{random.randrange(100, 250)}",
            "TAG": "stack-test",
            "DEBIAN_BASE": debian_base,
            "PYTHON_BASE": python_base,
        },
    )
    try:
        up = stack.compose("up", "--build", "-d", timeout=BUILD_TIMEOUT)
        assert up.returncode == 0, up.stdout[-3000:] + up.stderr[-3000:]
        yield stack
    finally:
        logs = stack.compose("logs", "--no-color", "--tail", "40")
        print(logs.stdout[-6000:])
        down = stack.compose("down", "-v", "--remove-orphans")
        assert down.returncode == 0, down.stderr


def _wait_ready(stack: Stack) -> None:
    deadline = time.monotonic() + UP_TIMEOUT
    status = None
    while time.monotonic() < deadline:
        try:
            status = httpx.get(f"{stack.base_url}/readyz", timeout=5).status_code
            if status == 200:
                return
        except httpx.HTTPError as error:
            status = repr(error)
        time.sleep(1)
    raise AssertionError(f"nginx on {stack.base_url} not ready after {UP_TIMEOUT}s: {status}")


def test_the_stack_serves_a_full_game_through_nginx(stack: Stack) -> None:
    _wait_ready(stack)
    running = stack.compose("ps", "--services", "--filter", "status=running")
    assert set(running.stdout.split()) == {"db", "api1", "api2", "api3", "nginx"}, running
    run_walkthrough(stack.base_url)
    # nginx spreads the game's requests over the three replicas, each on the one database.
    for replica in ("api1", "api2", "api3"):
        logs = stack.compose("logs", "--no-color", replica).stdout
        assert '"route":"/v1/games/{game_id}' in logs, f"{replica} served none of the game"
