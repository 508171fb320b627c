"""docker-compose.yml as Debian's docker-compose 1.29 reads it (the Compose Specification
that Compose v2 reads too): nginx on a configurable host port in front of the replicas
nginx's upstream names, each trusting nginx's address, and the Debian-built database."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from typing import Any

import pytest
import yaml

from tests.deploy.conftest import missing
from tests.deploy.proxy import NGINX_DIR
from tests.support.servers import REPO_ROOT


def compose_config(*files: str, **env: str) -> dict[str, Any]:
    if shutil.which("docker-compose") is None:
        missing("Debian's docker-compose is not installed")
    args = ["docker-compose", "--project-directory", str(REPO_ROOT)]
    for name in files:
        args += ["-f", str(REPO_ROOT / name)]
    done = subprocess.run(
        [*args, "config"],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, **env},
    )
    assert done.returncode == 0, done.stderr
    return yaml.safe_load(done.stdout)  # type: ignore[no-any-return]


def test_nginx_is_published_on_the_host_port_asked_for() -> None:
    for env, published in (({}, 8000), ({"HOST_PORT": "18080"}, 18080)):
        nginx = compose_config("docker-compose.yml", **env)["services"]["nginx"]
        assert [(int(p["published"]), int(p["target"])) for p in nginx["ports"]] == [
            (published, 8080)
        ]


def test_nginx_fronts_the_replicas_it_names_and_they_trust_its_address() -> None:
    config = compose_config("docker-compose.yml", SUBNET_PREFIX="10.99.7")
    services = config["services"]
    upstreams = re.findall(
        r"^\s*server\s+([\w-]+):8000\b", (NGINX_DIR / "upstream.conf").read_text(), re.M
    )
    assert upstreams == ["api1", "api2", "api3"]
    nginx_address = services["nginx"]["networks"]["default"]["ipv4_address"]
    assert nginx_address == "10.99.7.10"
    assert sorted(services["nginx"]["depends_on"]) == upstreams
    for name in upstreams:
        replica = services[name]
        assert replica["environment"]["TRUSTED_PROXIES"] == f"{nginx_address}/32"
        assert replica["environment"]["DATABASE_URL"].endswith("@db:5432/vatican")
        assert replica["build"]["args"]["BASE"] == "python:3.11-slim"
        assert replica["depends_on"]["db"]["condition"] == "service_healthy"
    assert config["networks"]["default"]["ipam"]["config"] == [{"subnet": "10.99.7.0/24"}]


def test_the_debian_override_builds_every_image_from_the_bases_given() -> None:
    bases = {"PYTHON_BASE": "local/python:3.11", "DEBIAN_BASE": "local/debian:12"}
    services = compose_config("docker-compose.yml", "deploy/compose.debian.yml", **bases)[
        "services"
    ]
    assert services["db"]["build"]["args"]["BASE"] == "local/debian:12"
    assert services["db"]["image"] == "vatican-report/postgres:15"
    assert services["nginx"]["build"]["args"]["BASE"] == "local/debian:12"
    assert services["api1"]["build"]["args"]["BASE"] == "local/python:3.11"


@pytest.mark.parametrize("name", ["deploy/nginx/Dockerfile", "deploy/postgres/Dockerfile"])
def test_the_images_compose_builds_take_their_base_as_an_argument(name: str) -> None:
    text = (REPO_ROOT / name).read_text()
    assert "ARG BASE=debian:bookworm-slim" in text
    assert "FROM ${BASE}" in text
