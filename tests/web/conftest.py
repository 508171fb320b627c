"""The table companion's harness: Node.js with the client's locked packages, Debian's
Chromium, and one real ``python -m app`` on a throwaway PostgreSQL database.

Node.js or Chromium missing: the browser tests are skipped, except with ``CI=true`` where
they fail (``.ci/run`` installs Chromium with apt when it is missing). No browser is ever
downloaded: playwright-core drives the machine's Chromium.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import _create_database, _drop_database, _with_database
from tests.support.servers import REPO_ROOT, Server, free_port, running
from tests.support.tile_packs import hor_pack

WEB_CLIENT = REPO_ROOT / "clients" / "web"
CHROMIUM_PATHS = ("/usr/bin/chromium", "/usr/bin/chromium-browser")


def _missing(what: str) -> None:
    message = f"{what} is missing: the table companion's browser tests cannot run"
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(message)
    pytest.skip(message)


@pytest.fixture(scope="session")
def node() -> str:
    path = shutil.which("node")
    if path is None or shutil.which("npm") is None:
        _missing("Node.js (node and npm)")
    assert path is not None
    return path


@pytest.fixture(scope="session")
def web_modules(node: str, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``clients/web/node_modules`` from its lock file (``npm ci`` when absent or stale)."""
    modules = WEB_CLIENT / "node_modules"
    marker = modules / ".package-lock.json"
    lock = WEB_CLIENT / "package-lock.json"
    # The run's workers (pytest-xdist) each run this fixture: one installs, the others wait
    # for it and then find the folder current. The lock lies in the folder the run's
    # workers share (their temp folders' parent).
    run_folder = tmp_path_factory.getbasetemp().parent
    with open(run_folder / "web-npm-ci.lock", "w") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        if not marker.is_file() or marker.stat().st_mtime < lock.stat().st_mtime:
            env = dict(os.environ, PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD="1")
            done = subprocess.run(
                ["npm", "ci", "--no-audit", "--no-fund"],
                cwd=WEB_CLIENT,
                env=env,
                capture_output=True,
                text=True,
                timeout=600,
            )
            assert done.returncode == 0, f"npm ci failed:\n{done.stdout}\n{done.stderr}"
    return modules


@pytest.fixture(scope="session")
def chromium() -> str:
    found = os.environ.get("CHROMIUM") or next(
        (path for path in CHROMIUM_PATHS if Path(path).is_file()), None
    )
    if found is None:
        _missing("Chromium (apt-get install -y chromium)")
    assert found is not None
    return found


@pytest.fixture(scope="module")
def allowed_origin() -> str:
    """The one origin the server lists in CORS_ORIGINS (the CORS test serves the page there)."""
    return f"http://127.0.0.1:{free_port()}"


@pytest.fixture(scope="module")
def table_server(
    postgres_server_url: str,
    allowed_origin: str,
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[Server]:
    """``python -m app`` (migrating first) on a fresh PostgreSQL database."""
    name = _create_database(postgres_server_url)
    folder = tmp_path_factory.mktemp("table")
    # The stand-in Houses of Renaissance pack: the form offers the fifth seat with it.
    server = Server(
        _with_database(postgres_server_url, name),
        folder,
        "table",
        env={"TILE_PACKS_DIR": str(hor_pack(folder))},
    )
    old = os.environ.get("CORS_ORIGINS")
    os.environ["CORS_ORIGINS"] = allowed_origin
    try:
        with running(server):
            yield server
    finally:
        if old is None:
            os.environ.pop("CORS_ORIGINS", None)
        else:
            os.environ["CORS_ORIGINS"] = old
        _drop_database(postgres_server_url, name)
