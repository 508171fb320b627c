"""Without Node.js or Chromium the browser tests skip on a developer's machine and fail in
CI, where they must run."""

from __future__ import annotations

import pytest

from tests.web.conftest import _missing


def test_missing_browser_fails_under_ci(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="Chromium"):
        _missing("Chromium")


def test_missing_browser_skips_elsewhere(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception, match="Chromium"):
        _missing("Chromium")
