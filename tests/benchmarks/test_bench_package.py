"""bench/ is a package run from the checkout (``python -m bench.run``...): no script edits
``sys.path`` to find its neighbours, the service or tests/support, every module imports,
and every entry point answers ``--help`` without starting anything. Fast: the entry
points run in this process (``-m`` once, for the package's own resolution).

CI does not run the benchmarks; this is what keeps them runnable between the runs.
"""

from __future__ import annotations

import ast
import importlib
import json
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
BENCH = REPO / "bench"


def _modules() -> dict[str, Path]:
    """Every module of bench/ by its dotted name (a package by its own)."""
    found = {}
    for path in sorted(BENCH.rglob("*.py")):
        name = ".".join(path.relative_to(REPO).with_suffix("").parts)
        found[name.removesuffix(".__init__")] = path
    return found


def _is_entry_point(path: Path) -> bool:
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        test = node.test if isinstance(node, ast.If) else None
        if isinstance(test, ast.Compare) and ast.unparse(test) == "__name__ == '__main__'":
            return True
    return False


MODULES = _modules()
ENTRY_POINTS = [name for name, path in MODULES.items() if _is_entry_point(path)]


def test_the_package_is_what_the_scripts_are() -> None:
    assert {"bench", "bench.ceilings", "bench.run", "bench.attacks"} <= set(MODULES)
    assert {"bench.run", "bench.attacks", "bench.ceilings.serve"} <= set(ENTRY_POINTS)


def test_no_bench_module_edits_sys_path() -> None:
    # Text, not syntax: the code a script hands to ``python -c`` counts too.
    offenders = [
        name for name, path in MODULES.items() if "sys.path" in path.read_text(encoding="utf-8")
    ]
    assert offenders == []


@pytest.mark.parametrize("module", MODULES)
def test_every_bench_module_imports(
    module: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    if module.startswith("bench.ceilings."):
        # A ceiling reads its answers, and opens no database yet, when it is imported.
        answers = tmp_path / "answers.json"
        answers.write_text(json.dumps({"answers": []}))
        monkeypatch.setenv("CEILING_ANSWERS", str(answers))
        monkeypatch.setenv("DATABASE_URL", f"sqlite:///{tmp_path}/ceiling.db")
    importlib.import_module(module)


@pytest.mark.parametrize("module", ENTRY_POINTS)
def test_every_entry_point_answers_help(
    module: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    main = importlib.import_module(module).main
    monkeypatch.setattr(sys, "argv", [f"python -m {module}", "--help"])
    with pytest.raises(SystemExit) as stopped:
        main()
    # argparse prints its help and exits 0; a frozen ceiling's server exits with its usage.
    code = stopped.value.code
    assert (code == 0 and "usage:" in capsys.readouterr().out) or str(code).startswith("usage:")


def test_python_m_bench_run_from_the_checkout() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "bench.run", "--help"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("usage: ")
