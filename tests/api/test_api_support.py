"""Shared checks for the test_api_* suites: the problem+json shape (API.md "Errors"),
"every number is explained by its steps", and "a rejected change writes nothing".

Named test_api_* only so that it may live next to the suites; it holds no tests itself.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import httpx

from tests.api.conftest import GameHandle

PROBLEM = "application/problem+json"
# API.md "Problem type slugs", copied from the contract (not from the app, so that a
# change in the app cannot silently change what the tests expect).
CONTRACT_SLUGS = {
    "validation-error": 422,
    "unauthorized": 401,
    "forbidden": 403,
    "not-found": 404,
    "report-resolved": 409,
    "report-out-of-order": 409,
    "decisions-pending": 409,
    "not-eligible": 409,
    "version-mismatch": 412,
    "idempotency-key-reused": 422,
    "idempotency-in-flight": 409,
    "payload-too-large": 413,
    "unknown-expansion": 422,
    "service-unavailable": 503,
}


def assert_problem(
    response: httpx.Response,
    status: int,
    slug: str,
    *,
    loc: Sequence[str | int] | None = None,
) -> dict[str, Any]:
    """The response is an RFC 9457 problem of ``slug`` with ``status``; with ``loc``, one
    of its ``errors`` names exactly that location (ignoring the body/query prefix)."""
    assert response.status_code == status, response.text
    assert response.headers["content-type"].split(";")[0].strip() == PROBLEM
    assert response.headers.get("x-request-id"), "every response carries X-Request-ID"
    body: dict[str, Any] = response.json()
    assert body["type"].endswith("/" + slug), body
    assert body["status"] == status
    assert isinstance(body["title"], str) and body["title"]
    assert isinstance(body["detail"], str) and body["detail"]
    if loc is not None:
        errors = body.get("errors")
        assert errors, f"a validation problem carries errors: {body}"
        locs = [list(e["loc"]) for e in errors]
        wanted = list(loc)
        assert any(found[-len(wanted) :] == wanted for found in locs), (wanted, locs)
        assert all(e["msg"] for e in errors)
    return body


def add_bags(*bags: Mapping[str, int]) -> dict[str, int]:
    total: dict[str, int] = {}
    for one in bags:
        for key, value in one.items():
            total[key] = total.get(key, 0) + value
    return {k: v for k, v in total.items() if v}


def nonzero(values: Mapping[str, int]) -> dict[str, int]:
    return {k: v for k, v in values.items() if v}


def assert_gains_explained(body: Mapping[str, Any]) -> None:
    """R-GAIN-6: per gain, received + every step's change == result; the total is the
    sum of the results."""
    for gain in body["gains"]:
        explained = add_bags(gain["received"], *(s["change"] for s in gain["steps"]))
        assert explained == nonzero(gain["result"]), gain
        for step in gain["steps"]:
            assert step["rule"].startswith("R-GAIN-") and step["by"], step
    assert nonzero(body["total"]) == add_bags(*(g["result"] for g in body["gains"]))


def assert_value_explained(body: Mapping[str, Any]) -> None:
    """R-ACT-6: the steps add up to the value, and each step's running value is right."""
    running = 0
    for step in body["steps"]:
        running += step["change"]
        assert step["value"] == running, body
    assert running == body["value"], body


def assert_scores_explained(body: Mapping[str, Any]) -> None:
    """R-END-4: every player's total is the sum of its listed parts."""
    for player in body["players"]:
        assert sum(p["change"] for p in player["parts"]) == player["total"], player
        assert player["total"] >= 0


async def events(handle: GameHandle, after: int | None = None) -> list[dict[str, Any]]:
    params = {} if after is None else {"after": after}
    response = await handle.client.get(f"{handle.url}/events", params=params, headers=handle.host())
    assert response.status_code == 200, response.text
    found: list[dict[str, Any]] = response.json()["events"]
    return found


async def snapshot(handle: GameHandle) -> tuple[dict[str, Any], list[dict[str, Any]], list[Any]]:
    """The game, its event log and its three reports, to compare before and after."""
    response = await handle.client.get(handle.url, headers=handle.host())
    assert response.status_code == 200, response.text
    reports = []
    for period in (1, 2, 3):
        report = await handle.client.get(f"{handle.url}/reports/{period}", headers=handle.host())
        assert report.status_code == 200, report.text
        reports.append(report.json())
    return response.json(), await events(handle), reports


async def assert_unchanged(
    handle: GameHandle, before: tuple[dict[str, Any], list[dict[str, Any]], list[Any]]
) -> None:
    """No partial write: the game, its events and its reports are as they were."""
    after = await snapshot(handle)
    assert after[0] == before[0]
    assert len(after[1]) == len(before[1])
    assert after[1] == before[1]
    assert after[2] == before[2]
