"""Pass: the parser's states and what each watches (SPEC, step 1)."""

from __future__ import annotations

import dataclasses

from ..ir import CLOSE, OPEN, Program, State, Watch


def plan_states(program: Program) -> Program:
    """The watch set of every parser state (SPEC, step 1)."""
    implicit_watch = [Watch(OPEN, f.index) for f in program.fields if f.open is not None]
    if program.implicit is not None and program.fields[program.implicit].close is not None:
        implicit_watch.append(Watch(CLOSE, program.implicit))
    states = [State(None, tuple(implicit_watch))]
    for field in program.fields:
        if field.open is not None:
            states.append(State(field.index, (Watch(CLOSE, field.index),) if field.close is not None else ()))
    return dataclasses.replace(program, states=tuple(states))
