"""The packaging suite's fixture: one installation of the project per test session."""

from __future__ import annotations

import pytest

from tests.packaging.installation import Installation, install


@pytest.fixture(scope="session")
def installation(tmp_path_factory: pytest.TempPathFactory) -> Installation:
    """This project installed with ``pip`` into a fresh virtualenv, as a user would."""
    return install(tmp_path_factory.mktemp("installation"))
