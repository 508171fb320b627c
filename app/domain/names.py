"""Player names that show what they are, and that two players cannot share by looks.

A name is read by everyone at the table, on the host's screen and on each phone, so two
names that look alike (``Anna``, and ``Anna`` whose first letter is a Cyrillic ``A``) or
a name that renders as something it is not would let one player pass for another. The
checks follow Unicode's security mechanisms (UTS #39):

- no invisible, format, bidi-control or unassigned character, no variation selector, and
  at least one letter or digit;
- combining marks bounded: at most ``MAX_MARKS`` in a row on one character (after
  decomposition), never the same mark twice in a row;
- one script (UTS #39's "highly restrictive" level): apart from the characters every
  script shares (digits, spaces, punctuation) the letters are of one script, or Latin
  with Han and Japanese kana, Han with Bopomofo, or Han with Hangul; so Anna in Latin,
  Cyrillic or Greek letters passes, and Anna with one Cyrillic letter does not;
- digits of one numbering system;
- and within a game, names are told apart by their skeletons: two names whose skeletons
  are equal (``Aoo`` in Latin letters and in Cyrillic ones, ``l1`` and ``ll``) are
  confusable, so the second is refused like a repeated name.

The tables come from Unicode's data, through ``unicode_security.json`` (written by
``tests/domain/unicode_security_data.py``), read once, on the first name checked.
"""

from __future__ import annotations

import json
import unicodedata
from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources

from app.domain.errors import InvalidInput

#: Combining marks one character may carry in a row (UTS #39 flags more than four).
MAX_MARKS = 4

# Characters a name may not hold: they are invisible, reorder text (bidi controls) or are
# not text at all. Categories: controls, format characters (zero-width spaces and joiners,
# bidi marks and overrides), surrogates, private use, unassigned, line and paragraph
# separators.
_REFUSED_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})
# Letters and symbols that render as blank space although their category is not one of those.
_BLANK_LOOKING = frozenset("\u115f\u1160\u3164\uffa0\u2800\u034f\u180e")
# Variation selectors change how the character before them is drawn, and show nothing.
_VARIATION_SELECTORS = ((0xFE00, 0xFE0F), (0xE0100, 0xE01EF), (0x180B, 0x180D), (0x180F, 0x180F))
_SHARED_SCRIPTS = frozenset({"Common", "Inherited"})
# The mixes of scripts one writing system uses (UTS #39 "highly restrictive").
_ALLOWED_MIXES = (
    frozenset({"Latin", "Han", "Hiragana", "Katakana"}),
    frozenset({"Latin", "Han", "Bopomofo"}),
    frozenset({"Latin", "Han", "Hangul"}),
)
_MARKS = frozenset({"Mn", "Me"})


@dataclass(frozen=True, slots=True)
class _Tables:
    names: tuple[str, ...]
    starts: tuple[int, ...]
    ends: tuple[int, ...]
    scripts: tuple[int, ...]
    prototypes: dict[str, str]

    def script(self, char: str) -> str:
        code = ord(char)
        index = bisect_right(self.starts, code) - 1
        if index >= 0 and code <= self.ends[index]:
            return self.names[self.scripts[index]]
        return "Unknown"


@cache
def _tables() -> _Tables:
    text = resources.files("app.domain").joinpath("unicode_security.json").read_text("utf-8")
    data = json.loads(text)
    ranges = data["script_ranges"]
    return _Tables(
        names=tuple(data["scripts"]),
        starts=tuple(r[0] for r in ranges),
        ends=tuple(r[1] for r in ranges),
        scripts=tuple(r[2] for r in ranges),
        prototypes=data["prototypes"],
    )


def _refuse(message: str, loc: tuple[str | int, ...]) -> InvalidInput:
    return InvalidInput(message, loc=loc)


def _is_variation_selector(char: str) -> bool:
    code = ord(char)
    return any(low <= code <= high for low, high in _VARIATION_SELECTORS)


def check_player_name(name: str, loc: tuple[str | int, ...]) -> None:
    """Refuse (422 at ``loc``) a name that hides what it is or mixes scripts."""
    for char in name:
        if (
            unicodedata.category(char) in _REFUSED_CATEGORIES
            or char in _BLANK_LOOKING
            or _is_variation_selector(char)
        ):
            raise _refuse(
                f"a name may not contain the invisible or control character U+{ord(char):04X}",
                loc,
            )
    if not any(unicodedata.category(char)[0] in "LN" for char in name):
        raise _refuse("a name needs at least one letter or digit", loc)
    _check_marks(unicodedata.normalize("NFD", name), loc)
    _check_scripts(name, loc)
    _check_digits(name, loc)


def _check_marks(decomposed: str, loc: tuple[str | int, ...]) -> None:
    run, previous = 0, ""
    for char in decomposed:
        if unicodedata.category(char) not in _MARKS:
            run, previous = 0, ""
            continue
        run += 1
        if run > MAX_MARKS:
            raise _refuse(
                f"a name may stack at most {MAX_MARKS} combining marks on one character", loc
            )
        if char == previous:
            raise _refuse(f"a name may not repeat the combining mark U+{ord(char):04X}", loc)
        previous = char


def _check_scripts(name: str, loc: tuple[str | int, ...]) -> None:
    tables = _tables()
    scripts = {tables.script(char) for char in name} - _SHARED_SCRIPTS
    if len(scripts) <= 1 or any(scripts <= mix for mix in _ALLOWED_MIXES):
        return
    raise _refuse(
        f"a name is written in one script, not mixed ({', '.join(sorted(scripts))}): "
        "mixed names can pass for another's",
        loc,
    )


def _check_digits(name: str, loc: tuple[str | int, ...]) -> None:
    # A decimal digit's zero names its numbering system (ASCII, Arabic-Indic, Devanagari...).
    digits = [char for char in name if unicodedata.category(char) == "Nd"]
    zeros = {ord(char) - unicodedata.digit(char) for char in digits}
    if len(zeros) > 1:
        raise _refuse("a name's digits are of one numbering system", loc)


def skeleton(text: str) -> str:
    """UTS #39's skeleton: strings that look alike have the same one."""
    prototypes = _tables().prototypes
    decomposed = unicodedata.normalize("NFD", text)
    return unicodedata.normalize("NFD", "".join(prototypes.get(c, c) for c in decomposed))


def name_keys(name: str) -> frozenset[str]:
    """Names that share a key count as the same name: equal once folded (NFKC, case),
    or confusable (equal skeletons, before or after folding case)."""
    folded = unicodedata.normalize("NFKC", name).casefold()
    shown = unicodedata.normalize("NFKC", name)
    return frozenset({folded, "skeleton:" + skeleton(shown), "skeleton:" + skeleton(folded)})


def first_clash(names: Sequence[str]) -> tuple[int, int] | None:
    """The first (earlier, later) indexes of two names that count as the same, if any."""
    seen: dict[str, int] = {}
    for index, name in enumerate(names):
        keys = name_keys(name)
        for key in keys:
            if key in seen:
                return seen[key], index
        for key in keys:
            seen.setdefault(key, index)
    return None
