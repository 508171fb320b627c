"""The recipes of docs/architecture.md, carried out: each test copies the project into a
temporary folder, makes a recipe's edits there by hand (as a newcomer would, in the files
the recipe names and nowhere else), and checks that what the service derives from them
(the problem catalogue, the handlers, the settings, the contract) follows. The number of
files each recipe edits is the number the architecture page states: a recipe that needs
one more file fails here, and so does a page that counts wrong."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
ARCHITECTURE = ROOT / "docs" / "architecture.md"
WORDS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6}


@dataclass(frozen=True)
class Edit:
    """Text inserted into a file of the copy, after an anchor the file holds once (or at
    its end)."""

    path: str
    text: str
    after: str | None = None

    def make(self, root: Path) -> None:
        file = root / self.path
        source = file.read_text()
        if self.after is None:
            file.write_text(source.rstrip("\n") + "\n" + self.text)
            return
        assert source.count(self.after) == 1, f"{self.path}: the anchor {self.after!r} moved"
        file.write_text(source.replace(self.after, self.after + self.text))


def stated_count(recipe: str) -> int:
    """The number of hand-edited files the architecture page states for a recipe: the
    "<N> file(s) ..." that closes its section."""
    text = ARCHITECTURE.read_text()
    section = text.split(f"## {recipe}", 1)[1].split("\n## ", 1)[0]
    match = re.search(r"\*\*(\w+) files?\b", section)
    assert match, f"docs/architecture.md: the recipe {recipe!r} states no count (**N files**)"
    word = match.group(1).lower()
    return WORDS.get(word) or int(word)


@pytest.fixture
def copy(tmp_path: Path) -> Path:
    """The project's code, documentation and docs tests, without its data or tools."""
    for part in ("app", "docs", "openapi"):
        shutil.copytree(ROOT / part, tmp_path / part, ignore=shutil.ignore_patterns("*.pyc"))
    for part in ("README.md", "pyproject.toml"):
        shutil.copy(ROOT / part, tmp_path / part)
    (tmp_path / "tests" / "docs").mkdir(parents=True)
    for part in ("tests/__init__.py", "tests/docs/__init__.py"):
        if (ROOT / part).exists():
            shutil.copy(ROOT / part, tmp_path / part)
    shutil.copy(ROOT / "tests/docs/test_settings_table.py", tmp_path / "tests/docs")
    return tmp_path


def run_in(root: Path, code: str) -> str:
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        cwd=root,
        env={"PYTHONPATH": str(root), "PATH": "/usr/bin:/bin", "DATABASE_URL": "sqlite://"},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


def test_a_new_problem_slug_is_one_declaration(copy: Path) -> None:
    edits = [
        Edit(
            "app/domain/errors.py",
            textwrap.dedent(
                """

                class TileRetired(ServiceError):
                    slug = "tile-retired"
                    kind = Kind.CONFLICT
                    title = "Tile retired"
                    description = "The tile was withdrawn from the catalogue."
                """
            ),
        )
    ]
    assert len(edits) == stated_count("Adding a problem slug")
    for edit in edits:
        edit.make(copy)
    out = run_in(
        copy,
        """
        from fastapi.testclient import TestClient
        from app.domain.errors import TileRetired
        from app.main import create_app

        app = create_app()

        @app.get("/raise-it")
        def raise_it():
            raise TileRetired("Tile I-1 was retired.")

        with TestClient(app) as client:
            listed = client.get("/problems/tile-retired")
            answer = client.get("/raise-it")
        print(listed.status_code, answer.status_code, answer.json()["type"])
        print(answer.headers["content-type"])
        """,
    )
    assert out.split("\n")[0] == "200 409 /problems/tile-retired"
    assert out.split("\n")[1] == "application/problem+json"


def test_a_new_setting_is_one_field_and_its_readme_row(copy: Path) -> None:
    edits = [
        Edit(
            "app/settings.py",
            "    report_grace_ms: int = Field(default=250, ge=0, le=10_000)\n",
            after="    port: int = Field(default=8000, ge=0, le=65535)\n",
        ),
        Edit(
            "README.md",
            "| `REPORT_GRACE_MS` | `250` | How long a report waits for a late decision. |\n",
            after=next(
                line + "\n"
                for line in (ROOT / "README.md").read_text().splitlines()
                if line.startswith("| `PORT`") or line.startswith("| `HOST`, `PORT`")
            ),
        ),
    ]
    code_files = [edit for edit in edits if edit.path != "README.md"]
    assert len(code_files) == stated_count("Adding a setting")
    for edit in edits:
        edit.make(copy)
    out = run_in(
        copy,
        """
        import os
        from app.settings import Settings

        print(Settings().report_grace_ms)
        os.environ["REPORT_GRACE_MS"] = "400"
        print(Settings().report_grace_ms)
        """,
    )
    assert out.split() == ["250", "400"]
    table = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/docs"],
        cwd=copy,
        env={"PYTHONPATH": str(copy), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert table.returncode == 0, table.stdout[-3000:]
    assert "report_grace_ms" in table.stdout or " passed" in table.stdout
