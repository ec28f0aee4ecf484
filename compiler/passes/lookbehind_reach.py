"""How far back the unbounded look-behinds of a template can read, so the
Python runtime may drop the text before that (a pure pass over the regex IR).

A template with a look-behind of unbounded width (CONTEXT -1) keeps all of
its text: the look-behind may walk back to the start. Two shapes of such
look-behinds, the ones the bundled templates use, read a bounded stretch in
practice, and this module proves it from the pattern's tree:

Barrier. `(?<=A(?:(?!B).)*C)`, a tempered repeat between fixed parts (`A`
may hold one-character repeats: `<|python_start|>\\s*\\[`): the repeat
cannot cross a position where the literal `B` starts, and nothing left of
it can cross the first character of `B` (the analysis checks this item by
item, right to left). So, once the text holds a whole `B` starting at `i`,
at least `after` characters (the width of `C`) before the read position,
every evaluation of the look-behind at or after the read position reads
nothing before `i - before`: the text before that can go. `before` counts
the longest literal run of `A` too, which the `regex` module searches for
as a string (compiler/regex/lookbehind_partial.py), plus one spare
character, so no read meets the start of the kept text.

Head-free text. When `A` is one literal, the look-behind's matches start
at an occurrence of `A` after the last barrier, and the `regex` module finds
that occurrence by a string search over the repeat's stretch: text before
the first such occurrence (or, with none yet, all but the last `before` +
`after` characters before the read position) answers as the start of the
text would, so it can go as well. This is what keeps olmo3's content (a
`)` then a newline, with no `<function_calls>` anywhere) from being read
back to the start at every line. When `A` is a literal, a one-class repeat
and a character (`<|python_start|>\\s*\\[`), the module tries that character
at each position after the barrier, leftmost first, and reads the run of the
class and the literal before it: the text before the first such character
(less that run, and `before` characters) can go.

Dead anchored head. `(?<=^H.*...)`, a look-behind anchored at the start of
the text whose head `H` (up to the first `.*`) is not nullable: once the
text's start is known to be no match nor partial match of `^H`, the
look-behind can never match. Cutting the text would move `^` to the kept
text's start, so the runtime puts a sentinel character that cannot start
`H` there (the spare character nobody else reads): `^H` fails on it as it
fails on the real start. A start that does match `^H` keeps all of the text.

Counted character. `(?<=(?:</arg_value>|<tool_call>\\s*[^\\s<]+)\\s*</tool_call>)`
(glm47): no unbounded repeat of the body can match `<`, so every match of
the body holds at most `count - 1` of them (here 2). A match ending at or
after the read position then starts after the `count`-th last `<` before
the read position: whatever an engine reads on the way, whether the
look-behind matches depends only on the text from there (the body has no
anchor and no look-around), and the text before it, less `before` spare
characters, can go.

Everything else a pattern reads behind (bounded look-behinds, `\\b`) is
`near`: the cut stays at least that far before the read position. A template
with any other unbounded look-behind gets no cut and keeps all of its text,
as before.
"""

from __future__ import annotations

import dataclasses

from ..ir import Barrier, ContextCut, CountedBarrier, Program, RegexDelimiter
from ..regex.analysis import _behind, first_set, flat_items, max_length, nullable
from ..regex.charset import set_of
from ..regex.nodes import (
    BOS,
    START,
    Anchor,
    Category,
    Char,
    Class,
    Concat,
    Dot,
    Group,
    Look,
    Node,
    Repeat,
    root_of,
    walk,
)
from ..regex.syntax import to_source

_SINGLE = (Char, Dot, Category, Class)
SENTINELS = "\x00\x01\x02#"


def _literal(node: Node) -> str | None:
    items = flat_items(node)
    if items and all(isinstance(item, Char) and not item.icase for item in items):
        return "".join(item.char for item in items)
    return None


def _tempered(node: Node) -> str | None:
    """`B` when `node` is `(?:(?!B).)*` (any lower bound), else None."""
    if not isinstance(node, Repeat) or node.max is not None or node.lazy:
        return None
    items = flat_items(node.body)
    if len(items) != 2:
        return None
    look, dot = items
    if not (isinstance(look, Look) and not look.behind and look.negative and isinstance(dot, Dot) and dot.dotall):
        return None
    return _literal(look.body)


def _single_repeat(node: Node):
    """The character set of an unbounded greedy one-character repeat, else None."""
    if isinstance(node, Repeat) and node.max is None and not node.lazy:
        body = flat_items(node.body)
        if len(body) == 1 and isinstance(body[0], _SINGLE):
            return set_of(body[0])
    return None


def _has_look_or_anchor(node: Node) -> bool:
    if isinstance(node, (Look, Anchor)):
        return True
    if isinstance(node, (Concat,)):
        return any(_has_look_or_anchor(item) for item in node.items)
    if isinstance(node, Group):
        return _has_look_or_anchor(node.body)
    if isinstance(node, Repeat):
        return _has_look_or_anchor(node.body)
    return hasattr(node, "branches") and any(_has_look_or_anchor(b) for b in node.branches)


def barrier_of(body: Node) -> Barrier | None:
    """The Barrier rule of a look-behind body, or None when it has another shape."""
    items = flat_items(body)
    unbounded = [index for index, item in enumerate(items) if max_length(item) is None]
    if not unbounded:
        return None
    split = unbounded[-1]
    barrier = _tempered(items[split])
    if not barrier:
        return None
    right, left = items[split + 1 :], items[:split]
    if any(_has_look_or_anchor(item) for item in right + left):
        return None
    after = sum(max_length(item) for item in right)  # finite: the tempered repeat is the last unbounded item
    first = barrier[0]
    # Right to left: `edge` is the least position (relative to the barrier's
    # start i) where the next item may end; `lowest` the least position read.
    edge, lowest, run, longest_run = 1, 0, 0, 0
    for item in reversed(left):
        chars = _single_repeat(item)
        if chars is not None:
            if edge < 1 or first in chars:
                return None  # it could walk across the barrier's first character
            lowest = min(lowest, 0)
            edge = 1
            run = 0
            continue
        width = max_length(item)
        if width is None:
            return None
        if isinstance(item, _SINGLE):
            lowest = min(lowest, edge - 1)
            edge -= 1
            if edge == 0 and first not in set_of(item):
                edge = 1  # it cannot sit on the barrier's first character
        else:
            edge -= width
            lowest = min(lowest, edge - 1)
        run = run + 1 if isinstance(item, Char) else 0
        longest_run = max(longest_run, run)
    before = max(-lowest, longest_run) + 1
    head = _literal(Concat(tuple(left))) if left else None
    if head is not None:
        return Barrier(barrier, after, before, head)
    # `Z X* K`: the look-behind tries the first K after the barrier, then
    # reads the run of X before it and Z before that.
    if len(left) >= 3 and isinstance(left[-1], Char) and not left[-1].icase and _literal(Concat(tuple(left[:-2]))):
        chars = _single_repeat(left[-2])
        if chars is not None:
            return Barrier(barrier, after, before, left[-1].char, to_source(flat_items(left[-2].body)[0]))
    return Barrier(barrier, after, before)


def _most_of(char: str, node: Node) -> int | None:
    """The most times `char` occurs in a match of `node`: None when
    unbounded, or when `node` holds an anchor or a look-around."""
    if isinstance(node, _SINGLE):
        return 1 if char in set_of(node) else 0
    if isinstance(node, Group):
        return _most_of(char, node.body)
    if isinstance(node, Concat):
        counts = [_most_of(char, item) for item in node.items]
        return None if None in counts else sum(counts)
    if isinstance(node, Repeat):
        inner = _most_of(char, node.body)
        if inner is None:
            return None
        if inner == 0:
            return 0
        return None if node.max is None else inner * node.max
    if hasattr(node, "branches"):
        counts = [_most_of(char, branch) for branch in node.branches]
        return None if None in counts else max(counts)
    return None  # Anchor, Look


def counted_barrier_of(body: Node) -> CountedBarrier | None:
    """The CountedBarrier of a look-behind body: the literal character of
    the body that its matches hold the fewest times (a bounded number), or
    None. `before` spares the longest literal run of the body plus one, as
    for a Barrier (the `regex` module may read such a run as a string)."""
    chars = sorted({node.char for node in walk(body) if isinstance(node, Char) and not node.icase})
    best = None
    for char in chars:
        most = _most_of(char, body)
        if most is not None and (best is None or most < best[1]):
            best = (char, most)
    if best is None:
        return None
    return CountedBarrier(best[0], best[1] + 1, _longest_literal_run(body) + 1)


def _longest_literal_run(node: Node) -> int:
    """The longest run of literal characters in a row anywhere in `node`."""
    longest = 0
    if isinstance(node, Concat):
        run = 0
        for item in node.items:
            if isinstance(item, Char):
                run += 1
                longest = max(longest, run)
            else:
                run = 0
                longest = max(longest, _longest_literal_run(item))
    elif isinstance(node, Char):
        longest = 1
    elif isinstance(node, (Group, Repeat, Look)):
        longest = _longest_literal_run(node.body)
    elif hasattr(node, "branches"):
        longest = max(map(_longest_literal_run, node.branches), default=0)
    return longest


def dead_head_of(body: Node) -> tuple[str, str] | None:
    """(source of `^H`, sentinel) for `^H.*...` with H not nullable, else None."""
    items = flat_items(body)
    if len(items) < 2 or not (isinstance(items[0], Anchor) and items[0].kind in (BOS, START)):
        return None
    head = []
    for item in items[1:]:
        if isinstance(item, Repeat) and item.max is None and flat_items(item.body) == [Dot(True)]:
            break
        if _has_look_or_anchor(item):
            return None
        head.append(item)
    else:
        return None  # no `.*`: not this shape
    node = Concat(tuple(head))
    if not head or nullable(node):
        return None
    starts = first_set(node)
    sentinel = next((char for char in SENTINELS if char not in starts), None)
    if sentinel is None:
        return None
    return "\\A(?:" + to_source(node) + ")", sentinel


def _lookbehinds(node: Node, out: list[Look]) -> None:
    if isinstance(node, Look) and node.behind:
        out.append(node)
        return
    if isinstance(node, Look):
        _lookbehinds(node.body, out)
    elif isinstance(node, Concat):
        for item in node.items:
            _lookbehinds(item, out)
    elif isinstance(node, (Group, Repeat)):
        _lookbehinds(node.body, out)
    elif hasattr(node, "branches"):
        for branch in node.branches:
            _lookbehinds(branch, out)


def context_cut(program: Program) -> ContextCut | None:
    """The cut rule for a template that keeps all of its text (context -1),
    or None when some look-behind has no provable bound."""
    if program.context >= 0:
        return None
    delims = [d for f in program.fields for d in (f.open, f.close) if isinstance(d, RegexDelimiter)]
    near = 1
    barriers: list[Barrier] = []
    counted: list[CountedBarrier] = []
    anchored_heads: list[tuple[str, str]] = []
    for delim in delims:
        if delim.ast is None:
            return None
        looks: list[Look] = []
        _lookbehinds(root_of(delim.ast), looks)
        for look in looks:
            reach = _behind(look)
            if reach is not None:
                near = max(near, reach + 1)
                continue
            if look.negative or any(isinstance(inner, Look) and inner.behind for inner in _nested_looks(look.body)):
                return None
            rule = barrier_of(look.body)
            if rule is not None:
                barriers.append(rule)
                continue
            dead = dead_head_of(look.body)
            if dead is not None:
                anchored_heads.append(dead)
                continue
            counted_rule = counted_barrier_of(look.body)
            if counted_rule is None:
                return None
            counted.append(counted_rule)
        # everything outside the look-behinds: anchors and \b read one character back
        near = max(near, 2)
    if not (barriers or counted) or len(set(anchored_heads)) > 1:
        return None
    anchored, sentinel = anchored_heads[0] if anchored_heads else (None, None)
    return ContextCut(near, tuple(dict.fromkeys(barriers)), anchored, sentinel, tuple(dict.fromkeys(counted)))


def _nested_looks(node: Node) -> list[Look]:
    out: list[Look] = []
    if isinstance(node, Look):
        out.append(node)
        out.extend(_nested_looks(node.body))
    elif isinstance(node, Concat):
        for item in node.items:
            out.extend(_nested_looks(item))
    elif isinstance(node, (Group, Repeat)):
        out.extend(_nested_looks(node.body))
    elif hasattr(node, "branches"):
        for branch in node.branches:
            out.extend(_nested_looks(branch))
    return out


def plan_context_cut(program: Program) -> Program:
    """Pass: Program.context_cut, for a template that keeps all of its text."""
    return dataclasses.replace(program, context_cut=context_cut(program))


__all__ = ["Barrier", "ContextCut", "CountedBarrier", "context_cut", "plan_context_cut"]
