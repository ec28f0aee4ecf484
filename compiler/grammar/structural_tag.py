"""The JSON structural tag of xgrammar, vLLM and SGLang: one
`{begin, schema, end}` per tool and the `triggers` that start them.

It only says what a call looks like once its trigger appears; the rest of
the output is free. So the call must be: a literal begin (the open with the
tool's name, plus any fixed JSON before the arguments), the arguments as
one JSON object, and a literal end. Other shapes get an error naming the field.
"""

from __future__ import annotations

import json

from ..ir import LiteralDelimiter
from ..regex.nodes import Look
from . import model as m
from . import regexconv as rc
from .build import Builder


def _literal(node: m.Node | None) -> str | None:
    """The one string a node matches, or None."""
    if node is None:
        return None
    if isinstance(node, m.Lit):
        return node.text
    if isinstance(node, m.Seq):
        parts = [_literal(item) for item in node.items]
        return None if any(p is None for p in parts) else "".join(parts)
    if isinstance(node, m.Rep) and node.min == node.max:
        inner = _literal(node.body)
        return None if inner is None else inner * node.min
    if isinstance(node, m.Rep) and node.max == 0:
        return ""
    return None


def _canonical(node: m.Node | None) -> str | None:
    """A single canonical string for a delimiter: optional parts left out, whitespace runs dropped."""
    if node is None:
        return None
    if isinstance(node, m.Lit):
        return node.text
    if isinstance(node, m.Seq):
        parts = [_canonical(item) for item in node.items]
        return None if any(p is None for p in parts) else "".join(parts)
    if isinstance(node, m.Rep) and node.min == 0:
        return ""
    if isinstance(node, m.Alt):
        literal = [c for c in (_canonical(item) for item in node.items) if c is not None]
        return literal[0] if literal else None
    return _literal(node)


def structural_tag(builder: Builder) -> dict:
    builder.classify()
    field = builder.tool_field
    if field is None:
        raise m.GrammarError("fields", "no tool-call field: a structural tag describes tool calls")
    b = builder.binding
    if field.content != "json":
        raise m.GrammarError(field.path + ".content", f"{field.content!r} bodies are not one JSON object")
    if b.each:
        raise m.GrammarError(field.path + ".transform_each", "calls inside one JSON list cannot be tagged one by one")
    args = json.loads(field.content_args_json) or {}
    if args.get("string_delims") or args.get("unquoted_keys"):
        raise m.GrammarError(field.path + ".content_args", "a JSON dialect (string_delims / unquoted_keys) is not JSON")
    if field.close is None:
        raise m.GrammarError(field.path, "a call without a close runs to the end of the output")
    if b.args[0] != "content":
        raise m.GrammarError(field.path + ".transform", "arguments must come from the body")
    low, high = builder.call_counts()
    tools = builder.active_tools() if high != 0 else []
    found = builder.split(field.open)
    if found and not isinstance(field.open, LiteralDelimiter):
        found = [s for branch in rc.variants(builder.ast(field.open)) for s in (rc.splits(branch) or [])]
    if found:  # a trigger is searched in free text: not one only at the start or after a given character
        found = [
            s for s in found
            if not s.start_only and not any(isinstance(item, Look) and item.behind and not item.negative for item in s.pre)
        ]
    if not found:
        raise m.GrammarError(field.open.path, "no literal trigger starts every match of the open")
    structures = []
    triggers = sorted({s.trigger for s in found})
    for tool in tools:
        groups = builder.open_for(tool, field.open)
        opens = []
        for s in found:
            post = rc.to_node(rc.Concat(s.post), groups)
            text = _canonical(post)
            if text is not None:
                opens.append(s.trigger + text)
        if not opens:
            raise m.GrammarError(field.open.path, f"the open for {tool.name!r} is not one literal string")
        close = builder.close_for(field, "}", None)
        close_text = _canonical(builder.full(field.close)) if close is None else _canonical(close)
        if close_text is None:
            raise m.GrammarError(field.close.path, "the close is not one literal string")
        name_path, args_path = b.name[1], b.args[1]
        begin, end = opens[0], close_text
        if b.name[0] == "content":
            # The body holds the name: write it before the arguments.
            if len(name_path) != len(args_path) or name_path[:-1] != args_path[:-1]:
                raise m.GrammarError(field.path + ".transform", "the name and the arguments are not siblings in the body")
            for key in name_path[:-1]:
                begin += "{" + json.dumps(key) + ": "
                end = "}" + end
            begin += "{" + json.dumps(name_path[-1]) + ": " + json.dumps(tool.name, ensure_ascii=False) + ", " + json.dumps(args_path[-1]) + ": "
            end = "}" + end
        else:
            for key in args_path:
                begin += "{" + json.dumps(key) + ": "
                end = "}" + end
        structures.append({"begin": begin, "schema": tool.parameters, "end": end})
    if not structures:
        raise m.GrammarError("tools", "no tools to describe")
    # Only triggers that start a begin (a later call's open written after a
    # `,` is not a begin of its own: the tag writes one call per trigger).
    triggers = [t for t in triggers if any(s["begin"].startswith(t) for s in structures)]
    return {"type": "structural_tag", "structures": structures, "triggers": triggers}
