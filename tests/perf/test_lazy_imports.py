"""A worker loads what its deployment uses: on SQLite, neither psycopg nor SQLAlchemy's
PostgreSQL dialect (about 11 MiB of RSS together); anywhere, OpenSSL's bindings (7 MiB)
only once a request with an Idempotency-Key needs them."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]

PROBE = """
import sys
from app.main import create_app
create_app()
lazy = ("psycopg", "sqlalchemy.dialects.postgresql", "cryptography")
print(sorted(m for m in sys.modules if m.startswith(lazy)))
"""


def test_an_app_on_sqlite_loads_neither_postgresql_nor_openssl(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-c", PROBE],
        cwd=REPO_ROOT,
        env={"DATABASE_URL": f"sqlite:///{tmp_path / 'lazy.db'}", "PATH": ""},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
