"""Leader cards that change the Vatican Report or gains (R-REP-8, R-REP-9, R-GAIN-5)."""

from __future__ import annotations

from typing import Literal, get_args

SISTO_IV = "sisto_iv"
SANTA_RITA = "santa_rita"
MARTIN_LUTERO = "martin_lutero"  # Houses of Renaissance

LeaderId = Literal["sisto_iv", "santa_rita", "martin_lutero"]
LEADERS: tuple[str, ...] = get_args(LeaderId)
