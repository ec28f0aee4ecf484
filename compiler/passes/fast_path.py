"""Delimiter analyses that make the common streaming step cheap and exact.

For each delimiter we look for *trigger strings* T and *lead classes* W
such that every match is W characters followed by a string of T, and every
partial match (one running into the end of the buffer) is W characters
followed by a string of T or a prefix of one. For `\\s*<tool_call>`:
T = {"<tool_call>"}, W = [\\s]. So:
- a state whose new text holds no first character of any T and does not end
  in a W character can skip every search (the streaming fast path);
- a regex search only needs to run where a string of T occurs, starting at
  the run of W characters before it (found with str.find).

Read from the project's regex AST (compiler/regex). Patterns outside its
grammar, with lazy repeats (the `regex` module reports odd partial matches
for them), case-insensitive parts or anchors and look-arounds where a match
starts get no fast path, which is always safe.
"""

from __future__ import annotations

import regex

from ..ir import Delimiter, FastPath, Lead, LiteralDelimiter
from ..regex.analysis import has_lazy, lookbehind_width
from ..regex.nodes import (
    BOS,
    START,
    Alt,
    Anchor,
    Category,
    Char,
    Class,
    Concat,
    Group,
    Look,
    Node,
    Range,
    Repeat,
    root_of,
    walk,
)
from ..regex.syntax import to_source

_MAX_SET = 256


class _NoFastPath(Exception):
    pass


def _class_chars(node: Class) -> set[str]:
    """Members of a small class with no categories, negation or case folding."""
    if node.negated or node.icase:
        raise _NoFastPath
    chars: set[str] = set()
    for item in node.items:
        if isinstance(item, Char) and not item.icase:
            chars.add(item.char)
        elif isinstance(item, Range) and ord(item.hi) - ord(item.lo) < _MAX_SET:
            chars.update(chr(code) for code in range(ord(item.lo), ord(item.hi) + 1))
        else:
            raise _NoFastPath
    return chars


def _items(node: Node) -> list[Node]:
    """A node as a sequence (non-capturing and capturing groups are transparent)."""
    if isinstance(node, Concat):
        return list(node.items)
    return [node]


def _first(items: list[Node], crossed: list | None = None) -> tuple[set[str], bool]:
    """Literal strings one of which starts every match of a sequence (a run
    of literal characters is kept whole: `<tool_call>`, not `<`), and whether
    the sequence can match empty. A look-around or anchor ends the analysis
    (_NoFastPath) unless `crossed` is a list: then a positive look-ahead
    gives its body's strings, other look-arounds and anchors are zero-width
    and skipped, and each one read on the way is added to `crossed`."""
    strings: set[str] = set()
    for index, node in enumerate(items):
        if isinstance(node, Char) and not node.icase:
            run = []
            for following in items[index:]:
                if not isinstance(following, Char) or following.icase:
                    break
                run.append(following.char)
            strings.add("".join(run))
            return strings, False
        item_strings, nullable = _first_item(node, crossed)
        strings |= item_strings
        if not nullable:
            return strings, False
    return strings, True


def _first_item(node: Node, crossed: list | None = None) -> tuple[set[str], bool]:
    if isinstance(node, Class):
        return _class_chars(node), False
    if crossed is not None and isinstance(node, (Look, Anchor)):
        crossed.append(node)
        if isinstance(node, Anchor) or node.behind or node.negative:
            return set(), True
        return _first(_items(node.body), crossed)
    if isinstance(node, Group):
        return _first(_items(node.body), crossed)
    if isinstance(node, Concat):
        return _first(list(node.items), crossed)
    if isinstance(node, Alt):
        strings: set[str] = set()
        nullable = False
        for branch in node.branches:
            branch_strings, branch_nullable = _first(_items(branch), crossed)
            strings |= branch_strings
            nullable = nullable or branch_nullable
        return strings, nullable
    if isinstance(node, Repeat):
        if node.max == 0:
            return set(), True
        strings, nullable = _first(_items(node.body), crossed)
        return strings, nullable or node.min == 0
    raise _NoFastPath  # anchors and look-arounds (unless crossed), ".", categories, case folding


def _lead(node: Node) -> tuple[Lead, bool, bool] | None:
    """The class of a leading single-character repeat, like `\\s*` or `\\n+`,
    whether the repeat is unbounded, and whether it may be absent."""
    if not isinstance(node, Repeat) or node.lazy:
        return None
    body = node.body
    if not (isinstance(body, (Char, Category)) or isinstance(body, Class)):
        return None
    if getattr(body, "icase", False):
        return None
    source = to_source(body)
    compiled = regex.compile(source)
    lead = Lead(source, "".join(chr(code) for code in range(128) if compiled.fullmatch(chr(code))))
    return lead, node.max is None, node.min == 0


def reach_back(ast) -> int:
    """Characters before the search position a match may read: the widest
    look-behind plus one (for ^, \\b and friends); -1 when unbounded or when
    the pattern is outside the project's grammar (no AST)."""
    if ast is None:
        return -1
    width = lookbehind_width(ast)
    return -1 if width is None else width + 1


def reads_behind(ast) -> bool:
    """Whether a match may read anything before the search position (a
    look-behind, \\b or \\B, or ^ and \\A, which hold only where nothing
    precedes): reach_back counts one character for any regex, this tells
    the ones that need none. True outside the project's grammar (no AST)."""
    if ast is None:
        return True
    if lookbehind_width(ast) != 0:
        return True
    return any(isinstance(node, Anchor) and node.kind in (BOS, START) for node in walk(root_of(ast)))


def fast_path_of(delim: Delimiter) -> FastPath | None:
    """Trigger strings and lead classes of one delimiter, or None when unsure."""
    if isinstance(delim, LiteralDelimiter):
        return FastPath(tuple(sorted(set(delim.literals))), ())
    if delim.ast is None or has_lazy(delim.ast):
        return None
    items = _items(delim.ast.body)
    # Leading look-arounds read nothing a match consumes: skipping them only
    # widens what we consider, which is safe for triggers and leads.
    skipped = False
    while items and isinstance(items[0], Look):
        items.pop(0)
        skipped = True
    leads: list[Lead] = []
    hold_lead = None
    optional_leads = True
    try:
        while items:
            found = _lead(items[0])
            if found is None:
                break
            if not leads and found[1] and not skipped:
                hold_lead = found[0]
            optional_leads = optional_leads and found[2]
            leads.append(found[0])
            items.pop(0)
        triggers, nullable = _first(items)
    except _NoFastPath:
        return None
    if nullable or not triggers or len(triggers) > _MAX_SET:
        return None
    exact = not skipped and (not leads or (len(leads) == 1 and hold_lead is not None and optional_leads))
    simple = exact and _literal_strings(items) == triggers and not _prefix_free_violated(triggers, leads)
    return FastPath(tuple(sorted(triggers)), tuple(leads), hold_lead, exact=exact, simple=simple)


def _run(items: list[Node]) -> str | None:
    """The string a sequence of plain characters spells, else None."""
    if not all(isinstance(item, Char) and not item.icase for item in items):
        return None
    return "".join(item.char for item in items)


def _literal_strings(items: list[Node]) -> set[str] | None:
    """The strings a sequence matches when it is one literal or a
    non-capturing alternation of literals, else None."""
    run = _run(items)
    if run:
        return {run}
    if len(items) != 1:
        return None
    node = items[0]
    if isinstance(node, Group) and node.index is None and node.name is None:
        node = node.body
    if not isinstance(node, Alt):
        return None
    strings = set()
    for branch in node.branches:
        run = _run(_items(branch))
        if not run:
            return None
        strings.add(run)
    return strings


def _prefix_free_violated(strings: set[str], leads: list[Lead]) -> bool:
    """Whether one string is a prefix of another (then the regex's
    alternation order, not the longest, would decide) or starts with a lead
    character (then the lead run would not end where the string starts)."""
    for string in strings:
        if any(other != string and other.startswith(string) for other in strings):
            return True
        if any(
            string[0] in lead.ascii or not string[0].isascii() and regex.fullmatch(lead.source, string[0])
            for lead in leads
        ):
            return True
    return False


def merge_fast_paths(paths: list[FastPath | None]) -> FastPath | None:
    """A state's fast path: every watched delimiter must have one."""
    if any(path is None for path in paths):
        return None
    # A state only needs first characters: any text holding none cannot
    # start (or continue into) a trigger string.
    triggers = sorted({t[0] for path in paths for t in path.triggers})
    leads = list(dict.fromkeys(lead for path in paths for lead in path.leads))
    hold_lead = next((path.hold_lead for path in paths if path.hold_lead is not None), None)
    return FastPath(tuple(triggers), tuple(leads), hold_lead)
