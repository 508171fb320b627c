"""What the use cases need from the layer above them, declared here so they depend on no web
code: the rendering of the answers they store (the read model, idempotent answers)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Protocol

from app.domain.game import ChangeRef, GameState


class Presenter(Protocol):
    """Renders stored games into the public documents (``app/api/presenters.py``)."""

    #: Names the renderer and the tile catalogue it renders with: a stored document made
    #: under another key is stale and rendered again.
    key: str

    def game(self, game: GameState) -> str:
        """The game document (``GET /v1/games/{id}``), JSON."""
        ...

    def created(
        self,
        game: GameState,
        host_token: str,
        player_tokens: Mapping[str, str],
        recovery_code: str,
    ) -> bytes:
        """The answer to a game creation, JSON."""
        ...

    def faith_changed(self, game: GameState, player_id: str, lost: int, applied: int) -> bytes:
        """The answer to a Faith change: the player, the faith lost and the change applied."""
        ...

    def reverted(self, game: GameState, change: ChangeRef, *, undone: bool) -> bytes:
        """The answer to an undo (or a redo) of ``change``: what it reverted, what an undo
        and a redo would take next, and the game."""
        ...

    def seat_token(self, seat: str, token: str) -> bytes:
        """The answer that hands over a seat's new token, JSON."""
        ...

    def recovered(self, host_token: str, recovery_code: str) -> bytes:
        """The answer to the host seat's recovery: its new token and recovery code, JSON."""
        ...

    def report(self, game: GameState, period: int) -> bytes:
        """The report of ``period`` (``GET /v1/games/{id}/reports/{period}``), JSON."""
        ...
