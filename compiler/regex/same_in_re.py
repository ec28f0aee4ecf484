"""Which content-parser regexes the standard `re` module runs exactly as the
`regex` module does on ASCII text (a pure check over the regex IR).

The reference runs every `tag_pattern` of `xml-inline` with the `regex`
module; `re` runs the same small patterns about three times faster, and on
ASCII text the two agree for the constructs listed here: their `\\w`, `\\d`,
`\\b`, `.` and anchors are the same on every ASCII character, and `\\s`
differs only on U+001C..U+001F (checked per code point by
tests/regex/test_same_in_re.py), which the runtime rules out per text. Refused:
case-insensitive parts (the two modules fold some non-ASCII characters
differently), patterns that can match empty (the modules step over empty
matches in `finditer` by different rules in some versions), anything the IR
does not parse, and patterns `re` does not compile without a warning (a
nested-set warning marks syntax the two read differently).
"""

from __future__ import annotations

import re
import warnings

from .analysis import min_length
from .nodes import Alt, Anchor, Category, Char, Class, Concat, Dot, Group, Look, Repeat, walk
from .syntax import parse

_ALLOWED = (Alt, Anchor, Category, Concat, Dot, Group, Look, Repeat)


def same_in_re_on_ascii(pattern: str) -> bool:
    """Whether `re.compile(pattern, re.DOTALL)` finds what the `regex` module
    finds (same matches, same groups) in any ASCII text without U+001C..U+001F."""
    try:
        tree = parse(pattern)
    except ValueError:  # RegexSyntaxError, or a pattern the IR does not cover
        return False
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        try:
            re.compile(pattern, re.DOTALL)
        except (re.error, Warning):
            return False
    if min_length(tree.body) == 0:
        return False
    for node in walk(tree.body):
        if isinstance(node, (Char, Class)):
            if node.icase:
                return False
        elif not isinstance(node, _ALLOWED):
            return False
    return True
