"""The table companion (``clients/web``) served at ``/table/`` from its built assets.

``app/web/`` holds the build (committed, and packaged in the wheel), so ``python -m app``
serves it with no Node.js on the machine. The page is static: it talks to the API like any
other client, with the tokens it keeps in the browser (an invite link carries the player's
token in the URL fragment, which browsers never send to a server, so it reaches no log).
"""

from __future__ import annotations

from pathlib import Path

from fastapi import FastAPI
from fastapi.staticfiles import StaticFiles
from starlette.responses import Response
from starlette.types import Scope

WEB_DIR = Path(__file__).resolve().parents[1] / "web"
TABLE_URL = "/table"

# The page runs only its own script and style; it may call a service on another origin
# (`?api=`), which that service's CORS_ORIGINS then decides.
CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self' http: https:; base-uri 'none'; form-action 'self'; "
    "frame-ancestors 'none'"
)


class TableFiles(StaticFiles):
    """The built files, with headers that keep tokens and the page to themselves."""

    async def get_response(self, path: str, scope: Scope) -> Response:
        response = await super().get_response(path, scope)
        headers = response.headers
        headers["Referrer-Policy"] = "no-referrer"
        headers["X-Content-Type-Options"] = "nosniff"
        headers["Content-Security-Policy"] = CONTENT_SECURITY_POLICY
        # Script and style names carry a hash of their content: cache them for good; the
        # page itself is checked every time so that a new build is picked up.
        immutable = path.endswith((".js", ".css")) and response.status_code == 200
        headers["Cache-Control"] = (
            "public, max-age=31536000, immutable" if immutable else "no-cache"
        )
        return response


def install_table(app: FastAPI, web_dir: Path = WEB_DIR) -> None:
    """Serve the companion at ``/table/`` when it is built (``app/web/index.html``)."""
    if (web_dir / "index.html").is_file():
        app.mount(TABLE_URL, TableFiles(directory=web_dir, html=True), name="table")
