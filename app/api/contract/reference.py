"""Reference data: the faith track, the tile catalogue and reproducible draws."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Request, Response

from app.api.contract.dependencies import TileCatalogue, tile_documents_of
from app.api.platform.admission import stores_nothing
from app.api.platform.explicit_route import ExplicitRoute
from app.api.platform.responses import JSONModelResponse, raw_json_response
from app.api.problems import problem_responses
from app.api.schemas.base import WholeNumber
from app.api.schemas.reference import (
    FaithStep,
    FaithTrack,
    PeriodRead,
    TileDrawCreate,
    TileDrawRead,
    TileList,
    TileRead,
)
from app.domain.draw import MAX_SEED, draw_tiles
from app.domain.errors import NotFound, UnknownExpansion
from app.domain.faith import FAITH_VICTORY_POINTS, MAX_FAITH, PERIODS
from app.domain.tiles import Catalogue
from app.services.tokens import new_seed

router = APIRouter(prefix="/v1", tags=["reference"], route_class=ExplicitRoute)
CACHEABLE = {"Cache-Control": "public, max-age=3600"}

# The faith track never changes: serialise it once, at import.
_FAITH_TRACK = FaithTrack(
    max_faith=MAX_FAITH,
    steps=[FaithStep(faith=f, victory_points=vp) for f, vp in enumerate(FAITH_VICTORY_POINTS)],
    periods=[
        PeriodRead(period=p.number, report_round=p.report_round, threshold=p.threshold)
        for p in PERIODS
    ],
)
_FAITH_TRACK_JSON = _FAITH_TRACK.__pydantic_serializer__.to_json(_FAITH_TRACK)


def tile_documents(catalogue: Catalogue) -> dict[str, bytes]:
    """Each tile's answer by its id, serialised once when the app is made: a catalogue
    does not change once loaded either (its size is set by the tile packs)."""
    documents = {}
    for tile in catalogue.select():
        model = TileRead.of(tile)
        documents[tile.id] = model.__pydantic_serializer__.to_json(model)
    return documents


@router.get("/faith-track", operation_id="getFaithTrack", response_model=FaithTrack)
async def get_faith_track() -> Response:
    """R-FT-1, R-REP-1: the VP paid at each faith step and the three report thresholds."""
    return raw_json_response(_FAITH_TRACK_JSON, 200, CACHEABLE)


@router.get(
    "/excommunication-tiles",
    operation_id="listExcommunicationTiles",
    response_model=TileList,
    responses=problem_responses("validation-error", "unknown-expansion"),
)
async def list_tiles(
    catalogue: TileCatalogue,
    period: Annotated[int | None, Query(ge=1, le=3), WholeNumber] = None,
    expansion: Annotated[str | None, Query(max_length=32)] = None,
) -> JSONModelResponse:
    """Every tile, in catalogue order (the order the draw uses), optionally filtered."""
    if expansion is not None and expansion not in catalogue.expansions:
        raise UnknownExpansion(
            f"Unknown expansion {expansion!r}; this service knows {list(catalogue.expansions)}.",
            loc=("query", "expansion"),
        )
    tiles = [TileRead.of(t) for t in catalogue.select(period=period, expansion=expansion)]
    return JSONModelResponse(TileList(tiles=tiles), headers=CACHEABLE)


@router.get(
    "/excommunication-tiles/{tile_id}",
    operation_id="getExcommunicationTile",
    response_model=TileRead,
    responses=problem_responses("not-found"),
)
async def get_tile(tile_id: str, request: Request) -> Response:
    document = tile_documents_of(request).get(tile_id)
    if document is None:
        raise NotFound(f"No excommunication tile {tile_id!r}.")
    return raw_json_response(document, 200, CACHEABLE)


@router.post(
    "/tile-draws",
    operation_id="drawTiles",
    response_model=TileDrawRead,
    responses=problem_responses("validation-error", "unknown-expansion", "unsupported-media-type"),
)
@stores_nothing
async def draw(body: TileDrawCreate, catalogue: TileCatalogue) -> JSONModelResponse:
    """R-DRAW-1/2: one tile per period, reproducible from the seed (nothing is stored).
    The algorithm is documented in docs/rules.md so a client can verify the draw."""
    seed = new_seed(MAX_SEED) if body.seed is None else body.seed
    result = draw_tiles(catalogue, body.expansions, seed)
    return JSONModelResponse(
        TileDrawRead(
            seed=seed,
            algorithm=result.algorithm or "",
            tiles={str(period): tile.id for period, tile in result.tiles.items()},
        )
    )
