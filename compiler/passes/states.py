"""Pass: the parser's states and what each watches (SPEC, step 1)."""

from __future__ import annotations

import dataclasses

from ..ir import CLOSE, OPEN, LiteralDelimiter, Program, State, Watch


def plan_states(program: Program) -> Program:
    """The watch set of every parser state (SPEC, step 1)."""
    implicit_watch = [Watch(OPEN, f.index) for f in program.fields if f.open is not None]
    if program.implicit is not None and program.fields[program.implicit].close is not None:
        implicit_watch.append(Watch(CLOSE, program.implicit))
    states = [State(None, tuple(implicit_watch), tie_order=tie_order(program, implicit_watch))]
    for field in program.fields:
        if field.open is not None:
            watch = (Watch(CLOSE, field.index),) if field.close is not None else ()
            states.append(State(field.index, watch, tie_order=tuple(range(len(watch)))))
    return dataclasses.replace(
        program,
        states=tuple(states),
        anchor_from_end=anchor_from_end(program),
        anchors_from_end=anchors_from_end(program),
    )


def anchor_from_end(program: Program) -> bool:
    """Whether the start anchor is one literal whose last match is its rfind
    (`_last_match_is_an_rfind` of one literal: it has no border, so its
    occurrences never overlap and the reference's scan ends at the last)."""
    anchor = program.start_anchor
    if not isinstance(anchor, LiteralDelimiter) or len(anchor.literals) != 1:
        return False
    return _last_match_is_an_rfind(anchor.literals)


def anchors_from_end(program: Program) -> bool:
    """Whether the start anchor is several literals whose last match starts
    at the greatest of their rfinds (`_last_match_is_an_rfind`)."""
    anchor = program.start_anchor
    if not isinstance(anchor, LiteralDelimiter) or len(anchor.literals) < 2 or not all(anchor.literals):
        return False
    return _last_match_is_an_rfind(anchor.literals)


def _last_match_is_an_rfind(literals) -> bool:
    """No literal B starts at an offset k > 0 inside an occurrence of a
    literal A (A[k:] and B agree on their common length; for one literal,
    it has no proper prefix that is also a suffix), so no occurrence is ever
    covered by a match the reference's left-to-right scan takes, and every
    occurrence starts one (the longest literal at a start wins, as
    Literals.find takes it)."""
    for a in literals:
        for b in literals:
            for k in range(1, len(a)):
                common = min(len(a) - k, len(b))
                if a[k : k + common] == b[:common]:
                    return False
    return True


def tie_order(program: Program, watch) -> tuple[int, ...]:
    """The watch entries in the order the reference breaks a tie between
    matches of the same start and length (SPEC, step 3): opens before
    closes, then by field name."""
    names = [field.name for field in program.fields]
    return tuple(
        sorted(range(len(watch)), key=lambda i: (0 if watch[i].kind == OPEN else 1, names[watch[i].field]))
    )
