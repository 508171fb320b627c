"""A stand-in Houses of Renaissance tile pack, for the tests that enable the expansion (the
tile draw's packs, the fifth seat): its effects are made up for the tests, never shipped."""

from __future__ import annotations

import json
from pathlib import Path

from app.domain.players import HOUSES_OF_RENAISSANCE


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
