"""Stage 1: validate a raw template and produce a checked template.

Accepts and rejects exactly what the reference loader
(`transformers.utils.chat_parsing.response_templates.load_response_template`)
does, but reports every problem at once, each with its JSON path.
Values the loader takes by truthiness (`repeats`, `optional`) are kept that
way: they become bools here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import regex

from ..errors import Problem, TemplateError, json_path
from ..regex.errors import caret_lines
from .source import Source

CONTENT_PARSERS = ("text", "int", "float", "bool", "json", "xml-inline", "kv-lines")
TOP_LEVEL_KEYS = ("version", "defaults", "fields", "start_anchor", "start_anchor_pattern")
FIELD_KEYS = (
    "open",
    "open_pattern",
    "close",
    "close_pattern",
    "content",
    "content_args",
    "repeats",
    "join",
    "optional",
    "transform",
    "transform_each",
)
# A whole-string transform placeholder, as the reference defines it.
PLACEHOLDER = regex.compile(r"\{(\w+(?:\.\w+)*)\}")


@dataclass(frozen=True)
class CheckedDelimiter:
    path: str  # JSON path of the key that declared it
    literals: tuple[str, ...] | None  # deduplicated, in source order; None for a regex
    pattern: str | None  # the regex source; None for literals
    group_names: tuple[str, ...] = ()


@dataclass(frozen=True)
class CheckedField:
    name: str
    path: str
    open: CheckedDelimiter | None
    close: CheckedDelimiter | None
    content: str
    content_args: Any
    repeats: bool
    join: str | None
    optional: bool
    transform: Any  # raw transform template, None when absent
    transform_each: bool


@dataclass(frozen=True)
class CheckedTemplate:
    source: Source
    defaults: dict
    fields: tuple[CheckedField, ...]
    start_anchor: CheckedDelimiter
    implicit: str | None


class _Checker:
    def __init__(self) -> None:
        self.problems: list[Problem] = []

    def problem(self, path: str, message: str) -> None:
        self.problems.append(Problem(path, message))

    def delimiter(self, owner: dict, path: tuple, literal_key: str, pattern_key: str) -> CheckedDelimiter | None:
        if literal_key in owner and pattern_key in owner:
            self.problem(json_path(*path), f"cannot have both '{literal_key}' and '{pattern_key}'")
            return None
        if literal_key in owner:
            return self.literals(owner[literal_key], path + (literal_key,))
        if pattern_key in owner:
            return self.pattern(owner[pattern_key], path + (pattern_key,))
        return None

    def literals(self, raw: Any, path: tuple) -> CheckedDelimiter | None:
        where = json_path(*path)
        if isinstance(raw, str):
            items = [raw]
        elif isinstance(raw, list):
            if not raw:
                self.problem(where, "a literal list must hold at least one literal")
                return None
            bad = [i for i, item in enumerate(raw) if not isinstance(item, str)]
            for i in bad:
                self.problem(json_path(*path, i), f"must be a string, got {type(raw[i]).__name__}")
            if bad:
                return None
            items = list(dict.fromkeys(raw))
        else:
            self.problem(where, f"must be a string or a list of strings, got {type(raw).__name__}")
            return None
        if "" in items:
            self.problem(where, "literals cannot be empty strings")
            return None
        return CheckedDelimiter(where, tuple(items), None)

    def pattern(self, raw: Any, path: tuple) -> CheckedDelimiter | None:
        where = json_path(*path)
        if not isinstance(raw, str):
            self.problem(where, f"must be a string (a regex), got {type(raw).__name__}")
            return None
        try:
            compiled = regex.compile(raw, regex.DOTALL)
        except Exception as error:  # regex.error, and OverflowError for huge repeats
            position = getattr(error, "pos", None)
            caret = f"\n{caret_lines(raw, position, '    ')}" if isinstance(position, int) else ""
            self.problem(where, f"invalid regex: {error}{caret}")
            return None
        return CheckedDelimiter(where, None, raw, tuple(compiled.groupindex))

    def transform_strings(self, value: Any, path: tuple) -> None:
        if isinstance(value, dict):
            for key, item in value.items():
                self.transform_strings(item, path + (key,))
        elif isinstance(value, list):
            for index, item in enumerate(value):
                self.transform_strings(item, path + (index,))
        elif isinstance(value, str) and PLACEHOLDER.search(value) and not PLACEHOLDER.fullmatch(value):
            self.problem(
                json_path(*path),
                f"transform string {value!r} mixes a {{placeholder}} with other text; use a whole-string "
                'placeholder such as "{content}" or a plain literal',
            )

    def field(self, name: str, raw: Any) -> CheckedField | None:
        path = ("fields", name)
        where = json_path(*path)
        if not isinstance(raw, dict):
            self.problem(where, f"a field must be an object, got {type(raw).__name__}")
            return None
        before = len(self.problems)
        unknown = [key for key in raw if key not in FIELD_KEYS]
        if unknown:
            self.problem(where, f"unknown keys {sorted(unknown)} (allowed: {', '.join(FIELD_KEYS)})")
        content = raw.get("content", "text")
        if not (isinstance(content, str) and content in CONTENT_PARSERS):
            self.problem(
                json_path(*path, "content"),
                f"unknown content parser {content!r} (one of: {', '.join(CONTENT_PARSERS)})",
            )
        open_ = self.delimiter(raw, path, "open", "open_pattern")
        close = self.delimiter(raw, path, "close", "close_pattern")
        join = raw.get("join")
        if join is not None and not isinstance(join, str):
            self.problem(json_path(*path, "join"), f"must be a string, got {type(join).__name__}")
        if join is not None and not raw.get("repeats", False):
            self.problem(json_path(*path, "join"), "'join' requires 'repeats': true")
        transform = raw.get("transform")
        transform_each = raw.get("transform_each", False)
        if not isinstance(transform_each, bool):
            self.problem(json_path(*path, "transform_each"), f"must be a bool, got {type(transform_each).__name__}")
        elif transform_each and transform is None:
            self.problem(json_path(*path, "transform_each"), "is set but the field has no 'transform'")
        if transform is not None:
            self.transform_strings(transform, path + ("transform",))
        else:
            for delim in (open_, close):
                if delim is not None and delim.group_names:
                    self.problem(
                        delim.path,
                        f"declares named group(s) {sorted(delim.group_names)} but the field has no 'transform'; "
                        "captures only reach the output through a transform",
                    )
        if len(self.problems) > before:
            return None
        return CheckedField(
            name=name,
            path=where,
            open=open_,
            close=close,
            content=content,
            content_args=raw.get("content_args", {}),
            repeats=bool(raw.get("repeats", False)),
            join=join,
            optional=bool(raw.get("optional", True)),
            transform=transform,
            transform_each=transform_each,
        )

    def template(self, source: Source) -> CheckedTemplate | None:
        spec = source.template
        if not isinstance(spec, dict):
            self.problem("", f"a response template must be an object, got {type(spec).__name__}")
            return None
        version = spec.get("version", 1)
        if version != 1:
            self.problem("version", f"unsupported version {version!r} (must be 1)")
        unknown = [key for key in spec if key not in TOP_LEVEL_KEYS]
        if unknown:
            self.problem("", f"unknown keys {sorted(unknown)} (allowed: {', '.join(TOP_LEVEL_KEYS)})")
        defaults = spec.get("defaults", {})
        if not isinstance(defaults, dict):
            self.problem("defaults", f"must be an object, got {type(defaults).__name__}")
        raw_fields = spec.get("fields", {})
        fields: list[CheckedField] = []
        if not isinstance(raw_fields, dict) or not raw_fields:
            self.problem("fields", "must be a non-empty object of field name -> field")
        else:
            for name, raw in raw_fields.items():
                checked = self.field(name, raw)
                if checked is not None:
                    fields.append(checked)
            implicit = [
                name
                for name, raw in raw_fields.items()
                if isinstance(raw, dict) and "open" not in raw and "open_pattern" not in raw
            ]
            if len(implicit) > 1:
                self.problem(
                    "fields",
                    f"at most one field may have no 'open'/'open_pattern' (the implicit field); found {implicit}",
                )
        anchor = self.delimiter(spec, (), "start_anchor", "start_anchor_pattern")
        if anchor is None and "start_anchor" not in spec and "start_anchor_pattern" not in spec:
            self.problem("", "needs 'start_anchor' or 'start_anchor_pattern'")
        if self.problems:
            return None
        implicit_name = next((f.name for f in fields if f.open is None), None)
        return CheckedTemplate(source, defaults, tuple(fields), anchor, implicit_name)


def check(source: Source) -> CheckedTemplate:
    """Validate `source`; raise TemplateError listing every problem."""
    checker = _Checker()
    checked = checker.template(source)
    if checked is None:
        raise TemplateError(checker.problems, source.origin)
    return checked
