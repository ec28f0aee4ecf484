"""Pass: how the whole-text parse searches each regex delimiter
(RegexDelimiter.whole), read off the search hints as the runtime's
`Pattern` reads them (runtime/delimiters.py: its constructor's `exact` and
`simple`, `search` and `_starts` with partial matching off), so the Python
backend can render that search as straight-line code: str.find per trigger
string, the lead run before it, the regex only at the start of that run."""

from __future__ import annotations

import dataclasses

from ..ir import Delimiter, Program, RegexDelimiter, WholeSearch


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
        return WholeSearch(None, "", False, False, False)  # compiled.search over the text
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
    return WholeSearch(triggers, _ascii(leads), bool(leads), literal, one_start)


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
