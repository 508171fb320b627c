"""Drawing the three tiles at setup (R-DRAW-1, R-DRAW-2, R-DRAW-3).

Algorithm ``sha256-mod-v1``, chosen so that any client can re-implement it:

1. For period p (1, 2, 3), the pool is the tiles of that period from the enabled
   expansions, in catalogue order (``GET /v1/excommunication-tiles`` lists them in it:
   the base tiles by number, then each extra pack).
2. digest = SHA-256 of the ASCII text ``"<seed>:<p>"`` (seed in decimal, no padding).
3. n = the first 8 bytes of the digest read as an unsigned big-endian integer.
4. The tile is ``pool[n mod len(pool)]``.

Worked example (seed 42, base pool): see docs/rules.md, and test_r_draw_2_worked_example.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Annotated

from app.domain.errors import InvalidInput
from app.domain.faith import PERIODS
from app.domain.tiles import Catalogue, Tile

DRAW_ALGORITHM = "sha256-mod-v1"
# The largest integer a JavaScript Number holds exactly (and a signed 64-bit column stores):
# a web client reads and sends every seed, server-drawn ones too, without rounding.
MAX_SEED = 2**53 - 1
#: A draw seed where a value carries one: 0 to MAX_SEED.
Seed = Annotated[int, "a draw seed: 0 to MAX_SEED"]


@dataclass(frozen=True, slots=True)
class Draw:
    seed: int | None
    algorithm: str | None
    tiles: Mapping[int, Tile]


def draw_index(seed: int, period: int, pool_size: int) -> int:
    """Steps 2-4 of the algorithm: which position of the pool the seed picks."""
    digest = hashlib.sha256(f"{seed}:{period}".encode("ascii")).digest()
    return int.from_bytes(digest[:8], "big") % pool_size


def draw_tiles(catalogue: Catalogue, expansions: Sequence[str], seed: int) -> Draw:
    """R-DRAW-1/2: one tile per period, a pure function of the seed and the pools."""
    if not 0 <= seed <= MAX_SEED:
        raise InvalidInput(f"seed must be between 0 and {MAX_SEED}", loc=("seed",))
    catalogue.check_expansions(expansions, loc=("expansions",))
    chosen: dict[int, Tile] = {}
    for period in PERIODS:
        pool = catalogue.pool(period.number, expansions)
        chosen[period.number] = pool[draw_index(seed, period.number, len(pool))]
    return Draw(seed=seed, algorithm=DRAW_ALGORITHM, tiles=chosen)


def named_tiles(catalogue: Catalogue, names: Mapping[int, str], expansions: Sequence[str]) -> Draw:
    """R-DRAW-3: the three tiles a table names, one per period, from enabled expansions."""
    catalogue.check_expansions(expansions, loc=("expansions",))
    chosen: dict[int, Tile] = {}
    for period in PERIODS:
        loc: tuple[str | int, ...] = ("tiles", str(period.number))
        if period.number not in names:
            raise InvalidInput(f"name a tile for period {period.number}", loc=loc)
        tile = catalogue.require(names[period.number], loc=loc)
        if tile.period != period.number:
            raise InvalidInput(
                f"tile {tile.id} belongs to period {tile.period}, not {period.number}", loc=loc
            )
        if tile.expansion not in expansions:
            raise InvalidInput(
                f"tile {tile.id} is from expansion {tile.expansion!r}, which is not enabled",
                loc=loc,
            )
        chosen[period.number] = tile
    return Draw(seed=None, algorithm=None, tiles=chosen)
