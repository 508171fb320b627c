"""Every rule id in RULES.md has at least one test named after it (``test_r_<area>_<n>_...``)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

UNIT_TESTS = Path(__file__).resolve().parent
RULES = Path(__file__).resolve().parents[3] / "shared" / "RULES.md"
RULE_ID = re.compile(r"\*\*(R-[A-Z]+-\d+)\*\*")
TEST_NAME = re.compile(r"^\s*def (test_r_[a-z]+_\d+_\w*)\s*\(", re.MULTILINE)


def rule_ids() -> list[str]:
    return RULE_ID.findall(RULES.read_text("utf-8"))


def named_tests() -> set[str]:
    return {
        name
        for path in UNIT_TESTS.glob("test_*.py")
        for name in TEST_NAME.findall(path.read_text())
    }


def prefix(rule_id: str) -> str:
    return rule_id.lower().replace("-", "_") + "_"


@pytest.mark.skipif(not RULES.exists(), reason=f"RULES.md not found at {RULES}")
def test_every_rule_id_has_a_test_named_after_it() -> None:
    ids = rule_ids()
    assert len(ids) >= 30, "RULES.md should list the rule ids in bold"
    names = named_tests()
    missing = [rid for rid in ids if not any(n.startswith("test_" + prefix(rid)) for n in names)]
    assert missing == [], f"rule ids without a test named after them: {missing}"


@pytest.mark.skipif(not RULES.exists(), reason=f"RULES.md not found at {RULES}")
def test_every_rule_named_test_names_a_real_rule() -> None:
    known = {prefix(rid) for rid in rule_ids()}
    stray = sorted(n for n in named_tests() if not any(n.startswith("test_" + p) for p in known))
    assert stray == [], f"tests named after rule ids that RULES.md does not have: {stray}"
