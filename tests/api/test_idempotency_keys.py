"""The Idempotency-Key rule (app/api/platform/idempotency_keys.py): what a guesser would try is
refused, and what a good random generator makes always passes."""

from __future__ import annotations

import base64
import os
import uuid
from math import comb

import pytest

from app.api.platform.idempotency_keys import MIN_DISTINCT, weakness


@pytest.mark.parametrize(
    "key",
    [
        "a" * 22,
        "-" * 24,
        "ab" * 11,
        "abcde" * 5,
        "00000000-0000-0000-0000-000000000000",  # nil UUID
        "FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF",  # max UUID
        "6ba7b810-9dad-11d1-80b4-00c04fd430c8",  # version 1: time and MAC
        "6fa459ea-ee8a-3ca4-894e-db77e160355e",  # version 3: a name's MD5
        "01890a5d-ac96-774b-bcce-b302099a8057",  # version 7: time-ordered
        "f81d4fae-7dec-41d0-0765-00a0c91e6bf6",  # version 4 digit, wrong variant
        "aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa",  # version 4 shape, three digits
        "k" * 21,
        "k" * 256,
        "has spaces in it, long enough",
        "clé-0123456789abcdefghij",
    ],
)
def test_guessable_keys_are_refused(key: str) -> None:
    assert weakness(key) is not None


@pytest.mark.parametrize(
    "key",
    [
        "3f2504e0-4f89-41d3-9a0c-0305e82c3301",
        "3F2504E0-4F89-41D3-9A0C-0305E82C3301",
        "A" * 10 + "_-" + "zy9x8" * 2,
        "key-busy-0123456789abcdef",
    ],
)
def test_random_looking_keys_pass(key: str) -> None:
    assert weakness(key) is None


def test_keys_of_good_generators_always_pass() -> None:
    # What clients use: Python's uuid4 (the SDK's crypto.randomUUID makes the same
    # version-4 UUIDs), its hex form, and 16 random bytes in base64url.
    for _ in range(20_000):
        assert weakness(str(uuid.uuid4())) is None
        assert weakness(uuid.uuid4().hex) is None
        assert weakness(base64.urlsafe_b64encode(os.urandom(16)).decode().rstrip("=")) is None


def _odds_of_fewer_distinct(draws: int, alphabet: int, distinct: int) -> float:
    """The chance that ``draws`` uniform picks from ``alphabet`` symbols show fewer than
    ``distinct`` different ones (inclusion-exclusion over the surjections)."""
    ways = 0
    for j in range(1, distinct):
        onto = sum((-1) ** i * comb(j, i) * (j - i) ** draws for i in range(j + 1))
        ways += comb(alphabet, j) * onto
    return ways / alphabet**draws


def test_a_random_key_fails_the_distinct_rule_with_odds_below_one_in_1e11() -> None:
    # A version-4 UUID has 30 random hex digits besides its version and variant; a hex
    # uuid4 32; a base64url key at least 22 random characters.
    for draws, alphabet in ((30, 16), (32, 16), (22, 64)):
        assert _odds_of_fewer_distinct(draws, alphabet, MIN_DISTINCT) < 1e-11
