"""Delimiter regexes understood by the compiler.

- syntax.py: `parse(pattern) -> Regex` (the AST of nodes.py, part of the
  IR) and `to_source(ast)`; `RegexSyntaxError` with a caret otherwise.
- analysis.py: the analyses; info.py: `analyze(ast) -> RegexInfo` (literal or not, first
  characters, lengths, groups, lookbehind reach, risks, target problems).
- automaton.py: `compile_automaton(ast) -> Automaton`, plain tables whose
  `search(text, pos, partial)` gives the `regex` module's partial search.
- emit.py: `to_python`, `to_js`, `to_go` (or `UnsupportedPattern`).
"""

from .info import RegexInfo, analyze
from .automaton import Automaton, compile_automaton
from .charset import CharSet
from .emit import to_go, to_js, to_python
from .errors import RegexSyntaxError, UnsupportedPattern
from .nodes import Regex
from .syntax import parse, to_source

__all__ = [
    "Automaton",
    "CharSet",
    "Regex",
    "RegexInfo",
    "RegexSyntaxError",
    "UnsupportedPattern",
    "analyze",
    "compile_automaton",
    "parse",
    "to_go",
    "to_js",
    "to_python",
    "to_source",
]
