"""Who holds a seat: a seat's new token, and the host seat regained with the recovery code."""

from __future__ import annotations

from pydantic import Field

from app.api.schemas.base import ResponseModel, StrictModel, examples


class SeatTokenRead(ResponseModel):
    seat: str = Field(description="`host`, or the player's id.")
    token: str = Field(
        description="Shown once: the service stores only its hash. The seat's old token is "
        "refused from now on."
    )


class RecoveryCreate(StrictModel):
    model_config = examples({"recovery_code": "KQ4M-7ZRT-B2XW-5HDC-N5PV-3LJE-YF7A-6GSU"})

    # Letters and digits, with any spaces and hyphens a person writes it with.
    recovery_code: str = Field(min_length=1, max_length=64)


class RecoveryRead(ResponseModel):
    host_token: str = Field(description="Shown once: the host seat's new token.")
    recovery_code: str = Field(
        description="Shown once: the game's new recovery code; the one just used is spent."
    )
