"""Player names (app/domain/names.py, UTS #39): a name in one script passes, a name that
mixes scripts, hides characters or stacks marks is refused, and two names that look alike
cannot sit at one table."""

from __future__ import annotations

import pytest

from app.domain.errors import InvalidInput
from app.domain.names import check_player_name, first_clash, skeleton
from tests.domain import unicode_security_data

CYRILLIC_A = "\u0410"
LOC = ("players", 0, "name")


@pytest.mark.parametrize(
    "name",
    [
        "Anna",
        "\u0410\u043d\u043d\u0430",  # Анна, all Cyrillic
        "\u039d\u03af\u03ba\u03bf\u03c2",  # Νίκος, all Greek
        "Jos\u0065\u0301",  # José, the accent as a combining mark
        "Nguy\u1ec5n",
        "\u5c71\u7530\u592a\u90ce",  # 山田太郎
        "\u3084\u307e\u3060 \u30bf\u30ed\u30a6",  # やまだ タロウ: Hiragana with Katakana
        "Yamada \u5c71\u7530",  # Latin with Han
        "\uae40\ubbfc\uc900",  # 김민준
        "O'Brien-Smith 2",
        "Anna \U0001f3b2",  # a die: a symbol all scripts share
    ],
)
def test_a_name_in_one_writing_system_passes(name: str) -> None:
    check_player_name(name, LOC)


@pytest.mark.parametrize(
    ("name", "why"),
    [
        (CYRILLIC_A + "nna", "one script"),
        ("P\u0430ul", "one script"),  # a Cyrillic a in a Latin name
        ("Anna\ufe0f", "U\\+FE0F"),  # a variation selector
        ("a" + "\u0301" * 40, "combining mark"),  # a stack of combining marks
        ("a\u0301\u0302\u0303\u0304\u0306", "at most 4"),
        ("a\u0301\u0301", "repeat"),
        ("Anna 1\uff12", "numbering system"),  # an ASCII 1 and a fullwidth 2
        ("Ann\u200ba", "U\\+200B"),
    ],
)
def test_a_name_that_mixes_hides_or_stacks_is_refused(name: str, why: str) -> None:
    with pytest.raises(InvalidInput, match=why) as refused:
        check_player_name(name, LOC)
    assert refused.value.loc == LOC


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("Anna", "ANNA"),
        ("Aoo", CYRILLIC_A + "\u043e\u043e"),  # all Latin and all Cyrillic: one look
        ("l1", "ll"),
        ("Bruno", "bruno"),
        ("rn", "m"),
    ],
)
def test_two_names_that_look_alike_clash(first: str, second: str) -> None:
    assert first_clash(["Carla", first, second]) == (1, 2)


def test_names_that_differ_do_not_clash() -> None:
    assert first_clash(["Anna", "Anne", "Bruno", "Brun0", "\u0410\u043d\u043d\u0430"]) is None
    assert skeleton("paypal") == skeleton("p\u0430ypal")


def test_the_tables_are_what_the_pinned_library_gives() -> None:
    assert unicode_security_data.main(["--check"]) == 0, (
        "run python -m tests.domain.unicode_security_data"
    )
