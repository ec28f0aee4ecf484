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

Patterns are read with the standard library's regex parser; anything it
might read differently from the `regex` module (POSIX classes, \\p{..},
inline flags other than s, lookarounds or anchors in the leading position)
gets no fast path, which is always safe.
"""

from __future__ import annotations

from dataclasses import dataclass

import regex

try:  # Python 3.11+
    from re import _constants as sre_constants
    from re import _parser as sre_parse
except ImportError:  # pragma: no cover - Python < 3.11
    import sre_constants  # type: ignore[no-redef]
    import sre_parse  # type: ignore[no-redef]

from .ir import Delimiter, LiteralDelimiter

C = sre_constants
_CATEGORIES = {
    C.CATEGORY_SPACE: r"\s",
    C.CATEGORY_NOT_SPACE: r"\S",
    C.CATEGORY_DIGIT: r"\d",
    C.CATEGORY_NOT_DIGIT: r"\D",
    C.CATEGORY_WORD: r"\w",
    C.CATEGORY_NOT_WORD: r"\W",
}
# Syntax the `regex` module reads differently from (or beyond) the re parser.
_UNSURE = ("[:", "\\p", "\\P", "\\N", "\\X", "\\G", "\\K", "\\L", "\\m", "\\M", "(?V", "(?|", "(?(", "(?&", "(?R", "(?r")
_ALLOWED_FLAGS = C.SRE_FLAG_UNICODE | C.SRE_FLAG_DOTALL
_MAX_SET = 256


@dataclass(frozen=True)
class Lead:
    """A character class a match may start with, repeated (`\\s*`)."""

    source: str  # a regex character class, e.g. "[\\s]"
    ascii: str  # its ASCII members, for str.strip


@dataclass(frozen=True)
class FastPath:
    triggers: tuple[str, ...]  # sorted strings; one starts every match after its leads
    leads: tuple[Lead, ...]
    # A lead whose unbounded repeat starts a delimiter: while the held text
    # and new text are all of this class, a partial match stays at the read
    # position, so more such text changes nothing.
    hold_lead: Lead | None = None
    # No look-around was skipped and the leads are one optional, unbounded
    # repeat: lead characters followed by a proper prefix of a trigger
    # string are certainly a partial match.
    exact: bool = False


class _NoFastPath(Exception):
    pass


def _literal_chars(items) -> set[str]:
    """Members of a character set with no categories or negation."""
    chars: set[str] = set()
    for op, av in items:
        if op == C.LITERAL:
            chars.add(chr(av))
        elif op == C.RANGE and av[1] - av[0] < _MAX_SET:
            chars.update(chr(code) for code in range(av[0], av[1] + 1))
        else:
            raise _NoFastPath
    return chars


def _first(items) -> tuple[set[str], bool]:
    """Literal strings one of which starts every match of a sequence (a run
    of literal characters is kept whole: `<tool_call>`, not `<`), and whether
    the sequence can match empty."""
    strings: set[str] = set()
    items = list(items)
    for index, (op, av) in enumerate(items):
        if op == C.LITERAL:
            run = []
            for next_op, next_av in items[index:]:
                if next_op != C.LITERAL:
                    break
                run.append(chr(next_av))
            strings.add("".join(run))
            return strings, False
        item_strings, nullable = _first_item(op, av)
        strings |= item_strings
        if not nullable:
            return strings, False
    return strings, True


def _first_item(op, av) -> tuple[set[str], bool]:
    if op == C.LITERAL:
        return {chr(av)}, False
    if op == C.IN:
        return _literal_chars(av), False
    if op == C.SUBPATTERN:
        _group, add_flags, del_flags, body = av
        if add_flags or del_flags:
            raise _NoFastPath
        return _first(body)
    if op == C.BRANCH:
        chars: set[str] = set()
        nullable = False
        for branch in av[1]:
            branch_chars, branch_nullable = _first(branch)
            chars |= branch_chars
            nullable = nullable or branch_nullable
        return chars, nullable
    if op in (C.MAX_REPEAT, getattr(C, "POSSESSIVE_REPEAT", C.MAX_REPEAT)):
        low, high, body = av
        if high == 0:
            return set(), True
        chars, nullable = _first(body)
        return chars, nullable or low == 0
    raise _NoFastPath  # anchors, lookarounds, ".", negated literals, backreferences


def _class_source(op, av) -> str:
    if op == C.LITERAL:
        return "[" + regex.escape(chr(av)) + "]"
    parts = []
    for item_op, item_av in av:
        if item_op == C.NEGATE:
            parts.insert(0, "^")
        elif item_op == C.LITERAL:
            parts.append(regex.escape(chr(item_av)))
        elif item_op == C.RANGE:
            parts.append(regex.escape(chr(item_av[0])) + "-" + regex.escape(chr(item_av[1])))
        elif item_op == C.CATEGORY and item_av in _CATEGORIES:
            parts.append(_CATEGORIES[item_av])
        else:
            raise _NoFastPath
    return "[" + "".join(parts) + "]"


def _lead(op, av) -> tuple[Lead, bool] | None:
    """The class of a leading single-character repeat, like `\\s*` or `\\n+`,
    and whether the repeat is unbounded."""
    if op != C.MAX_REPEAT:
        return None
    low, high, body = av
    if len(body) != 1 or body[0][0] not in (C.LITERAL, C.IN):
        return None
    source = _class_source(*body[0])
    compiled = regex.compile(source)
    lead = Lead(source, "".join(chr(code) for code in range(128) if compiled.fullmatch(chr(code))))
    return lead, high == C.MAXREPEAT, low == 0


def _parse(pattern: str):
    """The re parser's tree, or None when it might read the pattern differently."""
    if any(marker in pattern for marker in _UNSURE):
        return None
    try:
        parsed = sre_parse.parse(pattern)
    except Exception:  # noqa: BLE001 - syntax only the regex module knows
        return None
    if parsed.state.flags & ~_ALLOWED_FLAGS:
        return None
    return parsed


def _lookbehind_widths(items):
    for op, av in items:
        if op in (C.ASSERT, C.ASSERT_NOT):
            direction, body = av
            if direction < 0:
                yield body.getwidth()[1]
            yield from _lookbehind_widths(body)
        elif op == C.SUBPATTERN:
            yield from _lookbehind_widths(av[3])
        elif op == C.BRANCH:
            for branch in av[1]:
                yield from _lookbehind_widths(branch)
        elif op in (C.MAX_REPEAT, C.MIN_REPEAT, getattr(C, "POSSESSIVE_REPEAT", C.MAX_REPEAT)):
            yield from _lookbehind_widths(av[2])
        elif op == getattr(C, "ATOMIC_GROUP", None):
            yield from _lookbehind_widths(av)


def reach_back(pattern: str, ast=None) -> int:
    """Characters before the search position a match may read: the widest
    look-behind plus one (for ^, \\b and friends); -1 when unbounded or unsure.
    From the project's regex AST when there is one, else from the re parser."""
    if ast is not None:
        from .regex.analysis import lookbehind_width

        width = lookbehind_width(ast)
        return -1 if width is None else width + 1
    parsed = _parse(pattern)
    if parsed is None:
        return -1
    widest = max(_lookbehind_widths(list(parsed)), default=0)
    return -1 if widest >= C.MAXREPEAT else widest + 1


def _has_lazy_repeat(items) -> bool:
    for op, av in items:
        if op == C.MIN_REPEAT:
            return True
        children = []
        if op in (C.MAX_REPEAT, getattr(C, "POSSESSIVE_REPEAT", C.MAX_REPEAT)):
            children = [av[2]]
        elif op == C.SUBPATTERN:
            children = [av[3]]
        elif op == C.BRANCH:
            children = av[1]
        elif op in (C.ASSERT, C.ASSERT_NOT):
            children = [av[1]]
        if any(_has_lazy_repeat(child) for child in children):
            return True
    return False


def fast_path_of(delim: Delimiter) -> FastPath | None:
    """Trigger set and lead classes of one delimiter, or None when unsure."""
    if isinstance(delim, LiteralDelimiter):
        return FastPath(tuple(sorted(set(delim.literals))), ())
    parsed = _parse(delim.pattern)
    if parsed is None:
        return None
    items = list(parsed)
    if _has_lazy_repeat(items):
        # The regex module reports partial matches for lazy repeats that are
        # no prefix of any match (`\\s*?<a>` on " x"): no safe shortcut.
        return None
    # Leading look-arounds read nothing a match consumes: skipping them only
    # widens what we consider, which is safe for triggers and leads.
    skipped = False
    while items and items[0][0] in (C.ASSERT, C.ASSERT_NOT):
        items.pop(0)
        skipped = True
    leads: list[Lead] = []
    hold_lead = None
    optional_leads = True
    try:
        while items:
            found = _lead(*items[0])
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
    return FastPath(tuple(sorted(triggers)), tuple(leads), hold_lead, exact=exact)


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
