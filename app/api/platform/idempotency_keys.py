"""Which Idempotency-Keys the service takes: keys that a stranger cannot guess.

A creation's answer holds the game's tokens, and a retry with the same key and body gets
that answer again: whoever can guess a key that another client used can take over its
game. So a key must be as hard to guess as a token (docs/api.md, "Idempotency"):

- a UUID (8-4-4-4-12 hex digits) must be version 4, the random one, with the RFC 9562
  variant: the nil and max UUIDs and the time- or name-based versions are refused;
- anything else must be 22 to 255 base64url characters (at least 128 bits when random);
- and every key must hold at least ``MIN_DISTINCT`` distinct characters, dashes not
  counted (hex digits of a UUID compared without case): ``aaaa...``, 24 dashes or a
  repeated short pattern are what a guesser tries first. A key from a good random
  generator (``uuid4``, ``crypto.randomUUID``, 16+ random bytes in base64url) fails this
  with odds below one in 10^11 (``tests/api/test_idempotency_keys.py`` computes them).
"""

from __future__ import annotations

import re

MIN_LENGTH = 22
MAX_LENGTH = 255
MIN_DISTINCT = 6

_BASE64URL = re.compile(rf"[A-Za-z0-9_-]{{{MIN_LENGTH},{MAX_LENGTH}}}", re.ASCII)
# 8-4-4-4-12 hex digits; the groups are the version digit and the variant digit.
_UUID = re.compile(
    r"[0-9a-f]{8}-[0-9a-f]{4}-([0-9a-f])[0-9a-f]{3}-([0-9a-f])[0-9a-f]{3}-[0-9a-f]{12}"
)

RULE = (
    "Idempotency-Key must be a random key: a version-4 UUID, or 22 to 255 base64url "
    f"characters (A-Z a-z 0-9 - _), with at least {MIN_DISTINCT} distinct characters"
)


def weakness(key: str) -> str | None:
    """Why ``key`` is refused, or None when it is a key a stranger cannot guess."""
    if not _BASE64URL.fullmatch(key):
        return f"{RULE}; this one is not {MIN_LENGTH} to {MAX_LENGTH} base64url characters"
    uuid = _UUID.fullmatch(key.lower())
    if uuid is not None and (uuid.group(1) != "4" or uuid.group(2) not in "89ab"):
        return f"{RULE}; this UUID is not a random (version 4) one"
    distinct = set((key.lower() if uuid is not None else key).replace("-", ""))
    if len(distinct) < MIN_DISTINCT:
        return f"{RULE}; this one has only {len(distinct)} distinct characters"
    return None
