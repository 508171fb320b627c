"""Seats: POST and DELETE /v1/games/{id}/seats/{seat}/token, and POST .../recovery (which
takes no token: the recovery code in its body is the credential)."""

from __future__ import annotations

import pytest

from tests.api.hostile.harness import JSON_CT, Case, CaseRunner, G, case, raw, v422


def token(seat: str) -> str:
    return f"{G}/seats/{seat}/token"


RECOVERY = f"{G}/recovery"
WRONG_CODE = "KQ4M-7ZRT-B2XW-5HDC-N5PV-3LJE-YF7A-6GSU"

CASES = [
    case("seat-token-unknown-seat", "POST", token("p9"), 404, "not-found"),
    case("seat-token-case-variant", "POST", token("HOST"), 404, "not-found"),
    case("seat-token-nul", "POST", token("p1%00"), 404, "not-found"),
    v422("seat-token-too-long", "POST", token("p" * 17), ("path", "seat")),
    case("seat-revoke-unknown-seat", "DELETE", token("p4"), 404, "not-found"),
    # The host seat always has a token: it moves (a new token), it is never revoked.
    v422("seat-revoke-host", "DELETE", token("host"), ("path", "seat")),
    case(
        "seat-token-key-weak",
        "POST",
        token("host"),
        422,
        "validation-error",
        ("header", "Idempotency-Key"),
        headers={"Idempotency-Key": "short"},
    ),
    # The recovery: no token, the code is the credential.
    case(
        "recovery-wrong-code",
        "POST",
        RECOVERY,
        401,
        "unauthorized",
        body={"recovery_code": WRONG_CODE},
        auth=None,
    ),
    case(
        "recovery-host-token-as-code",
        "POST",
        RECOVERY,
        401,
        "unauthorized",
        body={"recovery_code": "{host}"},
        auth=None,
    ),
    case(
        "recovery-unknown-game",
        "POST",
        "/v1/games/" + "0" * 32 + "/recovery",
        404,
        "not-found",
        body={"recovery_code": WRONG_CODE},
        auth=None,
    ),
    v422(
        "recovery-empty-code",
        "POST",
        RECOVERY,
        ("body", "recovery_code"),
        body={"recovery_code": ""},
        auth=None,
    ),
    v422(
        "recovery-code-65",
        "POST",
        RECOVERY,
        ("body", "recovery_code"),
        body={"recovery_code": "A" * 65},
        auth=None,
    ),
    v422(
        "recovery-code-number",
        "POST",
        RECOVERY,
        ("body", "recovery_code"),
        body={"recovery_code": 123},
        auth=None,
    ),
    v422("recovery-missing-code", "POST", RECOVERY, ("body", "recovery_code"), body={}, auth=None),
    v422(
        "recovery-unknown-field",
        "POST",
        RECOVERY,
        ("body", "host_token"),
        body={"recovery_code": WRONG_CODE, "host_token": "x"},
        auth=None,
    ),
    raw("recovery-truncated", "POST", RECOVERY, b'{"recovery_code": "A', ("body", 18), auth=None),
    case(
        "recovery-text-plain",
        "POST",
        RECOVERY,
        415,
        "unsupported-media-type",
        content=b'{"recovery_code": "A"}',
        headers={"content-type": "text/plain"},
        auth=None,
    ),
    case(
        "recovery-key-weak",
        "POST",
        RECOVERY,
        422,
        "validation-error",
        ("header", "Idempotency-Key"),
        body={"recovery_code": WRONG_CODE},
        headers={**JSON_CT, "Idempotency-Key": "k" * 21},
        auth=None,
    ),
]


@pytest.mark.parametrize("c", CASES)
async def test_hostile_game(run_game_case: CaseRunner, c: Case) -> None:
    """Seats: a problem, and the game exactly as it was."""
    await run_game_case(c)
