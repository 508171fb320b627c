"""Request headers as RFC 9110 reads them, on both databases: If-Match lists, If-None-Match
on every read of a game (304), headers that may be sent once, and the body's media type."""

from __future__ import annotations

import httpx

from tests.api.conftest import GameHandle
from tests.api.test_api_support import assert_problem, assert_unchanged, snapshot

KEY = "a-strong-idempotency-key-0123"


async def test_an_if_match_list_passes_when_any_tag_is_current(game: GameHandle) -> None:
    # RFC 9110 13.1.1: the condition holds when any listed tag matches.
    response = await game.client.put(
        f"{game.url}/players/p1/faith",
        json={"faith": 4},
        headers={**game.host(), "If-Match": '"7", W/"1", "0"'},
    )
    assert response.status_code == 200, response.text
    assert response.headers["etag"] == '"2"'


async def test_an_if_match_list_without_the_current_version_is_412(game: GameHandle) -> None:
    before = await snapshot(game)
    response = await game.client.put(
        f"{game.url}/players/p1/faith",
        json={"faith": 4},
        headers={**game.host(), "If-Match": '"7", "8"'},
    )
    body = assert_problem(response, 412, "version-mismatch")
    assert body["current_version"] == 1
    await assert_unchanged(game, before)


async def test_a_game_report_and_events_answer_304_to_their_current_etag(
    game: GameHandle,
) -> None:
    for path in ("", "/reports/1", "/events", "/events?after=0&limit=5"):
        first = await game.client.get(f"{game.url}{path}", headers=game.host())
        assert first.status_code == 200, (path, first.text)
        etag = first.headers["etag"]
        again = await game.client.get(
            f"{game.url}{path}", headers={**game.host(), "If-None-Match": f'W/{etag}, "99"'}
        )
        assert (again.status_code, again.content) == (304, b""), path
        assert again.headers["etag"] == etag
    await game.set_faith(p1=4)
    for path in ("", "/reports/1", "/events"):
        changed = await game.client.get(
            f"{game.url}{path}", headers={**game.host(), "If-None-Match": '"1"'}
        )
        assert changed.status_code == 200, path
        assert changed.headers["etag"] == '"2"'


async def test_a_304_still_needs_a_token_of_the_game(game: GameHandle) -> None:
    for headers in ({}, {"Authorization": "Bearer nope"}):
        response = await game.client.get(game.url, headers={**headers, "If-None-Match": '"1"'})
        assert_problem(response, 401, "unauthorized")


async def test_authorization_sent_twice_is_400_whichever_comes_first(game: GameHandle) -> None:
    before = await snapshot(game)
    for tokens in ((game.host_token, "stranger"), ("stranger", game.host_token)):
        headers = [("Authorization", f"Bearer {token}") for token in tokens]
        read = await game.client.get(game.url, headers=headers)
        assert_problem(read, 400, "bad-request")
        change = await game.client.put(
            f"{game.url}/players/p1/faith", json={"faith": 9}, headers=headers
        )
        assert_problem(change, 400, "bad-request")
    await assert_unchanged(game, before)


async def test_an_idempotency_key_sent_twice_is_400(client: httpx.AsyncClient) -> None:
    response = await client.post(
        "/v1/games",
        json={"players": [{"name": "A"}, {"name": "B"}]},
        headers=[("Idempotency-Key", KEY), ("Idempotency-Key", KEY + "x")],
    )
    assert_problem(response, 400, "bad-request")


async def test_a_body_of_another_media_type_is_415(game: GameHandle) -> None:
    before = await snapshot(game)
    for content_type in ("text/plain", "application/xml", "multipart/form-data; boundary=x"):
        response = await game.client.put(
            f"{game.url}/players/p1/faith",
            content=b'{"faith": 3}',
            headers={**game.host(), "Content-Type": content_type},
        )
        assert_problem(response, 415, "unsupported-media-type")
    await assert_unchanged(game, before)


async def test_json_media_types_are_read_as_json(game: GameHandle) -> None:
    for content_type in ("application/json; charset=utf-8", "application/merge-patch+json"):
        response = await game.client.put(
            f"{game.url}/players/p1/faith",
            content=b'{"faith": 3}',
            headers={**game.host(), "Content-Type": content_type},
        )
        assert response.status_code == 200, (content_type, response.text)


async def test_a_json_body_starting_with_a_byte_order_mark_is_422(game: GameHandle) -> None:
    before = await snapshot(game)
    response = await game.client.put(
        f"{game.url}/players/p1/faith",
        content=b'\xef\xbb\xbf{"faith": 3}',
        headers={**game.host(), "Content-Type": "application/json"},
    )
    body = assert_problem(response, 422, "validation-error")
    assert body["errors"][0]["type"] == "json_invalid"
    assert "BOM" in body["errors"][0]["msg"]
    await assert_unchanged(game, before)
