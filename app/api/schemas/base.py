"""Shared bases: strict requests, plain responses, and the resource bag."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, Field

from app.domain.draw import MAX_SEED
from app.domain.faith import MAX_FAITH_SENT
from app.domain.leaders import LEADER_TWICE, MAX_LEADERS, LeaderId, repeated_leader

# A bound on every count a client sends: far above any real game, far below overflow.
MAX_AMOUNT = 9_999
Amount = Annotated[int, Field(ge=0, le=MAX_AMOUNT)]
PlayerRef = Annotated[str, Field(min_length=1, max_length=64)]
TileId = Annotated[str, Field(min_length=1, max_length=16, examples=["I-2"])]
#: The tiles a player of a calculation holds, by id.
Excommunications = list[TileId]
#: A period of the game (I, II, III) as the answers give it.
PeriodNumber = Literal[1, 2, 3]
#: A period as an object key ("1", "2", "3").
PeriodKey = Literal["1", "2", "3"]
#: A draw seed: at most 2^53-1, which every JSON client (JavaScript too) holds exactly.
Seed = Annotated[int, Field(ge=0, le=MAX_SEED)]
#: Faith as a client sends it, to a stored game or a calculation (R-FT-4): above 15 is
#: lost (R-FT-2).
FaithIn = Annotated[int, Field(ge=0, le=MAX_FAITH_SENT)]


def _each_leader_once(leaders: list[LeaderId]) -> list[LeaderId]:
    if repeated_leader(leaders) is not None:
        raise ValueError(LEADER_TWICE)
    return leaders


#: The leaders a player holds, in a stored game or a calculation: each once (R-PLY-2).
PlayerLeaders = Annotated[
    list[LeaderId],
    Field(max_length=MAX_LEADERS, json_schema_extra={"uniqueItems": True}),
    AfterValidator(_each_leader_once),
]


def is_ascii_digits(text: str, max_length: int) -> bool:
    """Whether ``text`` is 1 to ``max_length`` of the digits 0-9 (RFC 9110's DIGIT).
    ``str.isdigit`` is not enough: it takes superscripts and other scripts' digits, which
    ``int`` then refuses or reads as another number."""
    return 0 < len(text) <= max_length and text.isascii() and text.isdigit()


def _digits_only(value: Any) -> Any:
    # 20 digits hold any 64-bit number; longer text is refused before it is parsed.
    if isinstance(value, str) and not is_ascii_digits(value, 20):
        raise ValueError("must be a whole number written with digits")
    return value


# Path and query integers arrive as text, which pydantic would read leniently ("1.0" -> 1);
# the contract says a float for an integer is a 422, so only digits pass.
WholeNumber = BeforeValidator(_digits_only)


def examples(*values: dict[str, Any]) -> ConfigDict:
    """Request examples for the docs; pydantic merges this with the base model's config."""
    return ConfigDict(json_schema_extra={"examples": list(values)})


class StrictModel(BaseModel):
    """Requests: unknown fields, strings for numbers and floats for integers are 422."""

    model_config = ConfigDict(extra="forbid", strict=True)


class ResponseModel(BaseModel):
    """Responses may grow new fields; clients ignore the ones they do not know.

    Built from the domain's values by attribute (``model_validate(value)``) where their
    names agree, so a presenter never lists a shape's fields a second time."""

    # A field with a default is still always in the answer: generated clients must not
    # type it as optional (the response schemas list it as required).
    model_config = ConfigDict(
        from_attributes=True, json_schema_serialization_defaults_required=True
    )


class Resources(StrictModel):
    """Resource amounts; a missing key is 0, negatives are invalid."""

    model_config = examples({"coins": 2, "wood": 1})

    coins: Amount = 0
    wood: Amount = 0
    stone: Amount = 0
    servants: Amount = 0
    military_points: Amount = 0
    faith_points: Amount = 0
    victory_points: Amount = 0

    def as_bag(self) -> dict[str, int]:
        # The fields' values, read where pydantic keeps them: model_dump() costs more
        # than the rest of a gain's conversion.
        return {key: value for key, value in self.__dict__.items() if value}
