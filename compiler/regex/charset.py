"""Character sets as sorted code point ranges, with the `regex` module's
Unicode definitions of `\\d \\s \\w` and its case folding.

The Unicode sets are tabulated in compiler/regex/unicode_data.py (generated
from a given `regex` release by `python -m compiler unicode --regen`,
compiler/regex/unicode_tables.py), not read off the installed `regex`: what
the JavaScript and Go backends emit from them is then a function of the
template and the compiler alone, whatever `regex` release is installed.
"""

from __future__ import annotations

import functools
from bisect import bisect_right
from dataclasses import dataclass
from typing import Iterable

from . import unicode_data
from .nodes import Category, Char, Class, ClassItem, Dot, Range

MAX_CODE = 0x10FFFF


@dataclass(frozen=True)
class CharSet:
    """A set of code points: disjoint, sorted, non-adjacent inclusive ranges."""

    ranges: tuple[tuple[int, int], ...] = ()

    @staticmethod
    def of(ranges: Iterable[tuple[int, int]]) -> "CharSet":
        merged: list[list[int]] = []
        for lo, hi in sorted(ranges):
            if merged and lo <= merged[-1][1] + 1:
                merged[-1][1] = max(merged[-1][1], hi)
            else:
                merged.append([lo, hi])
        return CharSet(tuple((lo, hi) for lo, hi in merged))

    @staticmethod
    def chars(text: Iterable[str]) -> "CharSet":
        return CharSet.of((ord(c), ord(c)) for c in text)

    @staticmethod
    def full() -> "CharSet":
        return CharSet(((0, MAX_CODE),))

    def __contains__(self, char: str | int) -> bool:
        code = char if isinstance(char, int) else ord(char)
        index = bisect_right(self.ranges, (code, MAX_CODE + 1)) - 1
        return index >= 0 and self.ranges[index][0] <= code <= self.ranges[index][1]

    def __bool__(self) -> bool:
        return bool(self.ranges)

    def __len__(self) -> int:
        return sum(hi - lo + 1 for lo, hi in self.ranges)

    def __or__(self, other: "CharSet") -> "CharSet":
        return CharSet.of(self.ranges + other.ranges)

    def complement(self) -> "CharSet":
        out, start = [], 0
        for lo, hi in self.ranges:
            if lo > start:
                out.append((start, lo - 1))
            start = hi + 1
        if start <= MAX_CODE:
            out.append((start, MAX_CODE))
        return CharSet(tuple(out))

    def __and__(self, other: "CharSet") -> "CharSet":
        return (self.complement() | other.complement()).complement()

    def __sub__(self, other: "CharSet") -> "CharSet":
        return self & other.complement()

    def is_full(self) -> bool:
        return self.ranges == ((0, MAX_CODE),)

    def issubset(self, other: "CharSet") -> bool:
        return not (self - other)

    def isdisjoint(self, other: "CharSet") -> bool:
        return not (self & other)

    def members(self, limit: int = 256) -> list[str] | None:
        """The characters, or None when there are more than `limit`."""
        if len(self) > limit:
            return None
        return [chr(code) for lo, hi in self.ranges for code in range(lo, hi + 1)]

    def __repr__(self) -> str:
        def show(code: int) -> str:
            char = chr(code)
            return char if char.isprintable() and char not in "-[]\\^" else f"\\x{{{code:x}}}"

        parts = [show(lo) if lo == hi else f"{show(lo)}-{show(hi)}" for lo, hi in self.ranges[:12]]
        return "CharSet[" + "".join(parts) + ("..." if len(self.ranges) > 12 else "") + "]"


def _table(ranges) -> "CharSet":
    return CharSet(tuple(ranges))


_CATEGORIES = {
    "d": _table(unicode_data.DIGIT),
    "s": _table(unicode_data.SPACE),
    "w": _table(unicode_data.WORD),
}


def case_closure(chars: CharSet) -> CharSet:
    """The characters a set matches under IGNORECASE: those with a case in it
    (unicode_data.CASES, the `regex` module's cases of each code point)."""
    extra = [(code, code) for code, others in unicode_data.CASES.items() if any(other in chars for other in others)]
    return chars | CharSet.of(extra)


@functools.lru_cache(maxsize=256)
def regex_set(class_source: str, icase: bool = False) -> CharSet:
    """The code points the `regex` module matches with a one-character
    pattern (`\\s`, `[^\\s<]`, `k`), from the tabulated Unicode data."""
    from .syntax import parse

    node = parse(f"(?i:{class_source})" if icase else class_source).body
    from .nodes import Group

    while isinstance(node, Group):
        node = node.body
    if not isinstance(node, (Char, Dot, Category, Class)):
        raise ValueError(f"not a one-character pattern: {class_source!r}")
    return set_of(node)


def category_set(name: str) -> CharSet:
    """`\\d \\s \\w \\D \\S \\W` exactly as the `regex` module reads them."""
    base = _CATEGORIES[name.lower()]
    return base.complement() if name.isupper() else base


def word_set() -> CharSet:
    """Word characters for `\\b`/`\\B` (the same set as `\\w` in the `regex` module)."""
    return category_set("w")


NEWLINE = CharSet.chars("\n")


def item_set(item: ClassItem) -> CharSet:
    if isinstance(item, Char):
        return CharSet.chars(item.char)
    if isinstance(item, Range):
        return CharSet(((ord(item.lo), ord(item.hi)),))
    return category_set(item.name)


def set_of(node: "Char | Dot | Category | Class") -> CharSet:
    """The characters a one-character node matches."""
    if isinstance(node, Dot):
        return CharSet.full() if node.dotall else NEWLINE.complement()
    if isinstance(node, Category):
        return category_set(node.name)
    if isinstance(node, Char):
        chars = CharSet.chars(node.char)
        return case_closure(chars) if node.icase else chars
    union = CharSet.of(r for item in node.items for r in item_set(item).ranges)
    if node.icase:
        union = case_closure(union)
    return union.complement() if node.negated else union
