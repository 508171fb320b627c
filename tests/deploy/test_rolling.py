"""A rolling restart behind nginx loses nothing: three replicas on one PostgreSQL database,
steady mixed traffic from clients that retry as the SDK does, a live stream on every one of
50 games; each replica in turn gets SIGTERM and comes back on a release that adds a
migration (tests/deploy/rolling.py has the scenario; bench/ROLLING.md its figures)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from tests.deploy.rolling import RELEASE_REVISION, Scenario, phase_figures, problems, run

pytestmark = pytest.mark.postgres


def test_a_rolling_restart_loses_no_operation_event_or_resolution(
    tmp_path: Path, nginx_binary: str, postgres_url: str
) -> None:
    outcome = asyncio.run(run(Scenario(), postgres_url, nginx_binary, tmp_path))
    assert problems(outcome) == []
    # What makes the run a test of restarts: every replica went down and came back on the
    # release, the first one migrating while the others served the old code...
    assert [restart.replica for restart in outcome.restarts] == ["new-1", "new-2", "new-3"]
    assert outcome.revision_before != RELEASE_REVISION
    assert outcome.restarts[0].revision_after == RELEASE_REVISION
    # ...every stream was cut by a SIGTERM at least once and resumed...
    assert all(follower.connections >= 2 for follower in outcome.followers)
    # ...and games were created, changed and resolved while replicas restarted.
    rolling = phase_figures(outcome)["rolling restart"]
    start, end = outcome.phases["rolling restart"]
    during = {op.kind for op in outcome.ops if start <= op.started < end}
    assert {"faith", "read", "calculate", "decide", "resolve"} <= during, during
    assert rolling["operations"] > 0
