"""The table companion (``clients/web``) served at ``/table/`` from its built assets, and
its icon at ``/favicon.ico``.

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
FAVICON_URL = "/favicon.ico"
ICO_TYPE = "image/vnd.microsoft.icon"

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
        if path.endswith(".ico"):
            # The same type as at /favicon.ico, whatever the host's mime.types says.
            headers["Content-Type"] = ICO_TYPE
        headers["Referrer-Policy"] = "no-referrer"
        headers["X-Content-Type-Options"] = "nosniff"
        headers["Content-Security-Policy"] = CONTENT_SECURITY_POLICY
        # Script, style and icon names carry a hash of their content: cache them for good;
        # the page itself is checked every time so that a new build is picked up.
        immutable = path.endswith((".js", ".css", ".svg")) and response.status_code == 200
        headers["Cache-Control"] = (
            "public, max-age=31536000, immutable" if immutable else "no-cache"
        )
        return response


def install_table(app: FastAPI, web_dir: Path = WEB_DIR) -> None:
    """Serve the companion at ``/table/`` when it is built (``app/web/index.html``), and its
    icon at ``/favicon.ico``, where browsers look for one whatever page they show."""
    if not (web_dir / "index.html").is_file():
        return
    app.mount(TABLE_URL, TableFiles(directory=web_dir, html=True), name="table")
    icon_file = web_dir / "favicon.ico"
    if not icon_file.is_file():
        return
    icon = icon_file.read_bytes()
    # Its name carries no hash: a day's cache lets a new build's icon through soon enough.
    headers = {"Cache-Control": "public, max-age=86400", "X-Content-Type-Options": "nosniff"}

    async def favicon() -> Response:
        return Response(icon, media_type=ICO_TYPE, headers=headers)

    app.add_api_route(FAVICON_URL, favicon, methods=["GET", "HEAD"], include_in_schema=False)
