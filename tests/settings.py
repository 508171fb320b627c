"""Settings the suites share."""

from __future__ import annotations

#: The rate limits off, for suites that create many games (and change them fast) from one
#: address; the limits' own tests are in tests/limits.
LIMITS_OFF: dict[str, float] = {
    "game_creation_rate": 0,
    "game_write_rate": 0,
    "player_write_rate": 0,
}
