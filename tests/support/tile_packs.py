"""A stand-in Houses of Renaissance tile pack, for the tests that enable the expansion (the
tile draw's packs, the fifth seat): its effects are made up for the tests, never shipped."""

from __future__ import annotations

import functools
import json
import tempfile
from pathlib import Path

from fastapi import FastAPI

from app.domain.players import BASE_GAME_PLAYERS, HOUSES_OF_RENAISSANCE
from app.domain.tiles import Catalogue
from app.main import create_app
from app.services.tile_packs import load_catalogue
from app.settings import Settings
from tests.settings import LIMITS_OFF


def hor_pack(folder: Path) -> Path:
    """A packs folder under ``folder`` holding the stand-in pack; returns the packs folder."""
    tiles = [
        {
            "id": f"HOR-{period}",
            "period": period,
            "effect": {"kind": "gain_reduction", "resources": ["coins"]},
            "text": {"en": f"Test tile {period}", "it": f"Tessera di prova {period}"},
        }
        for period in (1, 2, 3)
    ]
    packs = folder / "packs"
    packs.mkdir(exist_ok=True)
    (packs / "hor.json").write_text(
        json.dumps({"format": 1, "expansion": HOUSES_OF_RENAISSANCE, "tiles": tiles}), "utf-8"
    )
    return packs


#: The expansions of a game of five: the base tiles and Houses of Renaissance (R-PLY-1).
FIVE_SEATS = ["base", HOUSES_OF_RENAISSANCE]


def expansions_for(players: int) -> list[str]:
    """The expansions a test game of ``players`` plays with: the base game seats four."""
    return FIVE_SEATS if players > BASE_GAME_PLAYERS else ["base"]


@functools.cache
def catalogue_with_hor() -> Catalogue:
    """The bundled tiles and the stand-in pack, for games of five built without the app."""
    return load_catalogue(hor_pack(Path(tempfile.mkdtemp(prefix="hor-pack-"))))


def hor_app(database_url: str, folder: Path) -> FastAPI:
    """The API's app as tests/api builds it, with the stand-in pack under ``folder``."""
    return create_app(
        Settings(database_url=database_url, tile_packs_dir=hor_pack(folder), **LIMITS_OFF)
    )
