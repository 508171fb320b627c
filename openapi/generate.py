"""Write the committed OpenAPI contract, ``openapi/openapi.json``, from the app.

python openapi/generate.py          # rewrite openapi/openapi.json
python openapi/generate.py --check  # exit 1 when the committed file is stale
"""

from __future__ import annotations

import argparse
import difflib
import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
OPENAPI_FILE = ROOT / "openapi" / "openapi.json"

if str(ROOT) not in sys.path:  # run as a script from anywhere
    sys.path.insert(0, str(ROOT))


def current_document() -> dict[str, Any]:
    from app.main import create_app
    from app.settings import Settings

    # The document does not depend on the database; an in-memory one touches no file.
    document: dict[str, Any] = create_app(Settings(database_url="sqlite://")).openapi()
    return document


def render(document: dict[str, Any]) -> str:
    return json.dumps(document, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument(
        "--check", action="store_true", help="exit 1 if openapi/openapi.json is out of date"
    )
    args = parser.parse_args(argv)
    text = render(current_document())
    if args.check:
        committed = OPENAPI_FILE.read_text(encoding="utf-8") if OPENAPI_FILE.exists() else ""
        if committed == text:
            print(f"{OPENAPI_FILE.relative_to(ROOT)} is up to date")
            return 0
        diff = difflib.unified_diff(
            committed.splitlines(keepends=True),
            text.splitlines(keepends=True),
            fromfile="openapi/openapi.json (committed)",
            tofile="openapi/openapi.json (from the app)",
            n=2,
        )
        sys.stdout.writelines(list(diff)[:200])
        print(f"\n{OPENAPI_FILE.relative_to(ROOT)} is stale: run python openapi/generate.py")
        return 1
    OPENAPI_FILE.write_text(text, encoding="utf-8")
    print(f"wrote {OPENAPI_FILE.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
