"""Stage 2: lower a checked template to the IR (see ir.py)."""

from __future__ import annotations

import json

from ..passes.fast_path import reach_back
from ..regex import RegexSyntaxError, parse
from .check import PLACEHOLDER, CheckedDelimiter, CheckedTemplate
from ..ir import Field, LiteralDelimiter, Program, RegexDelimiter, TDict, TList, TLiteral, TPlaceholder, Transform, json_text


def _delimiter(checked: CheckedDelimiter | None):
    if checked is None:
        return None
    if checked.literals is not None:
        literals = checked.literals
        # The reference builds "lit1|lit2|..." sorted longest first (a stable sort).
        ordered = tuple(sorted(literals, key=len, reverse=True))
        can_extend = any(a != b and a.startswith(b) for a in literals for b in literals)
        return LiteralDelimiter(checked.path, ordered, grows_at_edge=can_extend)
    pattern = checked.pattern
    try:
        ast = parse(pattern)
    except RegexSyntaxError:
        ast = None  # outside the project's grammar: `check` reports it with a caret
    return RegexDelimiter(checked.path, pattern, checked.group_names, reach_back(ast), ast=ast)


def lower_transform(value: object) -> Transform:
    if isinstance(value, dict):
        return TDict(tuple((key, lower_transform(item)) for key, item in value.items()))
    if isinstance(value, list):
        return TList(tuple(lower_transform(item) for item in value))
    if isinstance(value, str):
        whole = PLACEHOLDER.fullmatch(value)
        if whole:
            return TPlaceholder(whole.group(1))
    return TLiteral(json_text(value))


def lower(checked: CheckedTemplate) -> Program:
    fields = tuple(
        Field(
            index=index,
            name=field.name,
            path=field.path,
            open=_delimiter(field.open),
            close=_delimiter(field.close),
            content=field.content,
            content_args_json=json_text(field.content_args),
            repeats=field.repeats,
            join=field.join,
            optional=field.optional,
            transform=None if field.transform is None else lower_transform(field.transform),
            transform_each=field.transform_each,
        )
        for index, field in enumerate(checked.fields)
    )
    implicit = next((f.index for f in fields if f.name == checked.implicit), None)
    return Program(
        name=checked.source.name,
        origin=checked.source.origin,
        sha256=checked.source.sha256,
        template_json=json.dumps(checked.source.template, ensure_ascii=False, separators=(", ", ": ")),
        defaults_json=json_text(checked.defaults),
        fields=fields,
        implicit=implicit,
        start_anchor=_delimiter(checked.start_anchor),
    )
