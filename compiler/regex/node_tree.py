"""The node tree the Go runtime runs (`rt.Node`), read off the compiler's regex AST.

A normalized form of the AST, node for node what the Go backend emits: runs
of case-sensitive characters as one literal, classes (and case-insensitive
characters) as code point ranges, non-capturing groups unwrapped, a
sequence of one item as that item. It lives here, beside the AST, because
two stages read it: the state plan (compiler/passes/state_plan.py) decides
its facts about exactly the tree the runtime runs, and the Go backend
(compiler/backends/go) renders it.
"""

from __future__ import annotations

from dataclasses import dataclass

from .charset import set_of
from .lazy_partial import char_alternation
from .nodes import (
    BOS,
    END,
    EOS,
    LINE_END,
    LINE_START,
    NOT_WORD_BOUNDARY,
    START,
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
    Repeat,
)

# Go node kinds (rt.Op) and assertion kinds (rt.Node.Kind).
LIT, SET, CONCAT, ALT, REPEAT, GROUP, ASSERT, LOOK, EMPTY = (
    "Lit",
    "Set",
    "Concat",
    "Alt",
    "Repeat",
    "Group",
    "Assert",
    "Look",
    "Empty",
)
ANCHOR_KINDS = {
    BOS: "^",
    EOS: "$",
    START: "A",
    END: "Z",
    WORD_BOUNDARY: "b",
    NOT_WORD_BOUNDARY: "B",
    LINE_START: "L",
    LINE_END: "E",
}

Ranges = tuple[tuple[int, int], ...]


@dataclass(frozen=True)
class GoNode:
    """One rt.Node: Op and the fields the runtime reads."""

    op: str
    lit: str = ""
    set: Ranges = ()
    subs: tuple["GoNode", ...] = ()
    min: int = 0
    max: int = 0  # -1: unbounded
    lazy: bool = False
    give_back: str | None = None
    lazy_tail: str | None = None  # lazy one-character repeat: its tail's test (lazy_partial.lazy_tails)
    lazy_fold: tuple[Ranges, ...] | None = None  # the same when the test ignores case: each character's cases
    group: int = 0
    kind: str = ""
    behind: bool = False
    negative: bool = False


def go_tree(node, give_back: dict[int, str] | None = None) -> GoNode:
    """The rt.Node tree of an AST node, as the Go backend emits it: runs of
    case-sensitive characters as one literal, classes (and case-insensitive
    characters) as code point ranges, non-capturing groups unwrapped, a
    sequence of one item as that item. give_back: backtrack_literals of the
    whole regex (repeats by id), and for lazy repeats lazy_partial.lazy_tails."""
    give_back = give_back or {}
    if isinstance(node, Char) and not node.icase:
        return GoNode(LIT, lit=node.char)
    if isinstance(node, (Char, Dot, Category, Class)):
        return GoNode(SET, set=set_of(node).ranges)
    if isinstance(node, Concat):
        items: list[GoNode] = []
        run = ""
        for item in node.items:
            if isinstance(item, Char) and not item.icase:
                run += item.char
                continue
            if run:
                items.append(GoNode(LIT, lit=run))
                run = ""
            items.append(go_tree(item, give_back))
        if run:
            items.append(GoNode(LIT, lit=run))
        if not items:
            return GoNode(EMPTY)
        if len(items) == 1:
            return items[0]
        return GoNode(CONCAT, subs=tuple(items))
    if isinstance(node, Alt):
        return GoNode(ALT, subs=tuple(go_tree(b, give_back) for b in node.branches))
    if isinstance(node, Repeat):
        return GoNode(
            REPEAT,
            min=node.min,
            max=-1 if node.max is None else node.max,
            lazy=node.lazy,
            give_back=None if node.lazy else give_back.get(id(node)),
            lazy_tail=(None if isinstance(give_back.get(id(node)), tuple) else give_back.get(id(node))) if node.lazy else None,
            lazy_fold=tuple(chars.ranges for chars in give_back[id(node)])
            if node.lazy and isinstance(give_back.get(id(node)), tuple)
            else None,
            subs=(
                GoNode(SET, set=chars.ranges)
                if node.lazy and (chars := char_alternation(node.body)) is not None  # the module's set (lazy_partial)
                else go_tree(node.body, give_back),
            ),
        )
    if isinstance(node, Group):
        if node.index is None:
            return go_tree(node.body, give_back)
        return GoNode(GROUP, group=node.index, subs=(go_tree(node.body, give_back),))
    if isinstance(node, Anchor):
        return GoNode(ASSERT, kind=ANCHOR_KINDS[node.kind])
    if isinstance(node, Look):
        return GoNode(LOOK, behind=node.behind, negative=node.negative, subs=(go_tree(node.body, give_back),))
    raise TypeError(f"no Go form for {type(node).__name__}")
