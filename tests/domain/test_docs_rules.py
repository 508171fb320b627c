"""docs/rules.md stays true: its draw example and reference implementations match the
service's own draw (R-DRAW-2). (Its rule ids: test_rule_coverage.py.)"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from app.domain.draw import MAX_SEED, draw_tiles
from app.domain.tiles import Catalogue

DOC = Path(__file__).resolve().parents[2] / "docs" / "rules.md"
SEEDS = [0, 1, 42, 2**52 + 1, MAX_SEED]


def code_block(language: str) -> str:
    match = re.search(rf"```{language}\n(.*?)```", DOC.read_text("utf-8"), re.DOTALL)
    assert match, f"no {language} block in docs/rules.md"
    return match.group(1)


def base_pools(catalogue: Catalogue) -> dict[int, list[str]]:
    return {p: [t.id for t in catalogue.pool(p, ["base"])] for p in (1, 2, 3)}


def test_r_draw_2_docs_worked_example_matches_the_draw(catalogue: Catalogue) -> None:
    text = DOC.read_text("utf-8")
    row = r"^\| (\d) \| `42:\d` \| `([0-9a-f]{16})` \| (\d+) \| (\d) \| `([IV-]+\d)` \|$"
    rows = re.findall(row, text, re.MULTILINE)
    assert len(rows) == 3
    drawn = draw_tiles(catalogue, ["base"], 42).tiles
    for period, prefix, number, index, tile_id in rows:
        digest = hashlib.sha256(f"42:{period}".encode("ascii")).digest()
        assert digest.hex()[:16] == prefix
        assert int.from_bytes(digest[:8], "big") == int(number)
        assert int(number) % 7 == int(index)
        assert drawn[int(period)].id == tile_id


def test_r_draw_2_docs_python_reference_matches_the_draw(catalogue: Catalogue) -> None:
    namespace: dict[str, Any] = {}
    exec(code_block("python"), namespace)
    for seed in [*SEEDS, *range(200)]:
        expected = {p: t.id for p, t in draw_tiles(catalogue, ["base"], seed).tiles.items()}
        assert namespace["draw_tiles"](seed, base_pools(catalogue)) == expected


def test_r_draw_2_docs_javascript_reference_matches_the_draw(
    catalogue: Catalogue, tmp_path: Path
) -> None:
    node = shutil.which("node")
    if node is None:
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail("node is not installed: CI must run the JavaScript reference")
        pytest.skip("node is not installed")
    pools = json.dumps(base_pools(catalogue))
    seeds = json.dumps([str(seed) for seed in SEEDS])
    script = tmp_path / "draw.js"
    script.write_text(
        code_block("javascript")
        + f"\nconsole.log(JSON.stringify({seeds}.map((s) => drawTiles(BigInt(s), {pools}))));\n",
        "utf-8",
    )
    done = subprocess.run([node, str(script)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    for seed, answer in zip(SEEDS, json.loads(done.stdout), strict=True):
        expected = {str(p): t.id for p, t in draw_tiles(catalogue, ["base"], seed).tiles.items()}
        assert answer == expected
