"""What `--vendor` inlines into a Python parser: the runtime modules its
template needs, as one block of code.

The runtime (runtime/*.py) is split by concern, and each module imports
only the standard library and the modules before it in RUNTIME_ORDER, so
the modules concatenate in that order into one namespace once their
`from runtime... import` lines are dropped. Which ones a template needs is
read off the IR:

- markup: only when a field's content parser is xml-inline or kv-lines, or
  json with a dialect rewrite (its content and content_args);
- always: values, delimiters, stream, whole (the driver and
  `parse_response`) and recover (`recover=True` is chosen at run time, so
  every parser keeps it);
- settled: only when a delimiter has `settled` patterns (RegexDelimiter.settled);
- cut: only when the template has a ContextCut (Program.context_cut).

The inlined copy is the runtime's code without its docstrings and comment
lines: they explain the design, are the same for every template, and stay
in runtime/*.py (docs/runtime.md), which the module's header names with the
compiler version. Stripping is a function of the source alone (ast and
tokenize), so the code that runs is the code the tests run.
"""

from __future__ import annotations

import ast
import functools
import importlib.util
import io
import json
import re
import tokenize
from pathlib import Path

import black

from ...ir import LiteralDelimiter, Program

# The runtime's own line length (pyproject.toml).
VENDOR_MODE = black.Mode(line_length=120, target_versions={black.TargetVersion.PY39})

RUNTIME_ORDER = ("values", "markup", "delimiters", "settled", "cut", "stream", "whole", "recover")
_RUNTIME_IMPORT = re.compile(r"(?m)^from runtime\.\w+ import (?:\((?:.|\n)*?\)|.*)\n")
_STDLIB_IMPORT = re.compile(r"(?m)^(?:import \w+|from [\w.]+ import [\w, ]+)\n")


def runtime_modules(program: Program) -> tuple[str, ...]:
    """The runtime modules a vendored parser for `program` inlines, in order."""
    delimiters = [program.start_anchor] + [d for f in program.fields for d in (f.open, f.close) if d is not None]
    settled = any(not isinstance(d, LiteralDelimiter) and getattr(d, "settled", None) is not None for d in delimiters)
    skip = set()
    if not any(_uses_markup(field.content, json.loads(field.content_args_json)) for field in program.fields):
        skip.add("markup")
    if not settled:
        skip.add("settled")
    if program.context_cut is None:
        skip.add("cut")
    return tuple(name for name in RUNTIME_ORDER if name not in skip)


def _uses_markup(content, args) -> bool:
    """Whether a field's content parser is one of runtime/markup.py's:
    xml-inline, kv-lines (with their value parsers), or json with a dialect
    rewrite (args that are no object are read at the close: kept too)."""
    if content in ("xml-inline", "kv-lines") or not isinstance(args, dict):
        return True
    return content == "json" and bool(args.get("string_delims") or args.get("unquoted_keys", False))


def _source(name: str) -> str:
    return Path(importlib.util.find_spec(f"runtime.{name}").origin).read_text(encoding="utf-8")


def strip_documentation(source: str) -> str:
    """`source` without its docstrings and comment-only lines (a body that
    was only a docstring becomes `pass`); black then settles the blank lines."""
    tree = ast.parse(source)
    lines = source.split("\n")
    drop: set[int] = set()  # 0-based line numbers
    replace: dict[int, str] = {}
    for node in ast.walk(tree):
        if not isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) or not node.body:
            continue
        first = node.body[0]
        if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
            rows = range(first.lineno - 1, first.end_lineno)
            if len(node.body) == 1:
                replace[rows[0]] = " " * first.col_offset + "pass"
                rows = rows[1:]
            drop.update(rows)
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.COMMENT and not lines[token.start[0] - 1][: token.start[1]].strip():
            drop.add(token.start[0] - 1)
    out: list[str] = []
    for number, line in enumerate(lines):
        if number in replace:
            out.append(replace[number])
            continue
        if number in drop:
            continue
        out.append(line)
    return "\n".join(out).strip("\n") + "\n"


def vendored_runtime(program: Program) -> str:
    """The runtime modules `program` needs, stripped (strip_documentation),
    their standard-library imports first, as one block of code."""
    return _inlined(runtime_modules(program))


@functools.lru_cache(maxsize=None)
def _inlined(modules: tuple[str, ...]) -> str:
    imports: list[str] = []
    bodies: list[str] = []
    for name in modules:
        code = _RUNTIME_IMPORT.sub("", strip_documentation(_source(name)))
        for line in _STDLIB_IMPORT.findall(code):
            if line not in imports:
                imports.append(line)
        code = _STDLIB_IMPORT.sub("", code).strip("\n")
        bodies.append(f"# -- runtime/{name}.py\n{code}")
    code = "".join(imports) + "\n\n" + "\n\n\n".join(bodies) + "\n"
    return black.format_str(code, mode=VENDOR_MODE)
