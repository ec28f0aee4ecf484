"""What the compiler needs to know about a delimiter regex, read off its AST.

`analyze(ast)` gathers everything in one frozen `RegexInfo`. The character
sets are over-approximations where exactness is not decidable cheaply
(lookarounds are ignored by `first_chars`, so it may list characters a
match can never start with, never the reverse); lengths, group names and
lookbehind widths are exact for the pattern as written.
"""

from __future__ import annotations

import itertools

from .charset import CharSet, set_of
from .nodes import (
    LINE_START,
    NOT_WORD_BOUNDARY,
    WORD_BOUNDARY,
    Alt,
    Anchor,
    Category,
    Char,
    Class,
    Concat,
    Dot,
    Group,
    Look,
    Node,
    Regex,
    Repeat,
    root_of,
    walk,
)
from .syntax import to_source

LITERAL = "literal"
LITERAL_SET = "literal_set"
REGEX = "regex"
MAX_LITERALS = 64  # a finite language larger than this stays a regex

_SINGLE = (Char, Dot, Category, Class)


# ---------------------------------------------------------------------------
# Lengths
# ---------------------------------------------------------------------------


def min_length(node: Node) -> int:
    if isinstance(node, _SINGLE):
        return 1
    if isinstance(node, Concat):
        return sum(min_length(item) for item in node.items)
    if isinstance(node, Alt):
        return min(min_length(branch) for branch in node.branches)
    if isinstance(node, Repeat):
        return node.min * min_length(node.body)
    if isinstance(node, Group):
        return min_length(node.body)
    return 0  # Anchor, Look


def max_length(node: Node) -> int | None:
    if isinstance(node, _SINGLE):
        return 1
    if isinstance(node, Concat):
        total = 0
        for item in node.items:
            width = max_length(item)
            if width is None:
                return None
            total += width
        return total
    if isinstance(node, Alt):
        widths = [max_length(branch) for branch in node.branches]
        return None if None in widths else max(widths)  # type: ignore[type-var]
    if isinstance(node, Repeat):
        width = max_length(node.body)
        if width == 0 or node.max == 0:
            return 0
        if width is None or node.max is None:
            return None
        return width * node.max
    if isinstance(node, Group):
        return max_length(node.body)
    return 0


def nullable(node: Node) -> bool:
    return min_length(node) == 0


# ---------------------------------------------------------------------------
# First and last characters (lookarounds and anchors ignored: a superset)
# ---------------------------------------------------------------------------


def first_set(node: Node, lookaheads: bool = False) -> CharSet:
    """Characters that can start a non-empty match of `node`; with
    `lookaheads`, also those a positive look-ahead at the start reads (what a
    match or partial match at p < end may read first at text[p])."""
    if isinstance(node, _SINGLE):
        return set_of(node)
    if isinstance(node, Concat):
        out = CharSet()
        for item in node.items:
            out = out | first_set(item, lookaheads)
            if not nullable(item):
                break
        return out
    if isinstance(node, Alt):
        out = CharSet()
        for branch in node.branches:
            out = out | first_set(branch, lookaheads)
        return out
    if isinstance(node, Repeat):
        return CharSet() if node.max == 0 else first_set(node.body, lookaheads)
    if isinstance(node, Group):
        return first_set(node.body, lookaheads)
    if lookaheads and isinstance(node, Look) and not node.behind and not node.negative:
        return first_set(node.body, lookaheads)
    return CharSet()


def last_set(node: Node) -> CharSet:
    """Characters that can end a non-empty match of `node`."""
    if isinstance(node, Concat):
        out = CharSet()
        for item in reversed(node.items):
            out = out | last_set(item)
            if not nullable(item):
                break
        return out
    if isinstance(node, Alt):
        out = CharSet()
        for branch in node.branches:
            out = out | last_set(branch)
        return out
    if isinstance(node, Repeat):
        return CharSet() if node.max == 0 else last_set(node.body)
    if isinstance(node, Group):
        return last_set(node.body)
    if isinstance(node, _SINGLE):
        return set_of(node)
    return CharSet()


def chars_used(node: Node) -> CharSet:
    """Every character some part of `node` can consume."""
    out = CharSet()
    for part in walk(node):
        if isinstance(part, _SINGLE):
            out = out | set_of(part)
    return out


# ---------------------------------------------------------------------------
# Literal delimiters
# ---------------------------------------------------------------------------


class _NotFinite(Exception):
    pass


def _strings(node: Node) -> list[str]:
    """The strings `node` matches, in priority order (raises when infinite,
    too many, or when the match depends on context or case folding)."""
    if isinstance(node, Char):
        if node.icase:
            raise _NotFinite
        return [node.char]
    if isinstance(node, Class):
        members = None if node.icase else set_of(node).members(8)
        if members is None:
            raise _NotFinite
        return members
    if isinstance(node, Group):
        if node.name is not None:
            raise _NotFinite  # a capture the caller needs
        return _strings(node.body)
    if isinstance(node, Alt):
        return _dedupe(s for branch in node.branches for s in _strings(branch))
    if isinstance(node, Concat):
        out = [""]
        for item in node.items:
            parts = _strings(item)
            out = _dedupe(a + b for a in out for b in parts)
        return out
    if isinstance(node, Repeat):
        if node.max is None:
            raise _NotFinite
        parts = _strings(node.body)
        counts = range(node.max, node.min - 1, -1) if not node.lazy else range(node.min, node.max + 1)
        out: list[str] = []
        for count in counts:
            out.extend("".join(p) for p in itertools.product(parts, repeat=count))
            if len(out) > MAX_LITERALS:
                raise _NotFinite
        return _dedupe(out)
    raise _NotFinite  # Dot, Category, Anchor, Look


def _dedupe(strings) -> list[str]:
    out = list(dict.fromkeys(strings))
    if len(out) > MAX_LITERALS:
        raise _NotFinite
    return out


def literal_strings(ast: Regex | Node) -> tuple[str, ...] | None:
    """The finite set of non-empty strings the pattern matches, in priority
    order; None when it is not such a set."""
    try:
        strings = _strings(root_of(ast))
    except _NotFinite:
        return None
    if not strings or "" in strings:
        return None
    return tuple(strings)


def delimiter_kind(ast: Regex | Node) -> str:
    strings = literal_strings(ast)
    if strings is None:
        return REGEX
    return LITERAL if len(strings) == 1 else LITERAL_SET


def _longest_first(strings: tuple[str, ...]) -> bool:
    rank = {s: i for i, s in enumerate(strings)}
    return all(
        rank[long] < rank[short] for short in strings for long in strings if long != short and long.startswith(short)
    )


# ---------------------------------------------------------------------------
# Context: lookbehind reach, features
# ---------------------------------------------------------------------------


def _behind(node: Node) -> int | None:
    """Characters read before the position where `node` starts matching."""
    if isinstance(node, Anchor):
        return 1 if node.kind in (WORD_BOUNDARY, NOT_WORD_BOUNDARY, LINE_START) else 0
    if isinstance(node, Look):
        inner = _behind(node.body)
        if inner is None:
            return None
        if not node.behind:
            return inner
        width = max_length(node.body)
        return None if width is None else width + inner
    if isinstance(node, Concat):
        best, offset = 0, 0
        for item in node.items:
            reach = _behind(item)
            if reach is None:
                return None
            best = max(best, reach - offset)
            offset += min_length(item)
        return best
    if isinstance(node, Alt):
        reaches = [_behind(branch) for branch in node.branches]
        return None if None in reaches else max(reaches)  # type: ignore[type-var]
    if isinstance(node, (Group, Repeat)):
        return 0 if isinstance(node, Repeat) and node.max == 0 else _behind(node.body)
    return 0


def lookbehind_width(ast: Regex | Node) -> int | None:
    """Most characters before a match start that matching reads (lookbehinds,
    \\b, \\B); None when unbounded."""
    return _behind(root_of(ast))


def group_names(ast: Regex | Node) -> tuple[str, ...]:
    names = (n.name for n in walk(root_of(ast)) if isinstance(n, Group) and n.name is not None)
    return tuple(dict.fromkeys(names))


def has_lookaround(ast: Regex | Node) -> bool:
    return any(isinstance(n, Look) for n in walk(root_of(ast)))


def has_lazy(ast: Regex | Node) -> bool:
    return any(isinstance(n, Repeat) and n.lazy and n.min != n.max for n in walk(root_of(ast)))


def has_anchors(ast: Regex | Node) -> bool:
    return any(isinstance(n, Anchor) for n in walk(root_of(ast)))


# ---------------------------------------------------------------------------
# Backtracking risk
# ---------------------------------------------------------------------------


def _class_repeat(node: Node) -> bool:
    """An unbounded repeat of one character class (`\\s*`, `[^<]+`)."""
    return isinstance(node, Repeat) and node.max is None and _single(node.body) is not None


def _single(node: Node):
    while isinstance(node, Group):
        node = node.body
    return node if isinstance(node, _SINGLE) else None


def _edge_repeats(node: Node, head: bool) -> list[Repeat]:
    """Unbounded class repeats that can begin (head) or end (tail) a match of node."""
    if _class_repeat(node):
        return [node]  # type: ignore[list-item]
    if isinstance(node, Group):
        return _edge_repeats(node.body, head)
    if isinstance(node, Alt):
        return [r for branch in node.branches for r in _edge_repeats(branch, head)]
    if isinstance(node, Repeat):
        return [] if node.max == 0 else _edge_repeats(node.body, head)
    if isinstance(node, Concat):
        out: list[Repeat] = []
        items = node.items if head else tuple(reversed(node.items))
        for item in items:
            out += _edge_repeats(item, head)
            if not nullable(item):
                break
        return out
    return []


def _overlap(a: Repeat, b: Repeat) -> bool:
    return not set_of(_single(a.body)).isdisjoint(set_of(_single(b.body)))


def _risk(node: Node) -> str | None:
    if isinstance(node, Repeat) and node.max is None:
        body = node.body
        # (a+)+, (\s*x?)*: a run inside the body can also start the next iteration
        firsts = first_set(body)
        for inner in _edge_repeats(body, head=False):
            if inner is not node and (nullable(body) or not set_of(_single(inner.body)).isdisjoint(firsts)):
                return f"nested quantifiers: {to_source(inner)} inside {to_source(node)} can split a run many ways"
        for part in walk(body):
            if isinstance(part, Repeat) and part.max is None and nullable(part.body) and part is not node:
                return f"nested quantifiers: {to_source(part)} can match empty inside {to_source(node)}"
        # (?:a|ab)*: overlapping branches under a repeat
        inner_body = body
        while isinstance(inner_body, Group):
            inner_body = inner_body.body
        if isinstance(inner_body, Alt):
            sets = [first_set(b) for b in inner_body.branches]
            for i, j in itertools.combinations(range(len(sets)), 2):
                if not sets[i].isdisjoint(sets[j]):
                    return f"alternation with overlapping branches under a repeat: {to_source(node)}"
    if isinstance(node, Concat):
        # \s*\s*, [^<]+\s*(?:\w+)?: adjacent runs that overlap (quadratic per start)
        for i, left in enumerate(node.items):
            tails = _edge_repeats(left, head=False)
            if not tails:
                continue
            for right in node.items[i + 1 :]:
                for head in _edge_repeats(right, head=True):
                    for tail in tails:
                        if _overlap(tail, head):
                            return f"adjacent quantifiers overlap: {to_source(tail)} then {to_source(head)}"
                if not nullable(right):
                    break
    for child in (node.items if isinstance(node, Concat) else node.branches if isinstance(node, Alt) else ()):
        found = _risk(child)
        if found:
            return found
    if isinstance(node, (Repeat, Group, Look)):
        return _risk(node.body)
    return None


def backtracking_risk(ast: Regex | Node) -> str | None:
    """Why a backtracking engine could take super-linear time per start
    position on this pattern (a heuristic: nested or adjacent unbounded
    repeats over overlapping characters, overlapping alternatives under a
    repeat), or None."""
    return _risk(root_of(ast))


def closing_literals(ast: Regex | Node) -> tuple[str, ...]:
    """Literals one of which every match consumes, each alternative's last
    case-sensitive literal run (`<|message|>` in `...(?:\\w+\\s*)?<\\|message\\|>`):
    a text that holds none of them holds no complete match, wherever a
    partial one began. (): no such set (an alternative needs no literal)."""
    found = _last_needed(root_of(ast))
    return tuple(sorted(found)) if found else ()


def _last_needed(node: Node) -> set[str] | None:
    if isinstance(node, Alt):
        out: set[str] = set()
        for branch in node.branches:
            needed = _last_needed(branch)
            if not needed:
                return None
            out |= needed
        return out
    if isinstance(node, Repeat):
        return _last_needed(node.body) if node.min >= 1 else None
    items = flat_items(node)
    end = len(items)
    while end > 0:
        item = items[end - 1]
        if isinstance(item, Char) and not item.icase:
            start = end - 1
            while start > 0 and isinstance(items[start - 1], Char) and not items[start - 1].icase:
                start -= 1
            return {"".join(char.char for char in items[start:end])}
        if isinstance(item, (Alt, Repeat)):
            needed = _last_needed(item)
            if needed:
                return needed
        end -= 1  # (look-arounds, anchors and classes consume no literal)
    return None


# ---------------------------------------------------------------------------
# Known misreadings by the `regex` module (the reference engine)
# ---------------------------------------------------------------------------


def flat_items(node: Node) -> list[Node]:
    """A branch as a flat item list (groups and nested concatenations opened:
    they read nothing themselves)."""
    if isinstance(node, Group):
        return flat_items(node.body)
    if isinstance(node, Concat):
        return [part for item in node.items for part in flat_items(item)]
    return [node]


def _first_nodes(items: list[Node]) -> list[Node]:
    """The one-character nodes that can match first in a sequence of items."""
    out: list[Node] = []
    for item in items:
        if isinstance(item, _SINGLE):
            out.append(item)
        elif isinstance(item, Alt):
            for branch in item.branches:
                out += _first_nodes(flat_items(branch))
        elif isinstance(item, Repeat) and item.max != 0:
            out += _first_nodes(flat_items(item.body))
        elif isinstance(item, (Group, Concat)):
            out += _first_nodes(flat_items(item))
        if not nullable(item):
            break
    return out


def _leading_text(items: list[Node]) -> str:
    text = ""
    for item in items:
        if not isinstance(item, Char) or item.icase:
            break
        text += item.char
    return text


def _negated(node: Node) -> bool:
    return isinstance(node, Class) and node.negated


def _folded(node: Node) -> bool:
    return isinstance(node, (Char, Class)) and node.icase


def regex_module_quirk(ast: Regex | Node) -> str | None:
    """Why the `regex` module matches this pattern differently from what it
    says (so no other engine should try to agree with it), or None.

    Known: alternatives that, after a common literal prefix, start one with
    a negated class and the other with a negated class or a case-insensitive
    character or class are merged wrongly (`[^b]|[^a]` matches neither "a"
    nor "b"; `c[^b]|c[^a]` misses "ca"; `[^ac]|(?i:[xy])` misses "A").
    The rule is wider than the bug (found by random testing against the
    module), so no misread pattern slips through.
    """
    for node in walk(root_of(ast)):
        if not isinstance(node, Alt):
            continue
        flat = [flat_items(branch) for branch in node.branches]
        texts = [_leading_text(items) for items in flat]
        for i, j in itertools.combinations(range(len(flat)), 2):
            common = 0
            while common < min(len(texts[i]), len(texts[j])) and texts[i][common] == texts[j][common]:
                common += 1
            left, right = _first_nodes(flat[i][common:]), _first_nodes(flat[j][common:])
            for one, other in ((left, right), (right, left)):
                if any(map(_negated, one)) and any(_negated(n) or _folded(n) for n in other):
                    return (
                        f"alternatives {to_source(node.branches[i])} and {to_source(node.branches[j])} start "
                        "with a negated class and a negated or case-insensitive one, which the regex module "
                        "merges wrongly"
                    )
    return None


# ---------------------------------------------------------------------------


__all__ = [
    "backtracking_risk",
    "chars_used",
    "delimiter_kind",
    "first_set",
    "group_names",
    "has_anchors",
    "has_lazy",
    "has_lookaround",
    "last_set",
    "literal_strings",
    "lookbehind_width",
    "max_length",
    "min_length",
    "nullable",
    "regex_module_quirk",
]
