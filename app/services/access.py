"""Who is calling: the host or one player of the game, by their bearer token."""

from __future__ import annotations

from dataclasses import dataclass

from app.persistence.repositories import Credentials
from app.services.errors import Forbidden, Unauthorized
from app.services.tokens import hash_token, same_hash


@dataclass(frozen=True, slots=True)
class Principal:
    is_host: bool
    player_id: str | None = None

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
