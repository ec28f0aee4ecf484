"""Grammars for constrained decoding, from the same template the parser is
compiled from: `grammar(template, tools, format=...)`.

    build.py           template IR + tools + options -> model.py grammar
    lark.py            llguidance's Lark (JSON schemas embedded)
    gbnf.py            llama.cpp GBNF and xgrammar EBNF (schemas expanded)
    structural_tag.py  the {begin, schema, end} tag of xgrammar/vLLM/SGLang
"""

from __future__ import annotations

import json
import sys
import types

from .build import REASONING, TOOL_CHOICES, Builder, Options, normalize_tools
from .model import GrammarError

FORMATS = ("structural-tag", "lark", "gbnf", "ebnf")

__all__ = ["FORMATS", "GrammarError", "grammar", "grammar_for_source"]


def grammar_for_source(source, tools=None, *, format="lark", prefix="", tool_choice="auto", parallel=True, reasoning="allow") -> str:
    from ..pipeline import to_program

    if format not in FORMATS:
        raise GrammarError("format", f"unknown format {format!r} (one of: {', '.join(FORMATS)})")
    if reasoning not in REASONING:
        raise GrammarError("reasoning", f"one of {', '.join(REASONING)}")
    if not isinstance(tool_choice, str):
        raise GrammarError("tool_choice", "a string: auto, required, none or a tool name")
    if prefix is None:
        raise GrammarError("prefix", "required ('' opts out)")
    options = Options(prefix, tool_choice, bool(parallel), reasoning)
    builder = Builder(to_program(source), source.template, normalize_tools(tools), options, format)
    if format == "structural-tag":
        from .structural_tag import structural_tag

        return json.dumps(structural_tag(builder), ensure_ascii=False, indent=2) + "\n"
    built = builder.build()
    built.notes = [
        f"{format} grammar for response template '{source.name}' (python -m compiler grammar)",
        f"tools: {', '.join(t.name for t in builder.tools) or 'none'}; tool_choice={tool_choice} "
        f"parallel={bool(parallel)} reasoning={reasoning}; prefix sha-1 {_digest(prefix)}",
    ] + built.notes
    if format == "lark":
        from .lark import LarkPrinter

        return LarkPrinter(built).render()
    from .gbnf import GbnfPrinter

    return GbnfPrinter(built, format).render()


def grammar_model(template, tools=None, *, format="gbnf", **options):
    """The format-independent grammar (model.py) behind `grammar`, for tests and tools."""
    from ..frontend import source as sources
    from ..pipeline import to_program

    source = sources.from_dict(template) if isinstance(template, dict) else sources.read(str(template))
    opts = Options(options.get("prefix", ""), options.get("tool_choice", "auto"), options.get("parallel", True), options.get("reasoning", "allow"))
    return Builder(to_program(source), source.template, normalize_tools(tools), opts, format).build()


def _digest(text: str) -> str:
    import hashlib

    return hashlib.sha1(text.encode("utf-8")).hexdigest()[:12] if text else "(none)"


def grammar(template, tools=None, *, format="lark", prefix="", tool_choice="auto", parallel=True, reasoning="allow") -> str:
    """The grammar of what a model may write for `template` (a dict, a path
    or a bundled name) and `tools` (OpenAI tool dicts)."""
    from ..frontend import source as sources

    source = sources.from_dict(template) if isinstance(template, dict) else sources.read(str(template))
    return grammar_for_source(
        source, tools, format=format, prefix=prefix, tool_choice=tool_choice, parallel=parallel, reasoning=reasoning
    )


class _CallableModule(types.ModuleType):
    """`compiler.grammar(...)` is the documented call, and `compiler.grammar` is
    also this package: once the package is imported, Python binds the name to
    it, so the package calls `grammar` when called."""

    def __call__(self, *args, **kwargs):
        return grammar(*args, **kwargs)


sys.modules[__name__].__class__ = _CallableModule
