"""The rule ids live in docs/rules.md: each is defined there once, has at least one test
named after it (``test_r_<area>_<n>_...``), and every rule id that a test name, the service,
the contract or the docs cite is one it defines."""

from __future__ import annotations

import re
from pathlib import Path

UNIT_TESTS = Path(__file__).resolve().parent
REPO_ROOT = UNIT_TESTS.parents[1]
RULES = REPO_ROOT / "docs" / "rules.md"
# A rule is defined where its id opens a list item in bold: "- **R-REP-4** Faith below ...".
RULE_DEFINITION = re.compile(r"^- \*\*(R-[A-Z]+-\d+)\*\*", re.MULTILINE)
RULE_ID = re.compile(r"\bR-[A-Z]+-\d+\b")
TEST_NAME = re.compile(r"^\s*def (test_r_[a-z]+_\d+_\w*)\s*\(", re.MULTILINE)


def rule_ids() -> list[str]:
    return RULE_DEFINITION.findall(RULES.read_text("utf-8"))


def named_tests() -> set[str]:
    return {
        name
        for path in UNIT_TESTS.glob("test_*.py")
        for name in TEST_NAME.findall(path.read_text("utf-8"))
    }


def prefix(rule_id: str) -> str:
    return rule_id.lower().replace("-", "_") + "_"


def citing_files() -> list[Path]:
    """Where a reader meets rule ids: the service (answers, docstrings, the tile catalogue),
    the contract and the docs."""
    return [
        *sorted((REPO_ROOT / "app").rglob("*.py")),
        *sorted((REPO_ROOT / "app").rglob("*.json")),
        REPO_ROOT / "openapi" / "openapi.json",
        REPO_ROOT / "README.md",
        *sorted((REPO_ROOT / "docs").glob("*.md")),
    ]


def test_docs_rules_defines_each_rule_id_once() -> None:
    ids = rule_ids()
    assert len(ids) >= 30, "docs/rules.md should define the rule ids as bold list items"
    assert sorted(ids) == sorted(set(ids)), "a rule id is defined twice in docs/rules.md"


def test_every_rule_id_has_a_test_named_after_it() -> None:
    names = named_tests()
    missing = [
        rid for rid in rule_ids() if not any(n.startswith("test_" + prefix(rid)) for n in names)
    ]
    assert missing == [], f"rule ids without a test named after them: {missing}"


def test_every_rule_named_test_names_a_real_rule() -> None:
    known = {prefix(rid) for rid in rule_ids()}
    stray = sorted(n for n in named_tests() if not any(n.startswith("test_" + p) for p in known))
    assert stray == [], f"tests named after rule ids that docs/rules.md does not define: {stray}"


def test_every_rule_id_cited_is_defined_in_docs_rules() -> None:
    defined = set(rule_ids())
    cited = {
        (path.relative_to(REPO_ROOT).as_posix(), rule_id)
        for path in citing_files()
        for rule_id in RULE_ID.findall(path.read_text("utf-8"))
    }
    assert len({rule_id for _, rule_id in cited}) >= 30
    assert sorted((path, rule_id) for path, rule_id in cited if rule_id not in defined) == []
