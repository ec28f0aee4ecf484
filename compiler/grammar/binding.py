"""What a grammar is built for (the tools, the options) and where, in the
template's transform, a call's name and arguments come from (its binding).
Shared by the builder and the hazard checks, which need only the binding.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..ir import Field, TDict, TPlaceholder
from . import model as m

TOOL_CHOICES = ("auto", "required", "none")
REASONING = ("allow", "forbid", "require")


@dataclass(frozen=True)
class Tool:
    name: str
    parameters: dict
    path: str


@dataclass(frozen=True)
class Options:
    prefix: str = ""
    tool_choice: str = "auto"
    parallel: bool = True
    reasoning: str = "allow"


def normalize_tools(tools: object) -> list[Tool]:
    if tools is None:
        return []
    if not isinstance(tools, list):
        raise m.GrammarError("tools", "must be a list of tools")
    out = []
    for i, tool in enumerate(tools):
        path = f"tools[{i}]"
        if isinstance(tool, dict) and isinstance(tool.get("function"), dict):
            tool, path = tool["function"], f"{path}.function"
        if not isinstance(tool, dict) or not isinstance(tool.get("name"), str):
            raise m.GrammarError(
                path, "a tool needs a string 'name' (OpenAI form {'type': 'function', 'function': {...}})"
            )
        params = tool.get("parameters", {"type": "object", "properties": {}})
        if not isinstance(params, dict):
            raise m.GrammarError(f"{path}.parameters", "must be a JSON schema object")
        out.append(Tool(tool["name"], params, f"{path}.parameters"))
    return out


# ----------------------------------------------------------------------------
# Where a call's name and arguments come from
# ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Binding:
    """`name` / `args`: ("capture", group) or ("content", key path)."""

    name: tuple[str, tuple[str, ...]]
    args: tuple[str, tuple[str, ...]]
    each: bool


def _source(placeholder: TPlaceholder, each: bool) -> tuple[str, tuple[str, ...]]:
    parts = placeholder.path.split(".")
    if each:
        return ("content", tuple(parts))
    if parts[0] == "content":
        return ("content", tuple(parts[1:]))
    return ("capture", (parts[0], *parts[1:]))


def binding_of(field: Field) -> Binding | None:
    node = field.transform
    if not isinstance(node, TDict):
        return None
    function = dict(node.items).get("function")
    if isinstance(function, TPlaceholder):
        src = _source(function, field.transform_each)
        if src[0] != "content":
            return None
        return Binding(("content", src[1] + ("name",)), ("content", src[1] + ("arguments",)), field.transform_each)
    if isinstance(function, TDict):
        parts = dict(function.items)
        name, args = parts.get("name"), parts.get("arguments")
        if isinstance(name, TPlaceholder) and isinstance(args, TPlaceholder):
            return Binding(
                _source(name, field.transform_each), _source(args, field.transform_each), field.transform_each
            )
    return None


def _place(path: tuple[str, ...], schema: dict) -> dict:
    for key in reversed(path):
        schema = {"type": "object", "properties": {key: schema}, "required": [key]}
    return schema


def _merge(a: dict, b: dict) -> dict:
    if a.get("type") == "object" and b.get("type") == "object" and "properties" in a and "properties" in b:
        props = dict(a["properties"])
        for key, value in b["properties"].items():
            props[key] = _merge(props[key], value) if key in props else value
        return {"type": "object", "properties": props, "required": list(dict.fromkeys(a["required"] + b["required"]))}
    raise ValueError("conflicting paths")
