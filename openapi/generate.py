"""Write the committed OpenAPI contract, ``openapi/openapi.json``, from the app.

python openapi/generate.py          # rewrite openapi/openapi.json (and app/api/examples.json)
python openapi/generate.py --check  # exit 1 when either committed file is stale

The answers' examples are recorded from real calls to the app on a scratch SQLite database
(``app/api/documentation/examples.py``), then the document is built with them.
"""

from __future__ import annotations

import argparse
import difflib
import json
import sys
import tempfile
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


def recorded_examples() -> str:
    import asyncio

    import httpx

    from app.api.documentation.examples import record_examples, render_examples
    from app.main import create_app
    from app.persistence.migrate import upgrade
    from app.settings import Settings

    with tempfile.TemporaryDirectory() as scratch:
        url = f"sqlite:///{Path(scratch) / 'examples.db'}"
        upgrade(url)
        app = create_app(Settings(database_url=url))

        async def record() -> str:
            transport = httpx.ASGITransport(app=app)
            async with httpx.AsyncClient(transport=transport, base_url="http://examples") as c:
                return render_examples(await record_examples(c))

        try:
            return asyncio.run(record())
        finally:
            app.state.db.dispose()


def check_examples(text: str) -> bool:
    from app.api.documentation.examples import EXAMPLES_FILE

    committed = EXAMPLES_FILE.read_text(encoding="utf-8") if EXAMPLES_FILE.exists() else ""
    if committed == text:
        return True
    diff = difflib.unified_diff(
        committed.splitlines(keepends=True),
        text.splitlines(keepends=True),
        fromfile="app/api/examples.json (committed)",
        tofile="app/api/examples.json (recorded)",
        n=2,
    )
    sys.stdout.writelines(list(diff)[:100])
    print("\napp/api/examples.json is stale: run python openapi/generate.py")
    return False


def render(document: dict[str, Any]) -> str:
    return json.dumps(document, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument(
        "--check", action="store_true", help="exit 1 if openapi/openapi.json is out of date"
    )
    args = parser.parse_args(argv)
    examples = recorded_examples()
    if args.check:
        if not check_examples(examples):
            return 1
    else:
        from app.api.documentation.examples import EXAMPLES_FILE

        EXAMPLES_FILE.write_text(examples, encoding="utf-8")
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
