"""The companion explains every rule id the service can name in an answer: each id that
``docs/rules.md`` defines (and so each one the service's code cites) has a short plain text
in English and Italian in ``clients/web/src/rules.json``, and it has none for an id the
rules do not define."""

from __future__ import annotations

import json
import re

from tests.domain.test_rule_coverage import REPO_ROOT, RULE_ID, rule_ids
from tests.web.conftest import WEB_CLIENT

TEXTS = WEB_CLIENT / "src" / "rules.json"
LONGEST = 200


def texts() -> dict[str, dict[str, str]]:
    loaded: dict[str, dict[str, str]] = json.loads(TEXTS.read_text("utf-8"))
    return loaded


def test_every_rule_id_defined_has_a_text_and_no_other() -> None:
    assert sorted(texts()) == sorted(rule_ids())


def test_every_rule_id_the_service_cites_has_a_text() -> None:
    cited = {
        rule_id
        for path in sorted((REPO_ROOT / "app" / "domain").rglob("*.py"))
        for rule_id in RULE_ID.findall(path.read_text("utf-8"))
    }
    assert len(cited) >= 20
    assert sorted(cited - set(texts())) == []


def test_each_text_is_short_plain_and_in_both_languages() -> None:
    for rule_id, text in texts().items():
        assert sorted(text) == ["en", "it"], rule_id
        assert text["en"] != text["it"], rule_id
        for language, sentence in text.items():
            assert 10 <= len(sentence) <= LONGEST, (rule_id, language)
            # Plain text: the page shows it as text, never as markup.
            assert not re.search(r"[<>*`]", sentence), (rule_id, language)
