"""Leader cards that change the Vatican Report or gains (R-REP-8, R-REP-9, R-GAIN-5)."""

from __future__ import annotations

SISTO_IV = "sisto_iv"
SANTA_RITA = "santa_rita"
MARTIN_LUTERO = "martin_lutero"  # Houses of Renaissance

LEADERS: tuple[str, ...] = (SISTO_IV, SANTA_RITA, MARTIN_LUTERO)
