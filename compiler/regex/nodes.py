"""The regex AST: frozen dataclasses, part of the compiler's IR.

Inline flags are resolved while parsing: `.` carries whether it matches a
newline and literals/classes carry whether they ignore case, so no node's
meaning depends on where it sits. Non-capturing groups are kept (as `Group`
with no index) so that `to_source(parse(p))` reads like `p`; every analysis
treats them as transparent.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Iterator, Union

# Anchor kinds (the regex module).
BOS = "^"  # start of the text
EOS = "$"  # end of the text, or before a final "\n"
START = "\\A"  # start of the text
END = "\\Z"  # end of the text (the regex module's \Z and \z)
WORD_BOUNDARY = "\\b"
NOT_WORD_BOUNDARY = "\\B"
# Under the MULTILINE flag (`(?m)`); each kind is also its source text.
LINE_START = "(?m:^)"  # start of the text, or after a "\n"
LINE_END = "(?m:$)"  # end of the text, or before a "\n"
ANCHORS = (BOS, EOS, START, END, WORD_BOUNDARY, NOT_WORD_BOUNDARY, LINE_START, LINE_END)

# Class shorthands: lower case is the set, upper case its complement.
CATEGORIES = ("d", "D", "s", "S", "w", "W")


@dataclass(frozen=True)
class Char:
    """One literal character."""

    char: str
    icase: bool = False


@dataclass(frozen=True)
class Dot:
    """`.`; matches "\\n" too under DOTALL (the templates' default)."""

    dotall: bool = True


@dataclass(frozen=True)
class Category:
    """`\\d \\s \\w` and their complements, with the `regex` module's Unicode sets."""

    name: str  # one of CATEGORIES


@dataclass(frozen=True)
class Range:
    """`a-z` inside a class (inclusive)."""

    lo: str
    hi: str


ClassItem = Union[Char, Range, Category]


@dataclass(frozen=True)
class Class:
    """`[...]` / `[^...]`."""

    items: tuple[ClassItem, ...]
    negated: bool = False
    icase: bool = False


@dataclass(frozen=True)
class Concat:
    items: tuple["Node", ...]  # () is the empty pattern


@dataclass(frozen=True)
class Alt:
    branches: tuple["Node", ...]  # in priority order


@dataclass(frozen=True)
class Repeat:
    body: "Node"
    min: int
    max: int | None  # None: unbounded
    lazy: bool = False


@dataclass(frozen=True)
class Group:
    """A capturing group (index set, maybe a name) or a non-capturing one."""

    body: "Node"
    index: int | None = None
    name: str | None = None


@dataclass(frozen=True)
class Anchor:
    kind: str  # one of ANCHORS


@dataclass(frozen=True)
class Look:
    """Lookahead / lookbehind, positive or negative."""

    body: "Node"
    behind: bool = False
    negative: bool = False


Node = Union[Char, Dot, Category, Class, Concat, Alt, Repeat, Group, Anchor, Look]


@dataclass(frozen=True)
class Regex:
    """The AST root. `source` is the text it was parsed from (not compared)."""

    body: Node
    source: str = field(default="", compare=False)


def children(node: Node) -> tuple[Node, ...]:
    if isinstance(node, Concat):
        return node.items
    if isinstance(node, Alt):
        return node.branches
    if isinstance(node, (Repeat, Group, Look)):
        return (node.body,)
    return ()


def walk(node: Node, skip: Callable[[Node], bool] | None = None) -> Iterator[Node]:
    """Every node of the tree, parents before children, in source order; the
    children of a node for which `skip` holds are left out (the node itself is
    still given)."""
    yield node
    if skip is not None and skip(node):
        return
    for child in children(node):
        yield from walk(child, skip)


def root_of(ast: "Regex | Node") -> Node:
    return ast.body if isinstance(ast, Regex) else ast
