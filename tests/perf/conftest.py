"""The API fixtures (app, client, create_game) for the performance guards."""

from __future__ import annotations

from tests.api.conftest import app, client

__all__ = ["app", "client"]
