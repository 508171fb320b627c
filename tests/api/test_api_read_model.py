"""The read model: a game is served from the document stored with its last change, and a
document another renderer made (an older release, other tile texts) is rendered again."""

from __future__ import annotations

from fastapi import FastAPI
from sqlalchemy import select, update

from app.persistence.tables import GAMES
from tests.api.conftest import GameHandle


def _stored(app: FastAPI, game_id: str) -> tuple[str | None, str | None]:
    with app.state.db.transaction(write=False) as connection:
        row = connection.execute(
            select(GAMES.c.document, GAMES.c.document_key).where(GAMES.c.id == game_id)
        ).one()
    return row.document, row.document_key


async def test_a_read_serves_the_document_stored_with_the_last_change(
    app: FastAPI, game: GameHandle
) -> None:
    await game.set_faith(p1=7)
    response = await game.client.get(game.url, headers=game.host())
    document, key = _stored(app, game.id)
    assert response.content == document.encode()  # type: ignore[union-attr]
    assert key == app.state.game_service.transactions.presenter.key


async def test_a_document_of_another_renderer_is_rendered_again_and_stored(
    app: FastAPI, game: GameHandle
) -> None:
    fresh = (await game.client.get(game.url, headers=game.host())).content
    with app.state.db.transaction(write=True) as connection:
        connection.execute(
            update(GAMES)
            .where(GAMES.c.id == game.id)
            .values(document='{"stale": true}', document_key="old")
        )
    response = await game.client.get(game.url, headers=game.host())
    assert response.status_code == 200
    assert response.content == fresh
    assert response.headers["etag"] == '"1"'
    assert _stored(app, game.id) == (
        fresh.decode(),
        app.state.game_service.transactions.presenter.key,
    )
    # Without a document at all (a game the migration moved), the same.
    with app.state.db.transaction(write=True) as connection:
        connection.execute(
            update(GAMES).where(GAMES.c.id == game.id).values(document=None, document_key=None)
        )
    assert (await game.client.get(game.url, headers=game.host())).content == fresh
