"""Stage 3: pure passes over the IR. Each takes a Program and returns a new one."""

from __future__ import annotations

import dataclasses

from .analysis import fast_path_of, merge_fast_paths, reads_behind
from .ir import CLOSE, OPEN, Delimiter, LiteralDelimiter, Program, RegexDelimiter, State, Watch

# Characters that make a regex more than a plain literal.
_META = set(".^$*+?{}[]|()")
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "f": "\f", "v": "\v"}


def literal_of_pattern(pattern: str) -> str | None:
    """The literal text a regex matches when it is nothing but a literal
    (`<\\|im_end\\|>` -> `<|im_end|>`), else None."""
    out = []
    chars = iter(pattern)
    for char in chars:
        if char == "\\":
            escaped = next(chars, None)
            if escaped is None:
                return None
            if escaped in _ESCAPES:
                out.append(_ESCAPES[escaped])
            elif escaped.isascii() and not escaped.isalnum():
                out.append(escaped)
            else:
                return None
        elif char in _META:
            return None
        else:
            out.append(char)
    return "".join(out) or None


def _literalize(delim: Delimiter | None) -> Delimiter | None:
    if not isinstance(delim, RegexDelimiter):
        return delim
    literal = literal_of_pattern(delim.pattern)
    if literal is None:
        return delim
    # Still a regex for the semantics: a complete match at the edge may grow.
    return LiteralDelimiter(delim.path, (literal,), grows_at_edge=True, from_pattern=True)


def literalize_patterns(program: Program) -> Program:
    """Regex delimiters that are plain literals are searched as literals."""
    fields = tuple(
        dataclasses.replace(field, open=_literalize(field.open), close=_literalize(field.close))
        for field in program.fields
    )
    return dataclasses.replace(program, fields=fields, start_anchor=_literalize(program.start_anchor))


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
    """How much consumed text the parser must keep for its regex delimiters."""
    return dataclasses.replace(program, context=reach_back_of([d for f in program.fields for d in (f.open, f.close)]))


def _hinted(delim: Delimiter | None) -> Delimiter | None:
    if isinstance(delim, RegexDelimiter):
        return dataclasses.replace(delim, hint=fast_path_of(delim))
    return delim


def plan_search_hints(program: Program) -> Program:
    """Regex delimiters learn where a match can start (see analysis.py)."""
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


PIPELINE = (literalize_patterns, plan_search_hints, plan_states, plan_context, plan_fast_paths)


def run_passes(program: Program) -> Program:
    for step in PIPELINE:
        program = step(program)
    return program
