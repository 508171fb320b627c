"""The service's image, built and run through the machine's Docker engine, for tests/deploy.

The image is built from a base made of Debian's packages (deploy/base/build.sh, cached on
the machine), since the public registry may be out of reach; containers use the host's
network, so they reach the machine's PostgreSQL at 127.0.0.1 and are reached on a port of
their own. Every container this starts is removed when its test ends.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from tests.support.servers import REPO_ROOT, free_port

IMAGE = "vatican-report:deploy-test"
BUILD_TIMEOUT = 900  # seconds: a first base from Debian's packages takes a few minutes


def engine_problem() -> str | None:
    """Why no container can be run here, or None when the engine answers."""
    if shutil.which("docker") is None:
        return "the docker client is not installed"
    done = subprocess.run(
        ["docker", "info", "--format", "{{.ServerVersion}}"],
        capture_output=True,
        text=True,
        timeout=30,
    )
    if done.returncode != 0:
        return f"the Docker engine does not answer: {done.stderr.strip()[-300:]}"
    return None


def docker(*args: str, timeout: float = 60, check: bool = True) -> str:
    done = subprocess.run(["docker", *args], capture_output=True, text=True, timeout=timeout)
    if check and done.returncode != 0:
        raise AssertionError(f"docker {' '.join(args)}: {done.stdout}{done.stderr}")
    return done.stdout


def base_images() -> tuple[str, str]:
    """The Debian and Python bases made from Debian's packages (made only when missing)."""
    bases = subprocess.run(
        ["bash", str(REPO_ROOT / "deploy" / "base" / "build.sh")],
        capture_output=True,
        text=True,
        timeout=BUILD_TIMEOUT,
    )
    assert bases.returncode == 0, bases.stdout[-3000:] + bases.stderr[-3000:]
    debian_base, python_base = bases.stdout.split()[-2:]
    return debian_base, python_base


def build_image() -> str:
    """The base images, then the service's image on them."""
    _debian_base, python_base = base_images()
    docker(
        "build",
        "--network",
        "host",
        "--build-arg",
        f"BASE={python_base}",
        "-t",
        IMAGE,
        str(REPO_ROOT),
        timeout=BUILD_TIMEOUT,
    )
    return IMAGE


@dataclass
class Container:
    name: str
    port: int

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def inspect(self) -> dict[str, object]:
        return json.loads(docker("inspect", self.name))[0]  # type: ignore[no-any-return]

    def state(self) -> dict[str, object]:
        return self.inspect()["State"]  # type: ignore[return-value]

    def health(self) -> str:
        health = self.state().get("Health")
        return str(health["Status"]) if isinstance(health, dict) else "none"

    def logs(self) -> str:
        done = subprocess.run(
            ["docker", "logs", self.name], capture_output=True, text=True, timeout=30
        )
        return done.stdout + done.stderr

    def wait_healthy(self, timeout: float = 90) -> None:
        """Until Docker itself calls it healthy (the image's HEALTHCHECK)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            state = self.state()
            if not state.get("Running"):
                raise AssertionError(f"{self.name} stopped:\n{self.logs()[-3000:]}")
            if self.health() == "healthy":
                return
            time.sleep(0.5)
        raise AssertionError(f"{self.name} not healthy after {timeout}s:\n{self.logs()[-3000:]}")

    def wait_exited(self, timeout: float) -> int:
        """The container's exit code, once it has stopped (AssertionError past ``timeout``)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            state = self.state()
            if not state.get("Running"):
                return int(state["ExitCode"])  # type: ignore[call-overload]
            time.sleep(0.1)
        raise AssertionError(f"{self.name} still running {timeout}s later")


@contextmanager
def run_containers(image: str, count: int, env: dict[str, str]) -> Iterator[list[Container]]:
    """``count`` containers of ``image`` started at once on the host's network, each on a
    port of its own; removed at the end, whatever happened."""
    containers = [
        Container(f"vr-deploy-test-{uuid.uuid4().hex[:10]}", free_port()) for _ in range(count)
    ]
    started: list[subprocess.Popen[str]] = []
    try:
        for container in containers:
            settings = {"HOST": "127.0.0.1", "PORT": str(container.port), **env}
            args = ["docker", "run", "-d", "--name", container.name, "--network", "host"]
            for key, value in settings.items():
                args += ["-e", f"{key}={value}"]
            started.append(
                subprocess.Popen(
                    [*args, image], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
                )
            )
        for process in started:
            _out, err = process.communicate(timeout=120)
            assert process.returncode == 0, err
        yield containers
    finally:
        for process in started:
            if process.poll() is None:
                process.kill()
        names = [container.name for container in containers]
        subprocess.run(["docker", "rm", "-f", *names], capture_output=True, timeout=60)
