"""Writes ``app/domain/unicode_security.json``, the data of the player-name checks of
``app/domain/names.py``, from the pinned ``confusable-homoglyphs`` package (a dev
dependency: the service itself needs only the file this writes).

    python -m tests.domain.unicode_security_data          # rewrite the file
    python -m tests.domain.unicode_security_data --check  # fail when it is stale

The package carries Unicode's own tables: each code point's script (``Scripts.txt``) and
the confusables of UTS #39 (``confusables.txt``), as JSON. From them this keeps only what
the checks read: the script ranges, and each confusable character's prototype (the
string a skeleton maps it to). ``tests/domain/test_names.py`` checks the file is current.
"""

from __future__ import annotations

import json
import sys
from importlib import metadata, resources
from pathlib import Path
from typing import Any

TARGET = Path(__file__).resolve().parents[2] / "app" / "domain" / "unicode_security.json"
PACKAGE = "confusable_homoglyphs"


def _load(name: str) -> Any:
    return json.loads(resources.files(PACKAGE).joinpath(name).read_text(encoding="utf-8"))


def _script_ranges() -> tuple[list[str], list[list[int]]]:
    categories = _load("categories.json")
    names = [name.title() for name in categories["iso_15924_aliases"]]
    ranges: list[list[int]] = []
    for start, end, script, _category in categories["code_points_ranges"]:
        if ranges and ranges[-1][2] == script and ranges[-1][1] + 1 == start:
            ranges[-1][1] = end  # adjacent and of the same script: one range
        else:
            ranges.append([start, end, script])
    return names, ranges


def _prototypes() -> dict[str, str]:
    """Each confusable source character and its prototype.

    The package lists, for a prototype, the characters that map to it, and for a source
    character its one prototype. A prototype with a single source reads the same both
    ways; either of the two then stands for both (the smaller), which keeps every pair
    of confusables equal under the skeleton, as the standard's mapping does.
    """
    confusables = _load("confusables.json")
    listed = {key: [glyph["c"] for glyph in glyphs] for key, glyphs in confusables.items()}
    prototypes: dict[str, str] = {}
    for key, glyphs in listed.items():
        if len(key) != 1 or len(glyphs) != 1:
            continue  # a prototype (of many, or a sequence): it maps to itself
        (target,) = glyphs
        if len(target) == 1 and listed.get(target) == [key]:
            target = min(key, target)
        if target != key:
            prototypes[key] = target
    return prototypes


def build() -> dict[str, Any]:
    scripts, ranges = _script_ranges()
    return {
        "source": f"{PACKAGE} {metadata.version('confusable-homoglyphs')}: Unicode's "
        "Scripts.txt and the UTS #39 confusables.txt (Unicode License v3)",
        "scripts": scripts,
        "script_ranges": ranges,
        "prototypes": dict(sorted(_prototypes().items())),
    }


def render() -> str:
    return json.dumps(build(), ensure_ascii=False, separators=(",", ":"), sort_keys=False) + "\n"


def main(argv: list[str]) -> int:
    text = render()
    if "--check" in argv:
        if TARGET.read_text(encoding="utf-8") != text:
            print(f"{TARGET} is stale: run python -m tests.domain.unicode_security_data")
            return 1
        return 0
    TARGET.write_text(text, encoding="utf-8")
    print(f"wrote {TARGET}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
