"""What a release is made of: one version per package, written once; the licence in every
package's metadata; a CHANGELOG entry for the versions being released; and the sdist and
wheel that would be uploaded, built by ``python -m build`` and passed by ``twine check``.
(The SDK's ``npm publish --dry-run`` is in tests/clients.)"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import app
from app.main import create_app
from app.settings import Settings
from tests.support.servers import REPO_ROOT

PYPROJECT = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text(encoding="utf-8"))
SDK_PACKAGE = json.loads((REPO_ROOT / "clients/typescript/package.json").read_text("utf-8"))
CHANGELOG = REPO_ROOT / "CHANGELOG.md"
SEMVER = re.compile(r"^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)$")
BUILD_TIMEOUT_SECONDS = 900  # a cold cache downloads hatchling: a bound, not a timing


def test_the_service_version_is_written_once() -> None:
    """pyproject.toml takes it from app/__init__.py, and so does the contract's info."""
    assert "version" not in PYPROJECT["project"]
    assert "version" in PYPROJECT["project"]["dynamic"]
    assert PYPROJECT["tool"]["hatch"]["version"]["path"] == "app/__init__.py"
    assert SEMVER.match(app.__version__), app.__version__
    served = create_app(Settings(database_url="sqlite://")).openapi()["info"]
    assert served["version"] == app.__version__
    committed = json.loads((REPO_ROOT / "openapi/openapi.json").read_text("utf-8"))["info"]
    assert committed["version"] == app.__version__


def test_every_package_is_mit_licensed() -> None:
    assert (REPO_ROOT / "LICENSE").read_text(encoding="utf-8").startswith("MIT License")
    assert PYPROJECT["project"]["license"] == "MIT"
    assert PYPROJECT["project"]["license-files"] == ["LICENSE"]
    assert SDK_PACKAGE["license"] == "MIT"
    web = json.loads((REPO_ROOT / "clients/web/package.json").read_text("utf-8"))
    assert web["license"] == "MIT"
    served = create_app(Settings(database_url="sqlite://")).openapi()["info"]
    assert served["license"] == {"name": "MIT", "identifier": "MIT"}


def test_the_changelog_has_the_versions_being_released() -> None:
    """Keep a Changelog: an Unreleased section on top, then the release these package
    versions make, the service's and the SDK's."""
    changelog = CHANGELOG.read_text(encoding="utf-8")
    headings = re.findall(r"^## \[([^\]]+)\](?: - (\d{4}-\d{2}-\d{2}))?$", changelog, re.M)
    assert headings[0] == ("Unreleased", "")
    version, date = headings[1]
    assert version == app.__version__ and date, headings[1]
    release = changelog.split(f"## [{version}]", 1)[1].split("\n## [", 1)[0]
    assert f"`@vatican-report/client` {SDK_PACKAGE['version']}" in release
    assert SEMVER.match(SDK_PACKAGE["version"]), SDK_PACKAGE["version"]
    # The tags the release is made with, one per package.
    assert f"`v{version}`" in release and f"`sdk-v{SDK_PACKAGE['version']}`" in release


def test_build_makes_an_sdist_and_a_wheel_that_twine_passes(tmp_path: Path) -> None:
    out = tmp_path / "dist"

    def run(*args: str) -> str:
        done = subprocess.run(
            [sys.executable, "-m", *args],
            cwd=REPO_ROOT,
            capture_output=True,
            text=True,
            timeout=BUILD_TIMEOUT_SECONDS,
            check=False,
        )
        assert done.returncode == 0, done.stdout + done.stderr
        return done.stdout

    run("build", "--sdist", "--wheel", "--outdir", str(out), ".")
    checked = run("twine", "check", "--strict", *map(str, sorted(out.iterdir())))
    assert checked.count("PASSED") == 2 and "WARNING" not in checked, checked
    (wheel,) = out.glob("*.whl")
    assert wheel.name == f"vatican_report-{app.__version__}-py3-none-any.whl"
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        info = f"vatican_report-{app.__version__}.dist-info"
        metadata = archive.read(f"{info}/METADATA").decode()
    assert f"\nVersion: {app.__version__}\n" in metadata
    assert "\nLicense-Expression: MIT\n" in metadata
    assert f"{info}/licenses/LICENSE" in names
