"""Pass: how much consumed text the parser keeps for its regex delimiters'
look-behinds, and which delimiter sets read nothing behind the read position."""

from __future__ import annotations

import dataclasses

from ..ir import Delimiter, Program, RegexDelimiter
from .fast_path import reads_behind


def reach_back_of(delims: list[Delimiter | None]) -> int:
    """How much consumed text these delimiters read behind the read
    position: 0 (no regex among them), k (the largest reach_back), or -1."""
    reaches = [d.reach_back for d in delims if isinstance(d, RegexDelimiter)]
    return -1 if -1 in reaches else max(reaches, default=0)


def blind(delims: list[Delimiter | None]) -> bool:
    """Whether these delimiters read nothing behind the read position
    (literals, and regexes without look-behinds or start anchors): a whole
    text that starts in such a state is searched without the context before it."""
    return not any(reads_behind(d.ast) for d in delims if isinstance(d, RegexDelimiter))


def plan_context(program: Program) -> Program:
    """How much consumed text the parser must keep for its regex delimiters
    (Program.context), and per state what its watched delimiters read
    behind the read position (State.reach, State.blind)."""
    states = tuple(
        dataclasses.replace(state, reach=reach_back_of(program.watched(state)), blind=blind(program.watched(state)))
        for state in program.states
    )
    context = reach_back_of([d for f in program.fields for d in (f.open, f.close)])
    return dataclasses.replace(program, context=context, states=states)
