"""The tests share their raw clients and attacks with bench/ through tests/support, and
never import bench/ (bench may import tests/support; the reverse would tie the tests to
the benchmarks' scripts)."""

from __future__ import annotations

import ast
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]


def test_no_test_module_imports_bench() -> None:
    offenders = []
    for path in sorted(TESTS.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names = [node.module]
            offenders += [
                f"{path.relative_to(TESTS)}: {name}"
                for name in names
                if name == "bench" or name.startswith("bench.")
            ]
    assert offenders == []
