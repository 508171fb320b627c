"""``/table/`` serves the built companion with headers that keep its tokens to itself; no
Node.js needed: the build is committed in ``app/web`` and packaged in the wheel."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest

from app.api.web_client import WEB_DIR
from app.main import create_app
from app.settings import Settings


@pytest.fixture
async def client(tmp_path: Path) -> AsyncIterator[httpx.AsyncClient]:
    app = create_app(Settings(database_url=f"sqlite:///{tmp_path / 'db.sqlite'}"))
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
        yield client


async def test_table_serves_the_page_and_its_hashed_assets(client: httpx.AsyncClient) -> None:
    page = await client.get("/table/")
    assert page.status_code == 200
    assert page.headers["content-type"].startswith("text/html")
    assert page.headers["referrer-policy"] == "no-referrer"
    assert page.headers["cache-control"] == "no-cache"
    assert "script-src 'self'" in page.headers["content-security-policy"]
    assets = re.findall(r'(?:src|href)="(app-[0-9a-f]{10}\.(?:js|css))"', page.text)
    assert len(assets) == 2
    for name in assets:
        asset = await client.get(f"/table/{name}")
        assert asset.status_code == 200
        assert asset.headers["cache-control"] == "public, max-age=31536000, immutable"
        assert asset.content == (WEB_DIR / name).read_bytes()


async def test_table_without_slash_redirects_and_unknown_files_are_problems(
    client: httpx.AsyncClient,
) -> None:
    redirect = await client.get("/table")
    assert redirect.status_code in (307, 308)
    assert redirect.headers["location"].endswith("/table/")
    missing = await client.get("/table/nothing.js")
    assert missing.status_code == 404
    assert missing.headers["content-type"] == "application/problem+json"
    assert missing.json()["type"] == "/problems/not-found"


def test_every_built_file_is_referenced_by_the_page() -> None:
    page = (WEB_DIR / "index.html").read_text()
    files = sorted(path.name for path in WEB_DIR.iterdir())
    assert files == sorted(["index.html", *re.findall(r'(?:src|href)="([^"#?/]+)"', page)])


async def test_favicon_is_the_companions_icon_at_the_root_and_on_the_page(
    client: httpx.AsyncClient,
) -> None:
    icon = await client.get("/favicon.ico")
    assert icon.status_code == 200
    assert icon.headers["content-type"] == "image/vnd.microsoft.icon"
    assert icon.headers["x-content-type-options"] == "nosniff"
    assert "max-age=" in icon.headers["cache-control"]
    # An ICO directory: reserved 0, type 1 (icon), then its images' sizes (16 and 32 px).
    assert icon.content[:4] == b"\x00\x00\x01\x00"
    count = int.from_bytes(icon.content[4:6], "little")
    assert sorted(icon.content[6 + 16 * i] for i in range(count)) == [16, 32]
    assert icon.content == (WEB_DIR / "favicon.ico").read_bytes()
    assert (await client.head("/favicon.ico")).status_code == 200

    page = await client.get("/table/")
    links = dict(re.findall(r'<link rel="icon" href="([^"]+)" type="([^"]+)"', page.text))
    assert sorted(links.values()) == ["image/svg+xml", "image/vnd.microsoft.icon"]
    for href, kind in links.items():
        linked = await client.get(f"/table/{href}")
        assert linked.status_code == 200
        assert linked.headers["content-type"].startswith(kind)
    svg = next(href for href, kind in links.items() if kind == "image/svg+xml")
    assert (await client.get(f"/table/{svg}")).text.startswith("<svg ")
    # The page's policy stays strict: its icon is its own, like its script and style.
    assert "img-src 'self' data:;" in page.headers["content-security-policy"]
    assert "default-src 'self';" in page.headers["content-security-policy"]
