"""A vLLM plugin: serve any response template with a compiled parser.

    vllm serve MODEL \\
        --tool-parser-plugin compiler.integrations.vllm --enable-auto-tool-choice \\
        --tool-call-parser compiled_template --reasoning-parser compiled_template

Importing this module (what `--tool-parser-plugin` / `--reasoning-parser-plugin`
do) registers, as both a reasoning and a tool parser:

    compiled_template         the tokenizer's `response_template`, or the bundled
                              name / file in $RESPONSE_TEMPLATE_COMPILER_TEMPLATE
    compiled_template_<name>  the bundled template <name> (e.g. compiled_template_qwen3)

vLLM's manager composes the two into `CompiledTemplateParser` (its unified
parser interface, as for its own `response_template` parser). vLLM checks a
response-template parser's tokenizer with its own serving rules (only fields
named thinking/content/tool_calls, plain text), which refuse the templates this
plugin exists for; for the names above the check is this plugin's own: the
template must compile (the error names the JSON path), and fields vLLM's
message cannot carry are reported. Other parsers keep vLLM's check.
See docs/vllm.md.
"""

from __future__ import annotations

import functools

from ...frontend import source as sources
from .parser import CompiledReasoningParser, CompiledTemplateParser, CompiledToolParser, load

NAME = "compiled_template"

__all__ = ["NAME", "CompiledReasoningParser", "CompiledTemplateParser", "CompiledToolParser", "register"]


def _named_classes():
    """(name, reasoning class, tool class) for every registered name."""
    yield NAME, CompiledReasoningParser, CompiledToolParser
    for path in sources.bundled():
        attrs = {"template_spec": path.stem, "__module__": __name__}
        yield (
            f"{NAME}_{path.stem}",
            type(f"CompiledReasoningParser_{path.stem}", (CompiledReasoningParser,), attrs),
            type(f"CompiledToolParser_{path.stem}", (CompiledToolParser,), attrs),
        )


@functools.lru_cache(maxsize=None)
def register() -> None:
    """Register the parsers with vLLM's managers and take over vLLM's start-up check for them."""
    from vllm.parser import response_template
    from vllm.reasoning import ReasoningParserManager
    from vllm.tool_parsers import ToolParserManager

    for name, reasoning, tool in _named_classes():
        ReasoningParserManager.register_module(name, force=True, module=reasoning)
        ToolParserManager.register_module(name, force=True, module=tool)
    original = response_template.validate_tokenizer_response_template
    response_template.validate_tokenizer_response_template = functools.wraps(original)(
        functools.partial(_validate, original)
    )


def _ours(manager_get, name: str | None):
    try:
        cls = manager_get(name) if name else None
    except KeyError:
        return None
    return cls if isinstance(cls, type) and issubclass(cls, (CompiledReasoningParser, CompiledToolParser)) else None


def _validate(original, tokenizer, *, reasoning_parser, tool_parser) -> None:
    """vLLM's start-up check, or this plugin's for its own parser names."""
    from vllm.reasoning import ReasoningParserManager
    from vllm.tool_parsers import ToolParserManager

    selected = [
        _ours(ReasoningParserManager.get_reasoning_parser, reasoning_parser),
        _ours(ToolParserManager.get_tool_parser, tool_parser),
    ]
    if not any(selected):
        return original(tokenizer, reasoning_parser=reasoning_parser, tool_parser=tool_parser)
    specs = {cls.template_spec for cls in selected if cls is not None}
    flags = " ".join(
        f"{flag} {name}"
        for flag, name in (("--reasoning-parser", reasoning_parser), ("--tool-call-parser", tool_parser))
        if name
    )
    if len(specs) > 1:
        raise TypeError(f"{flags}: the two parsers name different templates")
    try:
        found = load(tokenizer, next(iter(specs)))
    except Exception as error:
        raise TypeError(f"{flags}: {error}") from error
    if reasoning_parser and not found.has_reasoning:
        raise TypeError(f"--reasoning-parser {reasoning_parser}: the template ({found.origin}) has no reasoning field")
    if tool_parser and not found.has_tools:
        raise TypeError(f"--tool-call-parser {tool_parser}: the template ({found.origin}) has no tool_calls field")


register()
