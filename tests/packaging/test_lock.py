"""The lock files agree with pyproject.toml, offline: every declared dependency is pinned at
a version its specifier allows, every pin carries hashes, and the runtime lock is the
runtime part of the dev lock. `bash requirements/lock.sh` rewrites them."""

from __future__ import annotations

import re
import tomllib
from collections import defaultdict
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

from tests.support.servers import REPO_ROOT

RUNTIME_LOCK = REPO_ROOT / "requirements" / "runtime.txt"
DEV_LOCK = REPO_ROOT / "requirements" / "dev.txt"
LOCK_COMMAND = "bash requirements/lock.sh"

Pins = dict[str, set[Version]]


def project() -> dict[str, object]:
    return tomllib.loads((REPO_ROOT / "pyproject.toml").read_text("utf-8"))["project"]


def declared(*, dev: bool) -> list[Requirement]:
    meta = project()
    names = list(meta["dependencies"])  # type: ignore[call-overload]
    if dev:
        names += meta["optional-dependencies"]["dev"]  # type: ignore[index]
    return [Requirement(name) for name in names]


def requirement_lines(lock: Path) -> list[str]:
    """The lock's requirements, one per line: continuations joined, comments dropped."""
    joined = re.sub(r"\\\n", " ", lock.read_text("utf-8"))
    return [
        line.strip()
        for line in joined.splitlines()
        if line.strip() and not line.strip().startswith("#")
    ]


def pins(lock: Path) -> Pins:
    """Package -> its pinned versions (a universal lock may pin two, under exclusive markers)."""
    found: Pins = defaultdict(set)
    for line in requirement_lines(lock):
        words = line.split()
        hashes = [w for w in words if w.startswith("--hash=sha256:")]
        requirement = Requirement(" ".join(w for w in words if not w.startswith("--hash=")))
        (spec,) = requirement.specifier
        assert spec.operator == "==" and "*" not in spec.version, f"{lock.name}: {line}"
        assert hashes, f"{lock.name}: {requirement.name} has no hash"
        found[canonicalize_name(requirement.name)].add(Version(spec.version))
    return dict(found)


@pytest.mark.parametrize("lock", [RUNTIME_LOCK, DEV_LOCK], ids=lambda p: p.name)
def test_the_lock_names_the_command_that_rewrites_it(lock: Path) -> None:
    assert f"#    {LOCK_COMMAND}\n" in lock.read_text("utf-8")
    assert "--hash=sha256:" in lock.read_text("utf-8")


@pytest.mark.parametrize(
    ("lock", "dev"), [(RUNTIME_LOCK, False), (DEV_LOCK, True)], ids=["runtime", "dev"]
)
def test_every_declared_dependency_is_pinned_at_a_version_it_allows(lock: Path, dev: bool) -> None:
    locked = pins(lock)
    wrong = {
        str(requirement): sorted(
            str(v) for v in locked.get(canonicalize_name(requirement.name), [])
        )
        for requirement in declared(dev=dev)
        if not locked.get(canonicalize_name(requirement.name))
        or not all(
            requirement.specifier.contains(version, prereleases=True)
            for version in locked[canonicalize_name(requirement.name)]
        )
    }
    assert wrong == {}, f"{lock.name} is stale: run `{LOCK_COMMAND}`"


def test_the_runtime_lock_is_the_runtime_part_of_the_dev_lock() -> None:
    runtime, dev = pins(RUNTIME_LOCK), pins(DEV_LOCK)
    differing = {
        name: (runtime[name], dev.get(name)) for name in runtime if runtime[name] != dev.get(name)
    }
    assert differing == {}, f"the locks disagree: run `{LOCK_COMMAND}`"
    assert set(dev) > set(runtime)
