"""Serve one ceiling with the uvicorn settings the service runs with (``app/server/serve.py``):
httptools, uvloop, one worker, no access log, no proxy headers, the service's default
keep-alive (``KEEPALIVE_TIMEOUT_SECONDS``, 5 s). uvicorn's own httptools protocol: the
service's bounded subclass of it is part of what the service costs.

    CEILING_ANSWERS=answers.json [DATABASE_URL=...] python -m bench.ceilings.serve bare PORT

Ceilings: ``bare``, ``bare-read``, ``bare-write`` (frozen), and ``bare-read-libpq``
(``bare-read`` on libpq's own calls: not frozen, see its module).
"""

from __future__ import annotations

import importlib
import sys

import uvicorn

CEILINGS = ("bare", "bare-read", "bare-write", "bare-read-libpq")


def main() -> None:
    if len(sys.argv) != 3 or sys.argv[1] not in CEILINGS:
        sys.exit(f"usage: python -m bench.ceilings.serve {{{','.join(CEILINGS)}}} PORT")
    name, port = sys.argv[1], int(sys.argv[2])
    module = importlib.import_module(f"bench.ceilings.{name.replace('-', '_')}")
    uvicorn.run(
        module.app,
        host="127.0.0.1",
        port=port,
        http="httptools",
        loop="uvloop",
        workers=1,
        access_log=False,
        proxy_headers=False,
        timeout_keep_alive=5,
        log_level="warning",
        lifespan="on",
    )


if __name__ == "__main__":
    main()
