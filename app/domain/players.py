"""How many players a table seats (R-PLY-1)."""

from __future__ import annotations

from collections.abc import Sequence

from app.domain.errors import InvalidInput

MIN_PLAYERS = 2
#: The base game's board and components seat this many.
BASE_GAME_PLAYERS = 4
#: The Houses of Renaissance expansion adds a fifth seat.
MAX_PLAYERS = 5
#: The expansion id of Houses of Renaissance (its tile pack's ``expansion``).
HOUSES_OF_RENAISSANCE = "hor"


def check_seats(count: int, expansions: Sequence[str]) -> None:
    """R-PLY-1: a stored game seats 2 to 4 players, or 5 with Houses of Renaissance
    among its expansions; else invalid input at ``players``."""
    if not MIN_PLAYERS <= count <= MAX_PLAYERS:
        raise InvalidInput(
            f"a game seats {MIN_PLAYERS} to {MAX_PLAYERS} players, not {count}", loc=("players",)
        )
    if count > BASE_GAME_PLAYERS and HOUSES_OF_RENAISSANCE not in expansions:
        raise InvalidInput(
            f"the base game seats {MIN_PLAYERS} to {BASE_GAME_PLAYERS} players: a fifth seat "
            f"comes with the Houses of Renaissance expansion, {HOUSES_OF_RENAISSANCE!r} in "
            "`expansions` (R-PLY-1)",
            loc=("players",),
        )
