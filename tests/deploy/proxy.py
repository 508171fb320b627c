"""Debian's nginx on the host, with the committed configuration (deploy/nginx), in front of
replicas on 127.0.0.1: the main file is written here (paths in a folder of the test's, the
replicas' addresses in deploy/nginx/upstream.conf's place), the rest is included as is."""

from __future__ import annotations

import re
import signal
import socket
import subprocess
import time
from pathlib import Path

from tests.support.servers import REPO_ROOT, free_port

NGINX_DIR = REPO_ROOT / "deploy" / "nginx"
_SERVER_LINE = re.compile(r"^(\s*)server\s+(\S+)(.*);$", re.MULTILINE)


def upstream_block(addresses: list[str]) -> str:
    """deploy/nginx/upstream.conf with one ``server`` line per address (each with the
    parameters of the file's own lines, plus what an address carries after a space)."""
    text = (NGINX_DIR / "upstream.conf").read_text()
    lines = _SERVER_LINE.findall(text)
    assert lines, "deploy/nginx/upstream.conf has no server line"
    indent, _address, parameters = lines[0]
    servers = "".join(f"{indent}server {address}{parameters};\n" for address in addresses)
    first, last = _SERVER_LINE.search(text), list(_SERVER_LINE.finditer(text))[-1]
    assert first is not None
    return text[: first.start()] + servers.rstrip("\n") + text[last.end() :]


class Nginx:
    """``nginx -g 'daemon off;'`` on 127.0.0.1:``port``, logs and temporary files in ``folder``."""

    def __init__(self, binary: str, folder: Path, replicas: list[str]) -> None:
        self.binary = binary
        self.folder = folder
        self.folder.mkdir(parents=True, exist_ok=True)
        self.port = free_port()
        self.base_url = f"http://127.0.0.1:{self.port}"
        self.conf = folder / "nginx.conf"
        self.conf.write_text(self._main(replicas))
        self.proc: subprocess.Popen[bytes] | None = None

    def _main(self, replicas: list[str]) -> str:
        temp = "\n".join(
            f"    {kind}_temp_path {self.folder / kind};"
            for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
        )
        return f"""
worker_processes 1;
pid {self.folder / "nginx.pid"};
error_log {self.folder / "error.log"} info;
events {{
    worker_connections 4096;
}}
http {{
{temp}
    include {NGINX_DIR / "http.conf"};
    access_log {self.folder / "access.log"} upstream;
{upstream_block(replicas)}
    server {{
        listen 127.0.0.1:{self.port};
        include {NGINX_DIR / "server.conf"};
    }}
}}
"""

    def _args(self) -> list[str]:
        error_log = str(self.folder / "error.log")
        return [self.binary, "-e", error_log, "-p", str(self.folder), "-c", str(self.conf)]

    def check(self) -> None:
        done = subprocess.run([*self._args(), "-t"], capture_output=True, text=True, timeout=30)
        assert done.returncode == 0, done.stderr

    def start(self) -> Nginx:
        self.check()
        log = open(self.folder / "nginx.out", "ab")  # noqa: SIM115 (the process keeps it)
        self.proc = subprocess.Popen(
            [*self._args(), "-g", "daemon off;"], stdout=log, stderr=subprocess.STDOUT
        )
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            assert self.proc.poll() is None, self.error_log()
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                return self
            except OSError:
                time.sleep(0.05)
        raise AssertionError(f"nginx not listening:\n{self.error_log()}")

    def stop(self) -> None:
        if self.proc is None or self.proc.poll() is not None:
            return
        self.proc.send_signal(signal.SIGQUIT)  # nginx's graceful stop
        try:
            self.proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=10)

    def error_log(self) -> str:
        path = self.folder / "error.log"
        return path.read_text(errors="replace")[-4000:] if path.exists() else "<no log>"

    def access_log(self) -> list[str]:
        path = self.folder / "access.log"
        return path.read_text(errors="replace").splitlines() if path.exists() else []

    def __enter__(self) -> Nginx:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
