"""The most storage one game can take, played by a hostile host through the API, on SQLite
and on PostgreSQL (docs/api.md, "Abuse limits": "What one game, and one address, can make
the service store").

The worst case, from the inputs' limits (app/api/schemas):

- five players (the Houses of Renaissance seat), each named with 50 characters of four
  bytes (the name's limit is 50 characters; UTF-8 takes at most four), all distinct;
- a seed of 16 digits that draws the three base tiles with the longest texts (the
  document carries the tiles' texts);
- every player excommunicated in periods 1 and 2, then holding all three leaders with
  faith 15, round tracking on and the period 3 report resolved with the default choice
  ``refuse``: each outcome then carries the most rules and the longest note;
- then the log filled by undoing and redoing that resolution (its ``change_redone`` is
  the largest event: every player, and the report with every outcome), each with an
  Idempotency-Key (its answer is the whole game document); or, for the row, by changes of
  play that each push one more entry onto the game's undo stack (turn orders).

The log is filled to a small ``MAX_EVENTS_PER_GAME``, and the assertions are per event,
so that they hold for the default's 1000 by arithmetic.
"""

from __future__ import annotations

import functools
import operator
import re
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from sqlalchemy import Column, LargeBinary, Table, Text, cast, create_engine, func, select
from sqlalchemy.sql.elements import ColumnElement

from app.domain.draw import MAX_SEED, draw_tiles
from app.persistence.tables import EVENTS, GAMES, IDEMPOTENCY_KEYS
from app.settings import Settings
from tests.limits.conftest import AppWith
from tests.support.tile_packs import FIVE_SEATS, catalogue_with_hor, hor_pack

ClientFor = Callable[[FastAPI], httpx.AsyncClient]
REPO_ROOT = Path(__file__).resolve().parents[2]

# The bounds, from the worst case above, with a tenth or so of headroom. Measured (SQLite,
# PostgreSQL): the row 11,957 and 11,963 bytes with 48 events, its undo stack 26 entries
# longer than after the setup (22 bytes each, with seqs of two digits); the largest event
# 4,493 and 4,496; the largest keyed answer's row 3,898 and 3,907. A change that lets a
# game grow past them (a longer name, another field in every event) fails here: then
# raise them, and the figures in docs/api.md with them.
#: A game's row (state, document, token hashes, budgets...), its undo stack aside.
ROW_BYTES = 12 * 1024
#: What each change of play adds to the row: one entry of its undo stack,
#: ``[1000,"turn_order_set"],`` (24 bytes), with headroom.
ROW_BYTES_PER_EVENT = 28
#: Any one event (``change_redone`` of a resolution is the largest).
EVENT_BYTES = 5 * 1024
#: Any one Idempotency-Key's row (the answer of an undo or a redo is the largest).
KEYED_ANSWER_BYTES = 4352

MAX_EVENTS = 48  # the log filled in the test; the bounds hold per event
SETUP_EVENTS = 22  # the events before the log is filled (see _worst_game)


def _name(seat: int) -> str:
    """50 Han characters of the Supplementary Ideographic Plane: four bytes each."""
    return "".join(chr(0x20000 + seat * 100 + k) for k in range(50))


def _seed_for(tiles: dict[int, str]) -> int:
    """The largest seed (16 digits) whose draw gives ``tiles``."""
    catalogue = catalogue_with_hor()
    for seed in range(MAX_SEED, MAX_SEED - 100_000, -1):
        draw = draw_tiles(catalogue, FIVE_SEATS, seed)
        if all(draw.tiles[period].id == tile for period, tile in tiles.items()):
            return seed
    raise AssertionError(f"no seed draws {tiles}")


#: The base tiles with the longest texts (the stand-in pack's are shorter).
LONGEST_TILES = {1: "I-4", 2: "II-7", 3: "III-7"}
ALL_LEADERS = ["sisto_iv", "santa_rita", "martin_lutero"]


class Game:
    def __init__(self, client: httpx.AsyncClient, created: dict[str, Any]) -> None:
        self.client = client
        self.id = created["game"]["id"]
        self.url = f"/v1/games/{self.id}"
        self.host = {"Authorization": f"Bearer {created['host_token']}"}
        self.players = {
            pid: {"Authorization": f"Bearer {token}"}
            for pid, token in created["player_tokens"].items()
        }

    async def do(
        self, method: str, path: str, body: Any = None, *, seat: str = "host", keyed: bool = False
    ) -> httpx.Response:
        headers = dict(self.host if seat == "host" else self.players[seat])
        if keyed:
            headers["Idempotency-Key"] = str(uuid.uuid4())
        answer = await self.client.request(method, self.url + path, json=body, headers=headers)
        assert answer.status_code in (200, 201), (path, answer.text)
        return answer


async def _worst_game(client: httpx.AsyncClient) -> Game:
    """The game of the module's docstring, its period 3 report resolved: 22 events."""
    body = {
        "players": [
            {"name": _name(seat), "leaders": ["sisto_iv", "santa_rita"]} for seat in range(5)
        ],
        "expansions": FIVE_SEATS,
        "seed": _seed_for(LONGEST_TILES),
        "players_enter_faith": True,
        "track_rounds": True,
    }
    created = await client.post(
        "/v1/games", json=body, headers={"Idempotency-Key": str(uuid.uuid4())}
    )
    assert created.status_code == 201, created.text
    game = Game(client, created.json())
    assert {int(p): t["id"] for p, t in created.json()["game"]["tiles"].items()} == LONGEST_TILES
    # Faith 0: every player is excommunicated in periods 1 and 2 (none holds Martin Lutero).
    for period, advances in ((1, 2), (2, 3)):
        for _ in range(advances):
            await game.do("POST", "/round-advances")
        await game.do("POST", f"/reports/{period}/resolution", {})
    for _ in range(3):
        await game.do("POST", "/round-advances")  # round 6's report phase
    for player in game.players:
        await game.do("PUT", f"/players/{player}/leaders", {"leaders": ALL_LEADERS})
        # Each player enters its own faith: its seat's budget is stored in the row too.
        await game.do("PUT", f"/players/{player}/faith", {"faith": 15}, seat=player)
    await game.do("POST", "/reports/3/resolution", {"default_choice": "refuse"})
    return game


def _bytes(column: Column[Any], dialect: str) -> ColumnElement[int]:
    """The bytes of a column's value as the database holds it as text (a blob as it is)."""
    if isinstance(column.type, LargeBinary):
        size = func.length(column)  # bytes, for a BLOB and a bytea alike
    elif dialect == "sqlite":
        size = func.length(cast(column, LargeBinary))  # length() of text counts characters
    else:
        size = func.octet_length(cast(column, Text))
    return func.coalesce(size, 0)


def _row_sizes(database_url: str, table: Table, where: ColumnElement[bool]) -> list[int]:
    engine = create_engine(database_url)
    try:
        sizes = [_bytes(column, engine.dialect.name) for column in table.columns]
        total = functools.reduce(operator.add, sizes)
        with engine.connect() as connection:
            return [int(size) for size in connection.execute(select(total).where(where)).scalars()]
    finally:
        engine.dispose()


@pytest.mark.parametrize("filler", ["undo-redo", "turn-orders"])
async def test_a_game_stays_within_its_bound(
    app_with: AppWith, client_for: ClientFor, database_url: str, tmp_path: Path, filler: str
) -> None:
    client = client_for(
        app_with(
            tile_packs_dir=hor_pack(tmp_path),
            max_events_per_game=MAX_EVENTS,
            game_creation_rate=0,
            game_write_rate=0,
            # On, so that each player seat's budget is stored; never reached here.
            player_write_rate=60_000,
        )
    )
    game = await _worst_game(client)
    orders = [["p5", "p4", "p3", "p2", "p1"], ["p1", "p2", "p3", "p4", "p5"]]
    for turn in range(MAX_EVENTS - SETUP_EVENTS):
        if filler == "undo-redo":
            await game.do("POST", "/redo" if turn % 2 else "/undo", keyed=True)
        else:
            await game.do("PUT", "/turn-order", {"turn_order": orders[turn % 2]})
    full = await client.post(f"{game.url}/undo", headers=game.host)
    assert full.status_code == 409, full.text  # the log is full: the worst case is all here

    (row,) = _row_sizes(database_url, GAMES, GAMES.c.id == game.id)
    events = _row_sizes(database_url, EVENTS, EVENTS.c.game_id == game.id)
    keys = _row_sizes(database_url, IDEMPOTENCY_KEYS, IDEMPOTENCY_KEYS.c.game_id == game.id)
    assert len(events) == MAX_EVENTS
    assert row <= ROW_BYTES + ROW_BYTES_PER_EVENT * len(events), row
    assert max(events) <= EVENT_BYTES, max(events)
    assert max(keys) <= KEYED_ANSWER_BYTES, max(keys)
    if filler == "undo-redo":
        # The largest event is the one this game logs over and over: the bound is tight.
        assert max(events) > EVENT_BYTES * 0.8, max(events)
        assert max(keys) > KEYED_ANSWER_BYTES * 0.8, max(keys)
        filled = events[SETUP_EVENTS:]
        assert sum(filled) > EVENT_BYTES * 0.6 * len(filled), sum(filled)
    else:
        assert row > (ROW_BYTES + ROW_BYTES_PER_EVENT * len(events)) * 0.8, row


def _mib(size: float) -> str:
    return f"{size / 2**20:.1f} MiB"


def _gib(size: float) -> str:
    return f"{size / 2**30:.1f} GiB"


def test_the_api_guide_states_these_bounds() -> None:
    """docs/api.md's figures are these bounds, and what follows from them and the default
    settings by arithmetic."""
    defaults = Settings.model_construct()  # the defaults, whatever the environment says
    day = 24 * 60  # minutes
    largest = ROW_BYTES + (ROW_BYTES_PER_EVENT + EVENT_BYTES) * defaults.max_events_per_game
    games_a_day = defaults.game_creation_burst + defaults.game_creation_rate * day
    keep = defaults.idempotency_ttl_hours * 60  # minutes
    host = defaults.game_write_burst + defaults.game_write_rate * keep
    player = defaults.player_write_burst + defaults.player_write_rate * keep
    answers_a_game = host + 5 * player
    requests_a_day = defaults.request_burst_per_address + defaults.request_rate_per_address * day
    guide = re.sub(r"\s+", " ", (REPO_ROOT / "docs" / "api.md").read_text())
    for figure in (
        f"{ROW_BYTES // 1024} KiB for its row, plus {ROW_BYTES_PER_EVENT} bytes a change",
        f"each event at most {EVENT_BYTES // 1024} KiB",
        f"each Idempotency-Key's row at most {KEYED_ANSWER_BYTES:,} bytes",
        f"at most {_mib(largest)};",
        f"{int(games_a_day):,} games a day",
        f"{_gib(games_a_day * largest)} a day",
        f"{int(answers_a_game):,} answers",
        f"{_gib(answers_a_game * KEYED_ANSWER_BYTES)} a game",
        f"{int(requests_a_day):,} requests a day",
        f"{_gib(requests_a_day * KEYED_ANSWER_BYTES)} a day per worker",
    ):
        assert figure in guide, figure
