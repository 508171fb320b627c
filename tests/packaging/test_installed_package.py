"""`pip install .` then `python -m app` from any folder: the installed package carries its
migrations (as ``app/migrations``), migrates a new database and serves, with nothing from
the checkout on its path."""

from __future__ import annotations

import zipfile
from pathlib import Path

import httpx
import pytest

from tests.packaging.installation import Installation, run
from tests.support.servers import REPO_ROOT, Server, running

MIGRATIONS = REPO_ROOT / "migrations"


def test_the_wheel_carries_the_migrations_inside_the_app_package(
    installation: Installation,
) -> None:
    names = zipfile.ZipFile(installation.wheel).namelist()
    shipped = sorted(
        name.removeprefix("app/migrations/") for name in names if name.startswith("app/migrations/")
    )
    in_checkout = sorted(
        path.relative_to(MIGRATIONS).as_posix()
        for path in MIGRATIONS.rglob("*")
        if path.is_file() and "__pycache__" not in path.parts
    )
    assert shipped == in_checkout
    # Only `app` reaches site-packages: a top-level `migrations` would collide with other
    # projects' packages of that name.
    assert {name.split("/")[0] for name in names if ".dist-info/" not in name} == {"app"}
    assert not [name for name in names if "__pycache__" in name or name.endswith(".pyc")]


def test_the_installed_service_migrates_and_serves_from_an_unrelated_folder(
    installation: Installation, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("PYTHONPATH", raising=False)
    folder = tmp_path / "elsewhere"
    folder.mkdir()
    imported = run(installation.python, "-c", "import app; print(app.__file__)", cwd=folder)
    assert Path(imported.strip()).is_relative_to(installation.venv)
    found = run(
        installation.python,
        "-c",
        "import importlib.util; print(importlib.util.find_spec('migrations'))",
        cwd=folder,
    )
    assert found.strip() == "None"

    # The default DATABASE_URL, relative to the working folder.
    server = Server(
        "sqlite:///var/vatican-report.db",
        tmp_path,
        "installed",
        python=str(installation.python),
        cwd=folder,
    )
    with running(server), httpx.Client(base_url=server.base_url, timeout=10) as http:
        assert http.get("/readyz").status_code == 200
        # The table companion's committed build (app/web) ships in the wheel.
        table = http.get("/table/")
        assert table.status_code == 200 and 'type="module"' in table.text
        created = http.post(
            "/v1/games", json={"players": [{"name": "Anna"}, {"name": "Bruno"}], "seed": 42}
        )
        assert created.status_code == 201, created.text
        game = created.json()
        read = http.get(
            created.headers["Location"],
            headers={"Authorization": f"Bearer {game['host_token']}"},
        )
        assert read.status_code == 200, read.text
        assert read.json()["tiles"]["1"]["id"] == "I-6"  # docs/rules.md: seed 42 draws I-6
    assert (folder / "var" / "vatican-report.db").is_file()
