"""Delimiter regexes (the compiler's regex AST) as grammar nodes.

A grammar cannot look around, so look-arounds are dropped: the grammar's own
structure has to guarantee them (what follows a call close is another call or
the end of turn), and `build.py` checks trailing conditions with the `regex`
module on witness strings. Anchors decide where a branch may be used: `$`/`\\Z`
only at the end of the output, `^`/`\\A` only at its start.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..regex import parse
from ..regex.charset import CharSet, set_of
from ..regex.nodes import BOS, END, EOS, START, Alt, Anchor, Category, Char, Class, Concat, Dot, Group, Look, Node, Repeat
from . import model as m


def ends_in_lookahead(node: Node) -> bool:
    items = _items(node)
    return bool(items) and isinstance(items[-1], Look) and not items[-1].behind


def starts_with_lookbehind(node: Node) -> bool:
    return any(
        (items := _items(branch)) and isinstance(items[0], Look) and items[0].behind for branch in branches(node)
    )


def start_or_separator(node: Node) -> bool:
    """`(?:^|,)`: a choice between the start of the text and something else."""
    node = _unwrap(node)
    return isinstance(node, Alt) and any(
        isinstance(_unwrap(b), Anchor) and _unwrap(b).kind in (BOS, START) for b in node.branches
    )


def ast_of(pattern: str) -> Node:
    return parse(pattern).body


def _unwrap(node: Node) -> Node:
    while isinstance(node, Group) and node.index is None:
        node = node.body
    return node


def branches(node: Node) -> list[Node]:
    """Top-level alternatives (through non-capturing groups)."""
    node = _unwrap(node)
    if isinstance(node, Alt):
        return [leaf for branch in node.branches for leaf in branches(branch)]
    return [node]


def _items(node: Node) -> list[Node]:
    node = _unwrap(node)
    if isinstance(node, Concat):
        out: list[Node] = []
        for item in node.items:
            inner = _unwrap(item)
            out.extend(_items(inner) if isinstance(inner, Concat) else [item])
        return out
    return [node]


def conditional_empty(node: Node) -> bool:
    """Can match nothing (possibly under a look-around or anchor condition)."""
    if isinstance(node, (Look, Anchor)):
        return True
    if isinstance(node, Repeat):
        return node.min == 0 or conditional_empty(node.body)
    if isinstance(node, Group):
        return conditional_empty(node.body)
    if isinstance(node, Concat):
        return all(map(conditional_empty, node.items))
    if isinstance(node, Alt):
        return any(map(conditional_empty, node.branches))
    return False


@dataclass(frozen=True)
class Split:
    """A delimiter branch cut at its first mandatory literal run."""

    pre: tuple[Node, ...]  # may match nothing: free text before the trigger absorbs it
    trigger: str
    post: tuple[Node, ...]

    @property
    def start_only(self) -> bool:
        return any(isinstance(item, Anchor) and item.kind in (BOS, START) for item in self.pre)


def splits(node: Node) -> list[Split] | None:
    """Each way a match can be cut as (nullable pre, literal trigger, rest);
    None when some match has no literal before its first non-optional part."""
    node = _unwrap(node)
    if isinstance(node, Alt):
        out: list[Split] = []
        for branch in node.branches:
            sub = splits(branch)
            if sub is None:
                return None
            out.extend(sub)
        return out
    items = _items(node)
    for i, item in enumerate(items):
        if isinstance(item, Char) and not item.icase:
            j = i
            while j < len(items) and isinstance(items[j], Char) and not items[j].icase:
                j += 1
            return [Split(tuple(items[:i]), "".join(c.char for c in items[i:j]), tuple(items[j:]))]
        inner = _unwrap(item)
        if isinstance(inner, (Alt, Concat)) and not conditional_empty(inner):
            sub = splits(inner)
            if sub is None:
                return None
            return [Split(tuple(items[:i]) + s.pre, s.trigger, s.post + tuple(items[i + 1 :])) for s in sub]
        if conditional_empty(item):
            continue
        return None
    return None


def required_literals(node: Node) -> list[str]:
    """Literals such that every match contains one of them (look-aheads
    included): excluding them from free text keeps a match out of it."""
    found = splits(node)
    if found is not None:
        return sorted({s.trigger for s in found})
    # Variant by variant: its own literal, else one its look-ahead or
    # look-behind needs (a zero-width open after a call's `}`).
    out: set[str] = set()
    for variant in variants(node):
        if only_at_end(variant):
            continue  # free text meets it only where the output ends, which closes the region anyway
        own = splits(variant)
        if own is not None:
            out.update(s.trigger for s in own)
            continue
        for item in _items(variant):
            if isinstance(item, Look) and not item.negative:
                inner = splits(item.body) if not item.behind else _last_literal(item.body)
                if inner:
                    out.update(s.trigger for s in inner) if not item.behind else out.add(inner)
                    break
        else:
            return []
    return sorted(out)


def only_at_end(node: Node) -> bool:
    """The variant ends with `\\Z` or `$` (look-arounds after it aside):
    it matches nowhere but at the end of the text (before a final newline
    for `$`)."""
    items = [item for item in _items(node) if not isinstance(item, Look)]
    return bool(items) and isinstance(items[-1], Anchor) and items[-1].kind in (EOS, END)


def literal_free_branch(node: Node) -> Node | None:
    """A variant of the pattern in which no literal is required (the one
    `required_literals` fails on), or None."""
    for variant in variants(node):
        if splits(variant) is not None or only_at_end(variant):
            continue
        looks = [item for item in _items(variant) if isinstance(item, Look) and not item.negative]
        if any(splits(item.body) if not item.behind else _last_literal(item.body) for item in looks):
            continue
        return variant
    return None


def _last_literal(node: Node) -> str | None:
    """The literal run a look-behind ends with (`(?<=\\})` -> "}")."""
    items = _items(node)
    chars = []
    for item in reversed(items):
        if isinstance(item, Char) and not item.icase:
            chars.append(item.char)
        else:
            break
    return "".join(reversed(chars)) or None


_FULL = CharSet.full()


def to_node(
    node: Node,
    groups: dict[str, m.Node] | None = None,
    *,
    at_end: bool = False,
    at_start: bool = False,
) -> m.Node | None:
    """The grammar for what the regex matches, look-arounds dropped; named
    groups in `groups` replaced; None when an anchor rules the branch out here."""
    groups = groups or {}

    def conv(n: Node) -> m.Node | None:
        if isinstance(n, Char):
            if n.icase and n.char.lower() != n.char.upper():
                return m.Chars(CharSet.chars({n.char.lower(), n.char.upper()}))
            return m.Lit(n.char)
        if isinstance(n, (Dot, Category, Class)):
            return m.Chars(set_of(n))
        if isinstance(n, Concat):
            parts = [conv(item) for item in n.items]
            return None if any(p is None for p in parts) else m.seq(*parts)
        if isinstance(n, Alt):
            parts = [p for p in map(conv, n.branches) if p is not None]
            return m.alt(*parts) if parts else None
        if isinstance(n, Repeat):
            body = conv(n.body)
            if body is None:
                return m.EMPTY if n.min == 0 else None
            if n.min == 0 and n.max == 0:
                return m.EMPTY
            return m.Rep(body, n.min, n.max)
        if isinstance(n, Group):
            if n.name is not None and n.name in groups:
                return groups[n.name]
            return conv(n.body)
        if isinstance(n, Anchor):
            if n.kind in (EOS, END):
                return m.EMPTY if at_end else None
            if n.kind in (BOS, START):
                return m.EMPTY if at_start else None
            return m.EMPTY
        if isinstance(n, Look):
            return m.EMPTY
        raise TypeError(n)

    return conv(node)


def items_node(items: tuple[Node, ...]) -> Node:
    return Concat(tuple(items))


def group_nodes(node: Node) -> dict[str, Node]:
    """Named groups of a regex by name."""
    from ..regex.nodes import walk

    return {n.name: n for n in walk(node) if isinstance(n, Group) and n.name is not None}


def variants(node: Node, limit: int = 128, *, optional_chars: bool = False) -> list[Node]:
    """The regex split into alternatives with no choice between structures
    left inside (alternations and optional groups distributed; runs of one
    class kept; with `optional_chars`, `/?` too), so a look-ahead can be
    checked on each; [node] when there would be more than `limit`."""
    from ..regex.nodes import Repeat as _Repeat

    def go(n: Node) -> list[Node]:
        if isinstance(n, Group) and n.index is None:
            return go(n.body)
        if isinstance(n, Group):
            return [Group(v, n.index, n.name) for v in go(n.body)]
        if isinstance(n, Alt):
            return [v for branch in n.branches for v in go(branch)]
        if isinstance(n, _Repeat) and n.min == 0 and n.max == 1 and (optional_chars or not isinstance(n.body, (Char, Class, Category, Dot))):
            return [Concat(())] + go(n.body)
        if isinstance(n, Concat):
            out: list[Node] = [Concat(())]
            for item in n.items:
                options = go(item)
                out = [Concat(tuple(_items(a)) + tuple(_items(b))) for a in out for b in options]
                if len(out) > limit:
                    raise OverflowError
            return out
        return [n]

    try:
        found = go(node)
    except OverflowError:
        return [node]
    return found if len(found) <= limit else [node]
