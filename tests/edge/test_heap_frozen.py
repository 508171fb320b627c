"""A served process leaves what its app's import made out of the garbage collector's
later collections (``app/server/config.py``, ``freeze_the_heap``): a full collection walks
every object it tracks while the event loop waits, and the app's import makes most of a
worker's objects (bench/RESULTS.md, seventeenth round)."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest
from starlette.types import Receive, Scope, Send

from app.server.config import EdgeConfig
from app.server.edge_limits import EdgeLimits
from app.settings import Settings

#: What the app's import leaves alive until the process ends, as a served app's would.
KEPT_BY_THE_APP = [{"object": n} for n in range(5_000)]


async def app(scope: Scope, receive: Receive, send: Send) -> None:  # pragma: no cover
    raise NotImplementedError


@pytest.fixture
def collector_restored() -> Iterator[None]:
    gc.unfreeze()
    yield
    gc.unfreeze()  # the test process collects as before


def test_loading_the_app_to_serve_it_freezes_what_is_alive(collector_restored: None) -> None:
    assert gc.get_freeze_count() == 0
    config = EdgeConfig(
        f"{__name__}:app", edge_limits=EdgeLimits.from_settings(Settings()), log_config=None
    )
    config.load()
    assert gc.get_freeze_count() > len(KEPT_BY_THE_APP)
    collected = {id(o) for generation in range(3) for o in gc.get_objects(generation)}
    assert not any(id(kept) in collected for kept in KEPT_BY_THE_APP)
