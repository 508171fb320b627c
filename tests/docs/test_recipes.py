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
    """Text inserted into a file of the copy, after (or before) an anchor the file holds
    once, or at its end."""

    path: str
    text: str
    after: str | None = None
    before: str | None = None

    def make(self, root: Path) -> None:
        file = root / self.path
        source = file.read_text()
        anchor = self.after or self.before
        if anchor is None:
            file.write_text(source.rstrip("\n") + "\n" + self.text)
            return
        assert source.count(anchor) == 1, f"{self.path}: the anchor {anchor!r} moved"
        new = anchor + self.text if self.after else self.text + anchor
        file.write_text(source.replace(anchor, new))


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
    """The project's code and documentation, without its data, tools or tests (a recipe
    copies the tests it runs: ``run_tests_in``)."""
    for part in ("app", "docs", "openapi", "migrations"):
        shutil.copytree(ROOT / part, tmp_path / part, ignore=shutil.ignore_patterns("*.pyc"))
    for part in ("README.md", "pyproject.toml"):
        shutil.copy(ROOT / part, tmp_path / part)
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


def run_tests_in(root: Path, files: list[str], *args: str) -> str:
    """pytest on copies of the project's own test ``files`` in ``root``: its output."""
    for name in files:
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT / name, root / name)
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", files[0], *args],
        cwd=root,
        env={"PYTHONPATH": str(root), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout[-3000:]
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
    table = run_tests_in(copy, ["tests/docs/test_settings_table.py"])
    assert "report_grace_ms" in table or " passed" in table


# ---- a change to a stored game: its event type, then its endpoint -------------------------

EVENT_TYPE = [
    Edit("app/domain/events.py", '    "faith_entry_set",\n', after='    "seat_token_changed",\n'),
    Edit(
        "app/domain/events.py",
        textwrap.dedent(
            """\
            @dataclass(frozen=True, slots=True)
            class FaithEntrySet(GameEvent):
                \"\"\"Who enters Faith changed: the players on their phones, or the host.\"\"\"

                type: ClassVar[Literal["faith_entry_set"]] = "faith_entry_set"
                players_enter_faith: bool


            """
        ),
        before="#: Every event type's class",
    ),
    Edit("app/domain/events.py", "    FaithEntrySet,\n", after="    SeatTokenChanged,\n"),
    Edit(
        "app/domain/commands.py",
        textwrap.dedent(
            """

            def set_faith_entry(game: GameState, players_enter_faith: bool) -> FaithEntrySet | None:
                \"\"\"Who enters Faith: the players on their phones, or the host.\"\"\"
                if players_enter_faith == game.players_enter_faith:
                    return None
                return FaithEntrySet(players_enter_faith)
            """
        ),
    ),
    Edit(
        "app/domain/commands.py", "    FaithEntrySet,\n", before="    FaithSet,\n    GameCreated,\n"
    ),
    Edit(
        "app/domain/replay.py",
        "        case FaithEntrySet(players_enter_faith=value):\n"
        "            return replace(game, players_enter_faith=value)\n",
        after="            # who holds a seat is not part of the game's state\n"
        "            return replace(game, **stamp)\n",
    ),
    Edit("app/domain/replay.py", "    FaithEntrySet,\n", after="from app.domain.events import (\n"),
]

STORED_ENDPOINT = [
    Edit(
        "app/services/games.py",
        textwrap.indent(
            textwrap.dedent(
                """
                def set_faith_entry(
                    self,
                    game_id: str,
                    players_enter_faith: bool,
                    token: str | None,
                    if_match: Collection[int] | None,
                ) -> GameDocument:
                    with self.transactions.changing(game_id, token) as change:
                        change.who.require_host("change who enters Faith")
                        change.check_version(if_match)
                        change.apply(set_faith_entry(change.game, players_enter_faith))
                    assert change.document is not None
                    return change.document
            """
            ),
            "    ",  # a method of GameService
        )
        + "\n",
        before="    def advance_round(\n",
    ),
    Edit(
        "app/services/games.py",
        "from app.domain.commands import set_faith_entry\n",
        after="from app.domain import game as rules\n",
    ),
    Edit(
        "app/api/schemas/games.py",
        textwrap.dedent(
            """

            class FaithEntryUpdate(StrictModel):
                players_enter_faith: bool
            """
        ),
    ),
    Edit(
        "app/api/contract/games.py",
        textwrap.dedent(
            """

            @router.put(
                "/{game_id}/faith-entry",
                operation_id="setFaithEntry",
                response_model=GameRead,
                responses=problem_responses(*CHANGE_PROBLEMS),
            )
            @changes_game
            def set_faith_entry(
                game_id: str,
                body: FaithEntryUpdate,
                games: GameUseCases,
                token: Token,
                if_match: IfMatch,
            ) -> Response:
                \"\"\"Who enters Faith: the players on their phones, or the host.\"\"\"
                document = games.set_faith_entry(game_id, body.players_enter_faith, token, if_match)
                return raw_json_response(document.body, 200, {"ETag": etag(document.version)})
            """
        ),
    ),
    Edit(
        "app/api/contract/games.py",
        "    FaithEntryUpdate,\n",
        after="from app.api.schemas.games import (\n",
    ),
]

DOCUMENTED_EVENT = Edit(
    "docs/api.md",
    "| `faith_entry_set` | who enters Faith changes | `players_enter_faith` |\n",
    after=next(
        line + "\n"
        for line in (ROOT / "docs/api.md").read_text().splitlines()
        if line.startswith("| `seat_token_changed`")
    ),
)


def edited(edits: list[Edit]) -> set[str]:
    return {edit.path for edit in edits}


def test_a_new_event_type_and_its_stored_endpoint(copy: Path) -> None:
    """An event type (its value, the command that makes it, its fold) and an endpoint that
    stores it (the command, the use case, the request's schema, the route): the contract,
    the event log's schemas and the docs' check follow with no other edit."""
    assert len(edited(EVENT_TYPE)) == stated_count("Adding an event type")
    endpoint_files = {"app/domain/commands.py"} | edited(STORED_ENDPOINT)
    assert len(endpoint_files) == stated_count("Adding a new stored-game endpoint")
    for edit in [*EVENT_TYPE, *STORED_ENDPOINT, DOCUMENTED_EVENT]:
        edit.make(copy)
    out = run_in(
        copy,
        """
        import json
        from fastapi.testclient import TestClient
        from app.main import create_app

        from app.persistence.migrate import upgrade
        from app.settings import Settings

        url = "sqlite:///recipe.db"
        upgrade(url)
        app = create_app(Settings(database_url=url))
        with TestClient(app) as client:
            created = client.post("/v1/games", json={"players": [{"name": "A"}, {"name": "B"}]})
            game = created.json()
            url = f"/v1/games/{game['game']['id']}"
            auth = {"Authorization": f"Bearer {game['host_token']}", "If-Match": '"1"'}
            entry = {"players_enter_faith": True}
            changed = client.put(url + "/faith-entry", json=entry, headers=auth)
            events = client.get(url + "/events", headers=auth).json()["events"]
            contract = client.get("/openapi.json").json()
        print(changed.status_code, changed.headers["etag"], changed.json()["players_enter_faith"])
        print(json.dumps(events[-1]["type"]), json.dumps(events[-1]["data"]))
        print("/v1/games/{game_id}/faith-entry" in contract["paths"])
        mapping = contract["components"]["schemas"]["EventRead"]["discriminator"]["mapping"]
        print(mapping.get("faith_entry_set"))
        """,
    )
    # The recipe's last step: the contract regenerated, as CI asks.
    run_in(
        copy,
        "import subprocess, sys\n"
        "subprocess.run([sys.executable, 'openapi/generate.py'], check=True)",
    )
    guide = run_tests_in(
        copy,
        ["tests/domain/test_events.py", "tests/domain/stored_games.py", "tests/domain/conftest.py"],
        "-k",
        "api_guide_names_every_key or contract_s_event_schemas",
    )
    assert "2 passed" in guide, guide
    lines = out.strip().split("\n")
    assert lines[0] == '200 "2" True'
    assert lines[1] == '"faith_entry_set" {"players_enter_faith": true}'
    assert lines[2] == "True"
    assert lines[3] == "#/components/schemas/FaithEntrySetEvent"
