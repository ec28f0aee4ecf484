"""Pass: regex delimiters that are nothing but a literal become literal
delimiters, searched with str.find instead of a regex engine."""

from __future__ import annotations

import dataclasses

from ..ir import Delimiter, LiteralDelimiter, Program, RegexDelimiter

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
