"""Passes: where a regex delimiter's match can start (its trigger strings
and lead classes, from fast_path.py's analysis) and which literals a match
needs, and per state the trigger characters that let most text skip the
regex engine."""

from __future__ import annotations

import dataclasses

from ..ir import Delimiter, Program, RegexDelimiter
from ..regex.analysis import closing_literals
from .fast_path import fast_path_of, merge_fast_paths


def _hinted(delim: Delimiter | None) -> Delimiter | None:
    if isinstance(delim, RegexDelimiter):
        ends = closing_literals(delim.ast) if delim.ast is not None else ()
        return dataclasses.replace(delim, hint=fast_path_of(delim), ends=ends)
    return delim


def plan_search_hints(program: Program) -> Program:
    """Regex delimiters learn where a match can start (see fast_path.py)
    and the literals every match consumes."""
    fields = tuple(
        dataclasses.replace(field, open=_hinted(field.open), close=_hinted(field.close)) for field in program.fields
    )
    return dataclasses.replace(program, fields=fields)


def plan_fast_paths(program: Program) -> Program:
    """Trigger characters per state, so most text skips the regex engine."""
    if program.context < 0:
        return program  # look-behind needs every character kept: no skipping
    states = []
    for state in program.states:
        delims = program.watched(state)
        states.append(dataclasses.replace(state, fast=merge_fast_paths([fast_path_of(d) for d in delims])))
    return dataclasses.replace(program, states=tuple(states))
