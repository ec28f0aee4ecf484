"""Pass: how the whole-text parse searches each regex delimiter
(RegexDelimiter.whole), read off the search hints as the runtime's
`Pattern` reads them (runtime/delimiters.py: its constructor's `exact` and
`simple`, `search` and `_starts` with partial matching off), so the Python
backend can render that search as straight-line code: str.find per trigger
string, the lead run before it, the regex only at the start of that run."""

from __future__ import annotations

import dataclasses

from ..ir import Delimiter, Program, RegexDelimiter, WholeSearch
from .branches import _behind_branch, _distribute
from .fast_path import _items, _NoFastPath


def _ascii(leads) -> str:
    return "".join(sorted({char for lead in leads for char in lead.ascii}))


def whole_search_of(delim: RegexDelimiter) -> WholeSearch | None:
    """The search `Pattern.search(buf, pos, False)` runs for `delim` as the
    Python backend constructs its Pattern, or None where it is not one of
    the forms rendered inline (a first lead among other lead classes)."""
    hint = delim.hint
    if hint is not None:
        triggers, leads, first_lead = tuple(hint.triggers), tuple(hint.leads), hint.hold_lead
        # Pattern.__init__: exact needs the leads to be the first lead alone; simple needs exact
        exact = hint.exact and (not leads or leads == (first_lead,))
        literal = hint.simple and exact
    elif delim.branches is not None and not delim.branches.behind:
        triggers, leads, first_lead, literal = tuple(delim.branches.triggers), tuple(delim.branches.leads), None, False
    else:
        # compiled.search over the text, tried only after the look-behinds' last characters where all start with one
        return WholeSearch(None, "", (), False, False, _behind_only(delim))
    if any(not trigger for trigger in triggers):
        return None
    if not leads:
        one_start = True  # no lead run: the trigger's own position only
    elif first_lead is None:
        one_start = False  # Pattern._starts: every position of the run
    elif leads == (first_lead,):
        one_start = True  # the run is all of the first lead: its start only
    else:
        return None  # Pattern._starts decides per run
    return WholeSearch(triggers, _ascii(leads), leads, literal, one_start)


def _behind_only(delim: RegexDelimiter) -> tuple[str, ...]:
    """The last characters of the look-behinds every alternative of a
    pattern read by its look-behinds (BranchHint.behind) starts with, or ()
    when one does not start with one (compiler/passes/branches.py reads them)."""
    if delim.branches is None or not delim.branches.behind or delim.ast is None:
        return ()
    chars: set[str] = set()
    try:
        for sequence in _distribute(_items(delim.ast.body)):
            chars.update(_behind_branch(sequence).behind)  # raises unless it starts with such a look-behind
    except _NoFastPath:
        return ()
    return tuple(sorted(chars))


def _planned(delim: Delimiter | None) -> Delimiter | None:
    if isinstance(delim, RegexDelimiter):
        return dataclasses.replace(delim, whole=whole_search_of(delim))
    return delim


def plan_whole_search(program: Program) -> Program:
    """Regex delimiters learn how the whole-text parse searches them."""
    fields = tuple(
        dataclasses.replace(field, open=_planned(field.open), close=_planned(field.close))
        for field in program.fields
    )
    return dataclasses.replace(program, fields=fields)
