"""Probes of a server process from the outside (Linux ``/proc``): memory, descriptors,
children, and a fresh client's view of it."""

from __future__ import annotations

import contextlib
import os
import signal
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx


def rss_mib(pid: int) -> float:
    """Resident memory of ``pid`` in MiB (Linux /proc); 0 when it is gone."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def open_fds(pid: int) -> int:
    try:
        return len(os.listdir(f"/proc/{pid}/fd"))
    except OSError:
        return -1


class RssSampler:
    """The peak RSS of ``pid`` while the ``with`` block runs (sampled every 20 ms)."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.peak = rss_mib(pid)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.wait(0.02):
            self.peak = max(self.peak, rss_mib(self.pid))

    def __enter__(self) -> RssSampler:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()
        self.peak = max(self.peak, rss_mib(self.pid))


def probe(port: int, timeout: float = 10.0) -> tuple[int | str, float]:
    """A fresh client's GET /healthz: its status (or error) and the seconds it took."""
    start = time.monotonic()
    try:
        status: int | str = httpx.get(
            f"http://127.0.0.1:{port}/healthz", timeout=timeout
        ).status_code
    except httpx.HTTPError as exc:
        status = type(exc).__name__
    return status, round(time.monotonic() - start, 3)


def served_within(port: int, seconds: float) -> int | str:
    """A fresh client's status, asked again until it is 200 or ``seconds`` have passed."""
    deadline = time.monotonic() + seconds
    status = probe(port)[0]
    while status != 200 and time.monotonic() < deadline:
        time.sleep(0.2)
        status = probe(port)[0]
    return status


@contextlib.contextmanager
def paused(pid: int) -> Iterator[Callable[[], None]]:
    """``pid`` stopped (SIGSTOP) until the ``resume`` it yields is called, or the block
    ends: what arrives meanwhile waits in the kernel, as for a busy process."""
    stopped = True

    def resume() -> None:
        nonlocal stopped
        if stopped:
            stopped = False
            os.kill(pid, signal.SIGCONT)

    os.kill(pid, signal.SIGSTOP)
    try:
        yield resume
    finally:
        resume()


def children_of(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        with contextlib.suppress(OSError, IndexError, ValueError):
            stat = (entry / "stat").read_text()
            ppid = int(stat.rsplit(")", 1)[1].split()[1])
            if ppid == pid:
                found.append(int(entry.name))
    return found


def alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""
