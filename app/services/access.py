"""Who is calling: the host or one player of the game, by their bearer token."""

from __future__ import annotations

from dataclasses import dataclass

from app.domain.game import HOST_SEAT
from app.services.errors import Forbidden, Unauthorized
from app.services.stored import Credentials
from app.services.tokens import hash_recovery_code, hash_token, same_hash


@dataclass(frozen=True, slots=True)
class Principal:
    is_host: bool
    player_id: str | None = None

    @property
    def seat(self) -> str:
        """The seat the token holds: ``host``, or the player's id."""
        return HOST_SEAT if self.is_host or self.player_id is None else self.player_id

    def require_host(self, action: str) -> None:
        if not self.is_host:
            raise Forbidden(f"Only the host token may {action}.")

    def require_host_or_player(self, player_id: str, action: str) -> None:
        """A player acts for itself only; the host may act for anyone."""
        if not self.is_host and self.player_id != player_id:
            raise Forbidden(f"A player token may {action} only for its own player.")


def authenticate(credentials: Credentials, token: str | None) -> Principal:
    """The principal holding ``token`` in the game, compared in constant time; else 401."""
    if not token:
        raise Unauthorized(
            "Send the game's host or player token as 'Authorization: Bearer <token>'."
        )
    presented = hash_token(token)
    found: Principal | None = None
    # Compare against every hash, without stopping at a match, so timing says nothing.
    if same_hash(presented, credentials.host_token_hash):
        found = Principal(is_host=True)
    for player_id, token_hash in credentials.player_token_hashes.items():
        if same_hash(presented, token_hash) and found is None:
            found = Principal(is_host=False, player_id=player_id)
    if found is None:
        raise Unauthorized("This token does not belong to this game.")
    return found


def recover(credentials: Credentials, code: str) -> Principal:
    """The host, regaining its seat with the game's recovery code; else 401."""
    stored = credentials.recovery_code_hash
    if stored is None or not same_hash(hash_recovery_code(code), stored):
        raise Unauthorized(
            "This recovery code does not belong to this game (or it was used already)."
        )
    return Principal(is_host=True)
