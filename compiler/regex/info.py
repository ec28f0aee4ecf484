"""`analyze(ast) -> RegexInfo`: every fact about one delimiter regex in one
frozen record, gathered from analysis.py (lengths, first characters, groups,
risks) and emit.py (what JavaScript and Go refuse). Its own module so that
analysis.py and emit.py, which emit.py builds on, import no circle."""

from __future__ import annotations

from dataclasses import dataclass

from .analysis import (
    LITERAL,
    LITERAL_SET,
    REGEX,
    _longest_first,
    backtracking_risk,
    first_set,
    group_names,
    has_anchors,
    has_lazy,
    has_lookaround,
    literal_strings,
    lookbehind_width,
    max_length,
    min_length,
    nullable,
    regex_module_quirk,
)
from .charset import CharSet
from .emit import go_problems, js_problems
from .nodes import Node, Regex, root_of


@dataclass(frozen=True)
class RegexInfo:
    delimiter_kind: str  # LITERAL: one string; LITERAL_SET: a finite set of strings; REGEX
    # LITERAL/LITERAL_SET: the strings in the regex's priority order (the
    # order leftmost-first matching tries them at one start); () for REGEX.
    literals: tuple[str, ...]
    # LITERAL_SET: searching the literals longest first (the IR's literal
    # search) finds what the regex finds, i.e. whenever one literal is a
    # prefix of another, the longer one has priority.
    longest_first: bool
    first_chars: CharSet | None  # first character of every match; None: any (or the empty match)
    min_length: int
    max_length: int | None  # None: unbounded
    can_match_empty: bool
    group_names: tuple[str, ...]  # named groups, first occurrence order, no duplicates
    lookbehind_width: int | None  # characters read before a match start; None: unbounded
    has_lookaround: bool
    has_lazy: bool
    has_anchors: bool  # ^ $ \A \Z \b \B
    backtracking_risk: str | None  # why a backtracking engine may blow up on it, or None
    regex_module_quirk: str | None  # the reference engine misreads it (see regex_module_quirk)
    js_problems: tuple[str, ...]  # why emit.to_js refuses it ((): it does not)
    go_problems: tuple[str, ...]  # why emit.to_go refuses it


def analyze(ast: Regex | Node) -> RegexInfo:
    root = root_of(ast)
    strings = literal_strings(root)
    kind = REGEX if strings is None else LITERAL if len(strings) == 1 else LITERAL_SET
    empty = nullable(root)
    first = None if empty else first_set(root)
    if first is not None and first.is_full():
        first = None
    return RegexInfo(
        delimiter_kind=kind,
        literals=strings or (),
        longest_first=strings is not None and _longest_first(strings),
        first_chars=first,
        min_length=min_length(root),
        max_length=max_length(root),
        can_match_empty=empty,
        group_names=group_names(root),
        lookbehind_width=lookbehind_width(root),
        has_lookaround=has_lookaround(root),
        has_lazy=has_lazy(root),
        has_anchors=has_anchors(root),
        backtracking_risk=backtracking_risk(root),
        regex_module_quirk=regex_module_quirk(root),
        js_problems=js_problems(root),
        go_problems=go_problems(root),
    )
