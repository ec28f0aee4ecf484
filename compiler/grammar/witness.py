"""Witness strings: sample texts on which the builder checks the conditions a
grammar cannot state (look-arounds, a pattern reading back what is written),
and the texts and compiled patterns those checks use.
"""

from __future__ import annotations

import regex

from ..regex.charset import CharSet
from . import model as m


def _pick(chars: CharSet) -> str:
    for lo, hi in chars.ranges:
        for code in range(max(lo, 0x21), hi + 1):
            if code < 0x7F or code > 0xA0:
                return chr(code)
    return chr(chars.ranges[0][0])


def _nonempty(node: m.Node) -> m.Node | None:
    """The node without its empty string, where that is a leading optional
    run made required (`ws*` -> `ws+`); None otherwise."""
    if isinstance(node, m.Rep) and node.min == 0 and node.max is None:
        return m.Rep(node.body, 1, None)
    if isinstance(node, m.Seq) and node.items:
        first = _nonempty(node.items[0])
        if first is not None and all(isinstance(i, m.Rep) and i.min == 0 for i in node.items[1:]):
            return m.seq(first, *node.items[1:])
    return None


def _grown(node: m.Node) -> str:
    """A witness of a regular node whose unbounded runs that must be present
    are two long (optional ones absent): shows a run that could merge with
    its neighbour, which a one-character witness hides by backtracking."""
    if isinstance(node, m.Lit):
        return node.text
    if isinstance(node, m.Chars):
        return _pick(node.chars)
    if isinstance(node, m.Seq):
        return "".join(map(_grown, node.items))
    if isinstance(node, m.Alt):
        return _grown(node.items[0])
    if isinstance(node, m.Rep):
        count = node.min if node.min == 0 or node.max is not None else max(node.min, 2)
        return _grown(node.body) * count
    raise TypeError(node)


# What a look-behind in a call open may need before it (after a close).
LOOKBEHIND_CONTEXTS = ("", ";", ",", "}", "]", ">", "\n", " ")


def _reads_name(matcher, text: str, group: str, name: str, before: str) -> bool:
    """Every way of writing this open variant reads back the tool's name
    (here: the witness, after `before` for a look-behind)."""
    hit = matcher.fullmatch(before + text, len(before))
    return hit is not None and hit.group(group) == name


# Free text that may follow a call's close, as witnesses for its look-arounds.
TEXT_AFTER = ("x", " x", "\nx", "x y")
LETTER = m.Chars(CharSet.of([(0x41, 0x5A), (0x61, 0x7A)]))
# Free text for witnesses: a backslash at its end escapes a quote that ends it.
FILL = "a b\\"


def _close_matches(source: str, body: str, text: str, follow: str | None) -> bool:
    """The close matches `text` right after `body` and before `follow` (None:
    the end of the output); it may also take whitespace that follows."""
    subject = body + text + (follow or "")
    hit = _compiled(source).match(subject, len(body))
    if hit is None or hit.end() < len(body) + len(text):
        return False
    extra = subject[len(body) + len(text) : hit.end()]
    return extra == "" or extra.isspace()


_COMPILED: dict[str, object] = {}


def _compiled(source: str):
    if source not in _COMPILED:
        _COMPILED[source] = regex.compile(source, regex.DOTALL)
    return _COMPILED[source]
