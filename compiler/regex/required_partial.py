"""Where the `regex` module (2026.5.9) attempts matches in a search of a
pattern with a *required string*, decided once here so every port
reproduces it from data.

A partial match that reads the end of the text does not depend on where
the module attempts matches; one that a bounded lazy repeat reports without
reading it does (lazy_partial.py: `a[^q]{1,2}?xy` on "azzzzx" is a partial
match at 0 because no "xy" ends by the repeat's bound). For patterns where
such a repeat may come before the required string, the ports repeat the
module's search loop (`basic_match` in _regex.c):

- **The required string** (`get_required_string` in _regex_core.py): the
  first string node of the optimised, packed pattern's top-level sequence
  (a group that captures and a repeat of at least one looked into), and the
  widest text before it (`offset`). Where that width is unbounded the
  module never starts late, and nothing here applies.
- **Locating it** (`locate_required_string`) before each attempt: when the
  attempt position p has passed where the string was last found (req_pos),
  it is searched for from p; a complete occurrence F becomes req_pos and the
  attempt starts at max(p, F - offset). Without one, the partial pass takes
  the first start of the string that runs into the end of the text (a
  string of five or more characters: looked for from its length less one
  before the end, the module's fast search), else the end, and req_pos
  stays. The partial pass starts with the req_pos the complete pass left.
- **search_start** then moves to the first position whose character passes
  the pattern's start test (its first set when the module builds one, else
  its first node's), and when that test is the first node itself, whose
  next node's test (`set_test_node`: a character, a string, a minimum copy
  of a repeat) also passes right after it; running into the end there is a
  partial match in the partial pass. search_start does not locate the
  string again: only a failed attempt does.
- **The complete pass does not start** when fewer characters than the
  pattern's minimum width are left (`do_exact_match`), leaving req_pos
  unset. Its search_start also gives up where fewer are left; the ports
  leave that out: a later partial match it could change needs a minimum
  width above the offset plus the string's length plus two, and on 60,000
  generated texts for such patterns no answer depended on it.

How this was read: from `_regex.c` and `_regex_core.py` of the 2026.5.9
sources, and a build of `_regex.c` with VERBOSE tracing, bounded by the
module's answers on generated patterns (tests/regex/test_partial_search_
ports.py, with texts that place the required string far from the start).
"""

from __future__ import annotations

from typing import NamedTuple

from .analysis import max_length, min_length
from .charset import CharSet, set_of
from .lazy_partial import (
    Branches,
    carried_literal,
    case_states,
    char_alternation,
    lazy_tails,
    literal_char,
    one_char,
    optimised_items,
    pack_run,
    split_alternation,
    walk_nodes,
)
from .nodes import Alt, Category, Char, Class, Concat, Dot, Group, Look, Node, Regex, Repeat, root_of


class Required(NamedTuple):
    """How the module's search places attempts for a pattern with a required
    string (required_string). Literals are tuples of each character's set
    of characters (its cases, when it ignores case)."""

    literal: str | tuple[CharSet, ...]  # the string; ignoring case, each character's cases
    offset: int  # the widest text before it, in characters
    starts: CharSet | None  # search_start's test at the position (None: it stops everywhere)
    ahead: tuple[CharSet, ...] | None  # the next node's test, when the start test is the first node
    ahead_at: int  # where `ahead` reads: 1 after the position (a first node), 0 at it (a first set)
    min_width: int  # the pattern's minimum width: the complete pass does not start where less is left


def required_string(ast: Regex | Node) -> Required | None:
    """The module's required string and how its search places attempts, when
    a partial search must start where the module's does, else None: a
    bounded lazy repeat with a literal test, or a look-ahead, may come
    before the string (_before_required_string)."""
    root = root_of(ast)
    if _before_required_string(root, lazy_tails(root)) is None:
        return None
    states = case_states(root)
    offset, literal = _required(optimised_items(root), states)
    if not offset or literal is None:  # unbounded, or nothing before the string
        return None
    starts, ahead, ahead_at = _search_start(root, states)
    return Required(literal, offset, starts, ahead, ahead_at, min_length(root))


def _required(items: list, states: dict[int, bool]) -> tuple[int | None, str | tuple[CharSet, ...] | None]:
    """`get_required_string` over one optimised sequence: (the widest text
    before the string, None when unbounded; the string or None). A run of
    literal characters is packed as the module packs it (pack_run, under the
    sequence's case state); a group that captures and a repeat of at least
    one are looked into; anything else adds its widest text."""
    offset = 0
    for at, item in enumerate(items):
        found = literal_char(item)
        if found is not None:
            return offset, _run(items[at:], states)
        if isinstance(item, Branches):
            width = item.width
        else:
            width = max_length(item)
            inner = item.body if isinstance(item, Group) or isinstance(item, Repeat) and item.min >= 1 else None
            if inner is not None:
                ofs, literal = _required(optimised_items(inner), states)
                if literal is not None:
                    return (None if ofs is None else offset + ofs), literal
        if width is None:
            return None, None
        offset += width
    return offset, None


def _run(items: list, states: dict[int, bool]) -> str | tuple[CharSet, ...]:
    """The string node the module packs from the literal characters that
    start `items`."""
    chars = []
    for item in items:
        found = literal_char(item)
        if found is None:
            break
        chars.append(found)
    return carried_literal(*pack_run(chars, states.get(id(items[0]), False)))


def _sets(literal: str | tuple[CharSet, ...]) -> tuple[CharSet, ...]:
    if isinstance(literal, tuple):
        return literal
    return tuple(set_of(Char(char)) for char in literal)


def _simple_start(node: Node) -> bool:
    """`has_simple_start`: the pattern opens with one character's test
    (through groups), so the module builds no first set."""
    while isinstance(node, Group) and node.index is None or isinstance(node, Concat) and node.items:
        node = node.body if isinstance(node, Group) else node.items[0]
    if isinstance(node, Group):
        return _simple_start(node.body)
    return isinstance(node, (Char, Class, Category, Dot))


def _search_start(root: Node, states: dict[int, bool]) -> tuple[CharSet | None, tuple[CharSet, ...] | None, int]:
    """(start test, next node's test, where that reads) of search_start."""
    from .lookbehind_partial import attempt_entry

    items = optimised_items(root)
    if not items:
        return None, None, 0
    head = items[0]
    if not _simple_start(head):
        entry = attempt_entry(root)
        if entry is not None:  # the first set, a zero-width node before the first one
            return entry, _next_test(items, states), 0
    if isinstance(head, Group):  # START_GROUP: the test is inside, not the node
        return _inner_test(items), None, 0
    if isinstance(head, Repeat) and head.min >= 1 and one_char(head.body):
        # compiled as its minimum copies, then the rest of the repeat
        rest = (
            []
            if head.max == 1
            else [Repeat(head.body, max(head.min - 1, 0), None if head.max is None else head.max - 1, head.lazy)]
        )
        return _one_set(head.body), _next_test(rest + items[1:], states), 1
    if isinstance(head, Repeat) and head.min >= 1:  # a repeat of a group: the test is inside
        return _inner_test(items), None, 0
    if one_char(head):
        return _one_set(head), _next_test(items[1:], states), 1
    return None, None, 0


def _one_set(node: Node) -> CharSet:
    while isinstance(node, Group) and node.index is None:
        node = node.body
    chars = char_alternation(node)
    return set_of(node) if chars is None else chars


def _inner_test(items: list) -> CharSet | None:
    """`locate_test_start` past group starts and into repeats of at least
    one: the first one-character test, or None (search_start stops
    everywhere)."""
    for item in items:
        if isinstance(item, Group):
            return _inner_test(optimised_items(item.body))
        if isinstance(item, Repeat) and item.min >= 1:
            return _one_set(item.body) if one_char(item.body) else _inner_test(optimised_items(item.body))
        return _one_set(item) if one_char(item) else None
    return None


def _next_test(items: list, states: dict[int, bool]) -> tuple[CharSet, ...] | None:
    """`set_test_node` of the code `items` compile to: a group's start and
    end and a repeat of a group of at least one are tested past; a
    one-character repeat of at least one tests its first minimum copy; a
    character, a set or a run of literal characters is tested; anything
    else (a repeat of minimum 0, an alternation, a look-around, an anchor)
    is not, and None says so."""
    if not items:
        return None
    head = items[0]
    if isinstance(head, Group):
        return _next_test(optimised_items(head.body) + items[1:], states)
    if isinstance(head, Repeat):
        if head.min == 0:
            return None
        if one_char(head.body):
            return (_one_set(head.body),)
        return _next_test(optimised_items(head.body), states)
    if literal_char(head) is not None:
        return _sets(_run(items, states))
    if one_char(head):
        return (_one_set(head),)
    return None


class _Required(Exception):
    pass


def _before_required_string(root: Node, tails: dict[int, str]) -> Repeat | Look | None:
    """A bounded lazy repeat whose tail test is a literal (so its partial
    matches need not read the end of the text), or a look-around (a
    look-ahead's partial matches read past the widest text the module
    counts, a look-behind's give-back reports them without reading the end:
    lookbehind_partial.py), that the
    pattern's required string may follow at a finite offset, or None. The module
    (`get_required_string` in _regex_core.py) takes the first literal
    character of the pattern's top-level sequence (groups and repeats of at
    least one opened up; an alternation is not looked into, though its
    optimiser may hoist a common prefix out of it) with the largest width
    before it; when that width is unbounded there is none. Partial search
    from `pos` then starts no earlier than where the string, or failing a
    complete occurrence a start of it that ends the text, was found, less
    that width: harmless for partial matches that read the end of the
    text, not for the lazy ones that do not. Conservative: any alternation
    holding such a repeat counts as coming before the string, save for the
    common prefix the optimiser hoists out of its branches."""
    seen: list[Repeat | Look] = []

    def marks(node: Node) -> None:
        for inner in walk_nodes(node):
            if isinstance(inner, Repeat) and tails.get(id(inner)) and inner.max is not None:
                seen.append(inner)
            elif isinstance(inner, Look):
                seen.append(inner)

    def scan(node: Node) -> bool:
        """True when the scan is over (the required string found, or an
        unbounded width before it)."""
        if literal_char(node) is not None:  # `x`, `[x]` (the module's Character)
            raise _Required
        if isinstance(node, Concat):
            return any(scan(item) for item in node.items)
        if isinstance(node, Group):
            return scan(node.body)
        if isinstance(node, Repeat):
            if node.min >= 1 and scan(node.body):  # the module looks into a repeat of at least one
                return True
            marks(node)
            width = max_length(node)
            return width is None
        if isinstance(node, Alt):
            prefix, _ = split_alternation(node)  # hoisted out of the branches by the optimiser
            for item in prefix:
                if scan(item):
                    return True
            marks(node)
            return max_length(node) is None
        if isinstance(node, Look):
            marks(node)
            return False
        return max_length(node) is None

    try:
        scan(root)
    except _Required:
        return seen[0] if seen else None
    return None


__all__ = ["Required", "required_string"]
