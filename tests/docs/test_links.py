"""The README and docs/ stand on their own: every relative link leads to a file of this
repo (and every #anchor to a heading of that file), so nothing points outside the repo."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]
DOCUMENTS = [REPO_ROOT / "README.md", *sorted((REPO_ROOT / "docs").glob("*.md"))]

FENCED_BLOCK = re.compile(r"^```.*?^```", re.MULTILINE | re.DOTALL)
INLINE_LINK = re.compile(r"\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
REFERENCE_LINK = re.compile(r"^\s*\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+\"[^\"]*\")?\s*$", re.MULTILINE)
HEADING = re.compile(r"^#{1,6}\s+(.+?)\s*#*\s*$", re.MULTILINE)
EXTERNAL = re.compile(r"^[a-z][a-z0-9+.-]*:", re.IGNORECASE)  # https:, mailto:, ...


def links(document: Path) -> list[str]:
    text = FENCED_BLOCK.sub("", document.read_text("utf-8"))
    return INLINE_LINK.findall(text) + REFERENCE_LINK.findall(text)


def anchors(document: Path) -> set[str]:
    """GitHub's heading ids: lower case, punctuation dropped, spaces to hyphens, -1 on repeats."""
    seen: dict[str, int] = {}
    found = set()
    for heading in HEADING.findall(FENCED_BLOCK.sub("", document.read_text("utf-8"))):
        slug = re.sub(r"[^\w\- ]", "", heading.lower()).replace(" ", "-")
        count = seen.get(slug, 0)
        seen[slug] = count + 1
        found.add(slug if count == 0 else f"{slug}-{count}")
    return found


def broken(document: Path, target: str) -> str | None:
    """Why ``target``, linked from ``document``, leads nowhere in the repo (None: it does)."""
    path, _, fragment = target.partition("#")
    resolved = (document.parent / path).resolve() if path else document
    if not resolved.is_relative_to(REPO_ROOT):
        return "leads outside the repo"
    if not resolved.exists():
        return "no such file"
    if fragment and resolved.suffix == ".md" and fragment not in anchors(resolved):
        return f"no heading #{fragment} in {resolved.relative_to(REPO_ROOT)}"
    return None


@pytest.mark.parametrize("document", DOCUMENTS, ids=lambda p: p.relative_to(REPO_ROOT).as_posix())
def test_every_relative_link_resolves_to_a_file_of_the_repo(document: Path) -> None:
    relative = [target for target in links(document) if not EXTERNAL.match(target)]
    assert relative, f"{document.name} links nothing: is the link pattern still right?"
    failures = {t: why for t in relative if (why := broken(document, t)) is not None}
    assert failures == {}


def test_the_docs_name_no_file_from_outside_the_repo() -> None:
    # The team's RULES.md and API.md live beside the repo, not in it: the docs cite their
    # in-repo homes, docs/rules.md and docs/api.md.
    for document in DOCUMENTS:
        assert not re.findall(r"\b(?:RULES|API)\.md\b", document.read_text("utf-8")), document
