"""Errors of the regex package: syntax errors point at the pattern with a caret."""

from __future__ import annotations

import unicodedata

_SHOWN = {"\n": "\\n", "\t": "\\t", "\r": "\\r", "\f": "\\f", "\v": "\\v"}


def _display(char: str) -> str:
    if char in _SHOWN:
        return _SHOWN[char]
    if not char.isprintable():
        return f"\\x{ord(char):02x}" if ord(char) < 0x100 else f"\\u{ord(char):04x}"
    return char


def _width(text: str) -> int:
    """Terminal columns of `text` (CJK wide characters take two)."""
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 0 if unicodedata.combining(c) else 1 for c in text)


def caret_lines(pattern: str, pos: int, indent: str = "  ") -> str:
    """The pattern on one line (control characters escaped) and a caret under `pos`."""
    shown = [_display(c) for c in pattern]
    column = _width("".join(shown[:pos]))
    return f"{indent}{''.join(shown)}\n{indent}{' ' * column}^"


class RegexSyntaxError(ValueError):
    """A pattern the parser rejects: invalid, or valid for the `regex` module
    but outside the dialect this project supports ("unsupported: ...")."""

    def __init__(self, msg: str, pattern: str, pos: int):
        self.msg = msg
        self.pattern = pattern
        self.pos = pos
        super().__init__(f"{msg} at position {pos}")

    @property
    def unsupported(self) -> bool:
        """True for valid `regex` syntax that this project does not handle."""
        return self.msg.startswith("unsupported:")

    def __str__(self) -> str:
        return f"{self.msg} at position {self.pos}\n{caret_lines(self.pattern, self.pos)}"


class UnsupportedPattern(ValueError):
    """A well-formed pattern that one back end (the automaton, JavaScript, Go)
    cannot express exactly; callers fall back or report it with a field path."""

    def __init__(self, reason: str):
        self.reason = reason
        super().__init__(reason)
