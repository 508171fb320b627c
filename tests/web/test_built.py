"""``app/web/`` is the build of ``clients/web`` (rebuilt and compared byte for byte), and
the companion type-checks against the TypeScript SDK it is built on."""

from __future__ import annotations

import subprocess
from pathlib import Path

from tests.web.conftest import WEB_CLIENT


def test_committed_assets_are_the_current_build(web_modules: Path, node: str) -> None:
    done = subprocess.run(
        [node, "scripts/build.mjs", "--check"],
        cwd=WEB_CLIENT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_companion_type_checks_against_the_sdk(web_modules: Path, node: str) -> None:
    tsc = web_modules / "typescript" / "bin" / "tsc"
    done = subprocess.run(
        [node, str(tsc), "--noEmit", "-p", "tsconfig.json"],
        cwd=WEB_CLIENT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
