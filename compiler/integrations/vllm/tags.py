"""The structural tag a request's tool options ask for, from the template.

The compiler's structural tag (compiler/grammar/structural_tag.py) gives one
`{begin, schema, end}` per tool and the triggers that start them. vLLM passes
a structural tag to xgrammar; xgrammar's `triggered_tags` format adds what the
request options need:

    option                  tags            at_least_one  stop_after_first
    strict tools (auto)     every tool      no            no
    tool_choice="required"  every tool      yes           no
    named tool choice       that tool       yes           yes
    parallel_tool_calls=F   (as above)      (as above)    yes

A non-strict tool in a strict request keeps its name and call envelope but
any JSON object as arguments. With `at_least_one` the text after reasoning
starts with a call (as vLLM's own required/named paths do).

Templates whose calls have no structural tag (xml-inline bodies, a list of
calls, a name inside a pattern) get the compiler's EBNF grammar of the whole
output instead (`grammar`), from the prompt's state on, when xgrammar parses it.
"""

from __future__ import annotations

import json

from ...frontend import source as sources
from ...grammar import GrammarError, grammar_for_source

ANY_OBJECT = {"type": "object"}


def structural_tag(
    template: dict, tools: list, *, strict: set, required: bool, named: str | None, parallel: bool
) -> dict:
    """The xgrammar structural tag (a dict) for these request options. Raises GrammarError
    (naming the template field) when the template's calls cannot be tagged."""
    if named is not None:
        tools = [tool for tool in tools if _name(tool) == named]
        if not tools:
            raise GrammarError("tool_choice", f"no tool named {named!r} among the request's tools")
    source = sources.from_dict(template, "template")
    legacy = json.loads(grammar_for_source(source, tools, format="structural-tag"))
    constrain_all = required or named is not None or not strict
    tags = []
    for structure, tool in zip(legacy["structures"], tools):
        schema = structure["schema"] if constrain_all or _name(tool) in strict else ANY_OBJECT
        tags.append(
            {
                "type": "tag",
                "begin": structure["begin"],
                "content": {"type": "json_schema", "json_schema": schema},
                "end": structure["end"],
            }
        )
    return {
        "type": "structural_tag",
        "format": {
            "type": "triggered_tags",
            "triggers": legacy["triggers"],
            "tags": tags,
            "at_least_one": required or named is not None,
            "stop_after_first": named is not None or not parallel,
        },
    }


def grammar(template: dict, tools: list, *, prefix: str, required: bool, named: str | None, parallel: bool) -> str:
    """The xgrammar EBNF grammar of the whole output after `prefix`. Raises GrammarError,
    or ValueError when xgrammar cannot parse it."""
    import xgrammar

    source = sources.from_dict(template, "template")
    choice = named if named is not None else "required" if required else "auto"
    single = not parallel or named is not None  # a named tool choice is one call, as in vLLM
    text = grammar_for_source(source, tools, format="ebnf", prefix=prefix, tool_choice=choice, parallel=not single)
    try:
        xgrammar.Grammar.from_ebnf(text)
    except Exception as error:  # xgrammar's parser error (a RuntimeError) names the rule
        raise ValueError(f"xgrammar cannot parse the template's EBNF grammar: {str(error).strip()}") from error
    return text


def _name(tool: dict) -> str | None:
    function = tool.get("function", tool)
    return function.get("name") if isinstance(function, dict) else None
