"""Worker processes that die with their master, and a metrics folder that dies with them."""

from __future__ import annotations

import contextlib
import ctypes
import logging
import os
import shutil
import signal
import sys
import tempfile
import threading
import time
from pathlib import Path

logger = logging.getLogger("app.server")

#: ``prctl(2)`` option: the signal this process gets when the thread that made it exits.
PR_SET_PDEATHSIG = 1
METRICS_DIR_PREFIX = "vatican-metrics-"


def die_with_parent(master_pid: int) -> bool:
    """Make this worker get SIGTERM (uvicorn's graceful shutdown) when ``master_pid`` dies.

    On Linux through ``prctl(PR_SET_PDEATHSIG)``; elsewhere a daemon thread watches the
    parent pid. Returns False when the master is already gone (nothing will signal this
    process then: the caller exits). A worker killed while it starts may leave the
    metrics folder behind: the next start sweeps it (:func:`sweep_stale_metrics_dirs`).
    """
    armed = False
    if sys.platform.startswith("linux"):
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            armed = libc.prctl(PR_SET_PDEATHSIG, int(signal.SIGTERM), 0, 0, 0) == 0
        except (OSError, AttributeError):
            armed = False
    if not armed:
        threading.Thread(target=_watch_parent, args=(master_pid,), daemon=True).start()
    return os.getppid() == master_pid


def _watch_parent(master_pid: int) -> None:  # pragma: no cover (non-Linux fallback)
    while os.getppid() == master_pid:
        time.sleep(1.0)
    os.kill(os.getpid(), signal.SIGTERM)


def make_metrics_dir() -> str:
    """A new folder for prometheus-client's multiprocess files, named after this process
    so that a later start can tell it is stale once this process is gone."""
    sweep_stale_metrics_dirs()
    return tempfile.mkdtemp(prefix=f"{METRICS_DIR_PREFIX}{os.getpid()}-")


def remove_metrics_dir(path: str) -> None:
    shutil.rmtree(path, ignore_errors=True)


def remove_metrics_dir_if_orphaned(path: str, master_pid: int) -> None:
    """At a worker's exit: when its master is gone (killed), nobody else will remove it."""
    if os.getppid() != master_pid:
        remove_metrics_dir(path)


def sweep_stale_metrics_dirs() -> None:
    """Remove the metrics folders of masters that no longer run (killed with SIGKILL
    together with all their workers, the one case nothing else can clean up)."""
    for folder in Path(tempfile.gettempdir()).glob(f"{METRICS_DIR_PREFIX}*-*"):
        pid_text = folder.name[len(METRICS_DIR_PREFIX) :].split("-", 1)[0]
        if not pid_text.isdigit() or not folder.is_dir():
            continue
        if not _alive(int(pid_text)):
            with contextlib.suppress(OSError):
                shutil.rmtree(folder)
                logger.info("removed stale metrics folder %s", folder)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's process
        return True
    return True
