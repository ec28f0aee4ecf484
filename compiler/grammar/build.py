"""Template IR + tools + options -> the grammar (model.py) of what the model may write.

The output is read in the parser's own terms: blocks (an explicit field's
open, body and close) separated by text of the implicit region (or, without
one, whitespace that the parser drops). The grammar writes them in one
canonical order: reasoning, then content, then tool calls, then the
end-of-turn close. Free text stops at the first occurrence of any literal
that every match of a watched delimiter contains, so it can never hold one.
Conditions a grammar cannot state (look-arounds) are checked on witness
strings with the `regex` module: a call's close is only used before what its
look-ahead accepts.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

import regex

from ..ir import Delimiter, Field, LiteralDelimiter, Program, RegexDelimiter, TDict, TPlaceholder
from ..regex import to_source
from ..regex.charset import CharSet
from ..regex.nodes import Concat, Group, Look
from . import model as m
from . import regexconv as rc
from .schema import STANDARD, WS, WS_CHARS, Dialect, Expander

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
            raise m.GrammarError(path, "a tool needs a string 'name' (OpenAI form {'type': 'function', 'function': {...}})")
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
            return Binding(_source(name, field.transform_each), _source(args, field.transform_each), field.transform_each)
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


# ----------------------------------------------------------------------------
# Witness strings
# ----------------------------------------------------------------------------


def _pick(chars: CharSet) -> str:
    for lo, hi in chars.ranges:
        for code in range(max(lo, 0x21), hi + 1):
            if code < 0x7F or code > 0xA0:
                return chr(code)
    return chr(chars.ranges[0][0])


def _nonempty(node: m.Node) -> m.Node | None:
    """The node without its empty string, where that is a leading optional
    run made required (`ws*` -> `ws+`); None otherwise."""
    if isinstance(node, m.Rep) and node.min == 0 and node.max is None:
        return m.Rep(node.body, 1, None)
    if isinstance(node, m.Seq) and node.items:
        first = _nonempty(node.items[0])
        if first is not None and all(isinstance(i, m.Rep) and i.min == 0 for i in node.items[1:]):
            return m.seq(first, *node.items[1:])
    return None


def _grown(node: m.Node) -> str:
    """A witness of a regular node whose unbounded runs that must be present
    are two long (optional ones absent): shows a run that could merge with
    its neighbour, which a one-character witness hides by backtracking."""
    if isinstance(node, m.Lit):
        return node.text
    if isinstance(node, m.Chars):
        return _pick(node.chars)
    if isinstance(node, m.Seq):
        return "".join(map(_grown, node.items))
    if isinstance(node, m.Alt):
        return _grown(node.items[0])
    if isinstance(node, m.Rep):
        count = node.min if node.min == 0 or node.max is not None else max(node.min, 2)
        return _grown(node.body) * count
    raise TypeError(node)


class Builder:
    def __init__(self, program: Program, template: dict, tools: list[Tool], options: Options, fmt: str):
        self.program = program
        self.template = template
        self.tools = tools
        self.options = options
        self.fmt = fmt
        self.g = m.Grammar()
        self.call_bodies: dict[m.Ref, str] = {}  # call_rest rule -> witness of its body
        self._shortest: dict[str, str] = {}

    # -- witnesses -----------------------------------------------------------
    def shortest(self, node: m.Node, depth: int = 0) -> str:
        if depth > 60:
            raise RecursionError
        if isinstance(node, m.Lit):
            return node.text
        if isinstance(node, m.Chars):
            return _pick(node.chars)
        if isinstance(node, m.Seq):
            return "".join(self.shortest(item, depth + 1) for item in node.items)
        if isinstance(node, m.Alt):
            best = None
            for item in node.items:
                try:
                    text = self.shortest(item, depth + 1)
                except RecursionError:
                    continue
                if best is None or len(text) < len(best):
                    best = text
            if best is None:
                raise RecursionError
            return best
        if isinstance(node, m.Rep):
            return self.shortest(node.body, depth + 1) * node.min if node.min else ""
        if isinstance(node, m.Ref):
            if node.name not in self._shortest:
                self._shortest[node.name] = self.shortest(self.g.rules[node.name], depth + 1)
            return self._shortest[node.name]
        if isinstance(node, m.Json):
            scratch = Expander(m.Grammar(), "witness")
            value = scratch.value(json.loads(node.schema), "schema")
            saved, self.g = self.g, scratch.grammar
            try:
                return self.shortest(value, depth + 1)
            finally:
                self.g = saved
        if isinstance(node, m.Until):
            if node.may_end:
                return ""
            trigger, exit = node.exits[0]
            return trigger + self.shortest(exit, depth + 1)
        raise TypeError(node)

    # -- delimiters ------------------------------------------------------------
    def ast(self, delim: RegexDelimiter):
        if delim.ast is None:
            raise m.GrammarError(delim.path, "the pattern is outside the compiler's regex grammar (see `check`)")
        return delim.ast.body

    def full(self, delim: Delimiter, groups=None, *, at_end=False, at_start=False) -> m.Node | None:
        if isinstance(delim, LiteralDelimiter):
            return m.alt(*(m.Lit(lit) for lit in delim.literals))
        return rc.to_node(self.ast(delim), groups, at_end=at_end, at_start=at_start)

    def split(self, delim: Delimiter) -> list[rc.Split] | None:
        if isinstance(delim, LiteralDelimiter):
            return [rc.Split((), lit, ()) for lit in delim.literals]
        return rc.splits(self.ast(delim))

    def excluded(self, delim: Delimiter | None) -> list[str]:
        if delim is None:
            return []
        if isinstance(delim, LiteralDelimiter):
            return list(delim.literals)
        return rc.required_literals(self.ast(delim))

    def exits(self, delim: Delimiter, then: m.Node, groups=None, *, at_end=False, follow=None) -> list[tuple[str, m.Node]]:
        """(trigger, rest of the delimiter + `then`) for text that `delim` ends;
        the rests after one trigger become one shared rule."""
        rests: dict[str, list[m.Node]] = {}
        for trigger, post in self.split_parts(delim, groups, at_end=at_end, follow=follow):
            rests.setdefault(trigger, []).append(post)
        return [(trigger, m.seq(self.shared(posts), then)) for trigger, posts in rests.items()]

    def shared(self, nodes: list[m.Node]) -> m.Node:
        """Alternatives of a delimiter's variants, a rule of their own when
        they are many (the same rule wherever the delimiter is written)."""
        node = m.alt(*nodes)
        return self.g.add("delimiter", node) if len(set(nodes)) > 2 else node

    def close_for(self, field: Field, body_witness: str, follow: str | None) -> m.Node | None:
        """The close of `field` usable before `follow` (a witness of what comes
        next; None: the end of the output)."""
        delim = field.close
        if delim is None:
            return m.EMPTY if follow is None else None
        at_end = follow is None
        if isinstance(delim, LiteralDelimiter):
            return self.full(delim)
        options = []
        for branch in rc.variants(self.ast(delim)):
            node = rc.to_node(branch, at_end=at_end)
            if node is None:
                continue
            text = self.shortest(node)
            matcher = regex.compile(to_source(branch), regex.DOTALL)
            subject = body_witness + text + (follow or "")
            found = matcher.match(subject, len(body_witness))
            if found is not None and found.end() == len(body_witness) + len(text):
                options.append(node)
        if not options:
            return m.EMPTY if at_end else None  # the end of the output closes the region
        return m.alt(*options)

    # -- fields ------------------------------------------------------------------
    def classify(self):
        p = self.program
        self.implicit = p.fields[p.implicit] if p.implicit is not None else None
        self.tool_field = next((f for f in p.fields if binding_of(f) is not None), None)
        self.binding = binding_of(self.tool_field) if self.tool_field else None
        self.reasoning = next(
            (f for f in p.fields if f.name in ("reasoning_content", "reasoning", "thinking") and f.open is not None), None
        )
        self.content_block = next(
            (f for f in p.fields if f.name == "content" and f.open is not None and f is not self.implicit), None
        )
        if self.implicit is not None and self.implicit.content != "text":
            raise m.GrammarError(self.implicit.path + ".content", "an implicit field whose content is not text")

    def open_region(self) -> Field | None:
        """The explicit field the prefix leaves open, if any."""
        if not self.options.prefix:
            return None
        from ..pipeline import compile_template

        module = compile_template(self.template)
        parser = module.ResponseParser(self.options.prefix)
        current = None
        # A regex open that ends the prompt is held back until more text
        # arrives: one neutral character commits it.
        for event in list(parser.initial_events) + list(parser.feed("x")):
            if event["type"] == "region_open":
                current = event["field"]
            elif event["type"] == "region_close":
                current = None
        self.prefix_captures = dict(getattr(parser, "captures", None) or {})
        field = next((f for f in self.program.fields if f.name == current), None)
        return None if field is None or field is self.implicit else field

    def prefilled_call(self) -> m.Node:
        """The rest of a call whose open the prompt wrote (`{"name": "f",
        "parameters": `): its body for the tool the open names, then what
        follows a call."""
        if not self.call_tools:
            raise m.GrammarError("prefix", "the prompt opens a tool call, but no call may be written (tool_choice or tools)")
        tool = self.call_tools[0]
        if self.binding.name[0] == "capture":
            name = self.prefix_captures.get(self.binding.name[1][0])
            tool = next((t for t in self.call_tools if t.name == name), None)
            if tool is None:
                raise m.GrammarError("prefix", f"the prompt opens a call of {name!r}, which is not a tool allowed here")
        return self.call_rest(tool, (self.next_calls(), False))

    # -- tool calls ----------------------------------------------------------------
    def call_counts(self) -> tuple[int, int | None]:
        choice = self.options.tool_choice
        if choice == "none" or self.tool_field is None or not self.tools:
            if choice not in TOOL_CHOICES[:3] or choice == "required":
                if self.tool_field is None:
                    raise m.GrammarError("fields", "the template has no tool-call field (a transform with 'function')")
                raise m.GrammarError("tools", f"tool_choice {choice!r} needs tools")
            return 0, 0
        low = 0 if choice == "auto" else 1
        high = None if self.options.parallel else 1
        if self.binding.each or not self.tool_field.repeats:
            high = 1 if high is None or high >= 1 else high  # one block (holding a list when `each`)
        return low, high

    def active_tools(self) -> list[Tool]:
        choice = self.options.tool_choice
        if choice in TOOL_CHOICES:
            return self.tools
        chosen = [t for t in self.tools if t.name == choice]
        if not chosen:
            raise m.GrammarError("tool_choice", f"{choice!r} is not the name of a tool ({[t.name for t in self.tools]})")
        return chosen

    def element_schema(self, tool: Tool) -> dict:
        b = self.binding
        schema = _place(b.args[1], tool.parameters)
        if b.name[0] == "content":
            try:
                schema = _merge(_place(b.name[1], {"const": tool.name}), schema)
            except ValueError:
                raise m.GrammarError(self.tool_field.path + ".transform", "the name and arguments paths conflict")
        return schema

    def dialect(self, args: dict) -> Dialect:
        delims = tuple(tuple(pair) for pair in args.get("string_delims") or ())
        return Dialect(delims, bool(args.get("unquoted_keys")))

    def json_value(self, schema: dict, dialect: Dialect) -> m.Node:
        if self.fmt == "lark" and dialect == STANDARD:
            return m.Json(json.dumps(schema, ensure_ascii=False, sort_keys=False))
        return Expander(self.g, self.fmt, dialect).value(schema, "schema")

    def body(self, tool: Tool, parallel_items: bool) -> m.Node:
        field, b = self.tool_field, self.binding
        args = json.loads(field.content_args_json) or {}
        if b.args[0] != "content":
            raise m.GrammarError(field.path + ".transform", "tool arguments taken from an open-pattern group")
        if field.content == "json":
            dialect = self.dialect(args)
            if self.fmt != "lark" or dialect != STANDARD:
                Expander(m.Grammar(), self.fmt, dialect).value(tool.parameters, tool.path)  # errors name the tool's path
            if b.each:
                items = [self.element_schema(t) for t in self.active_tools()]
                schema = {"type": "array", "items": items[0] if len(items) == 1 else {"anyOf": items}, "minItems": 1 if self.low else 0}
                if not parallel_items:
                    schema["maxItems"] = 1
            else:
                schema = self.element_schema(tool)
            try:
                value = self.json_value(schema, dialect)
            except m.GrammarError as error:
                raise m.GrammarError(tool.path + error.path.removeprefix("schema"), str(error).split(": ", 1)[-1])
            lead = WS
            if isinstance(field.open, RegexDelimiter):
                first = self.shortest(value)[:1]
                for v in rc.variants(self.ast(field.open)):
                    if rc.ends_in_lookahead(v) and not regex.match(to_source(rc._items(v)[-1].body), " " + first, regex.DOTALL):
                        lead = m.EMPTY  # the open looks at the body's first character, with no space before it
            trail = WS
            if isinstance(field.close, RegexDelimiter) and rc.starts_with_lookbehind(self.ast(field.close)):
                trail = m.EMPTY  # the close looks back at the body's last character
            return m.seq(lead, value, trail)
        if b.each:
            raise m.GrammarError(field.path + ".transform_each", f"transform_each over {field.content} content")
        if field.content == "xml-inline":
            return self.xml_body(args, tool, b.args[1], field.path + ".content_args")
        if field.content == "kv-lines":
            if b.args[1] != ():
                raise m.GrammarError(field.path + ".transform", "kv-lines arguments must be the whole content")
            return self.kv_body(args, tool)
        raise m.GrammarError(field.path + ".content", f"tool calls with {field.content!r} content")

    # xml-inline: each key of the path is one tag; the last holds the arguments.
    def xml_body(self, args: dict, tool: Tool, path: tuple[str, ...], where: str, trailing: bool = True) -> m.Node:
        if "tag_pattern" not in args:
            raise m.GrammarError(where + ".tag_pattern", "missing")
        if args.get("merge_duplicates"):
            raise m.GrammarError(where + ".merge_duplicates", "not expressible: values would become lists")
        value_parser = args.get("value_parser") or {}
        if path:
            inner = value_parser.get("args", {}) if value_parser.get("name") == "xml-inline" else None
            if inner is None:
                raise m.GrammarError(where + ".value_parser", f"the value of tag '{path[0]}' must be parsed by xml-inline")
            value = self.xml_body(inner, tool, path[1:], where + ".value_parser.args", trailing=False)
            forms = self.outer_forms(args, where, path[0], value, tool)
            if forms is None:
                return m.seq(WS, self.tag(args, where, path[0], value=value), WS)
            # The open looks ahead at the tag: nothing may come before it.
            return m.seq(m.EMPTY if self.open_lookahead_heads(tool) else WS, forms, WS)
        props = tool.parameters.get("properties") or {}
        required = [k for k in props if k in set(tool.parameters.get("required") or [])]
        try:
            members = {k: self.tag(args, where, k, schema=v, schema_path=f"{tool.path}.properties.{k}", value_parser=value_parser) for k, v in props.items()}
        except m.GrammarError as error:
            if "followed by a literal" not in str(error):
                raise
            forms = self.xml_forms(args, tool, where, props, required, value_parser, error)
            return m.seq(forms, WS) if trailing else forms
        # Tags one per line; else separated by commas (Python call arguments).
        sep = None
        for text, node in (("\n", WS), (", ", m.seq(m.Lit(","), WS))):
            if self.tags_read_back(args, list(props)[:2], members, text):
                sep = node
                break
        if sep is None:
            self.check_tags_read_back(args, where, list(props)[:2], members)
        from .schema import members_in_order

        return m.seq(WS, members_in_order(self.g, list(props), required, members, sep), WS)

    # Tag patterns that read several forms (`<parameter name="k">v</parameter>`
    # or a JSON object; an invoke with arguments or self-closing): each form
    # is a variant of the pattern, kept when its witness reads back.
    def xml_forms(self, args, tool, where, props, required, value_parser, error) -> m.Node:
        """Leaf arguments when no single reading of the tag pattern writes
        them: one variant of the pattern per argument (the first whose tag
        reads back with its key), and, when the pattern also reads a flat
        JSON object, that object."""
        pattern = regex.compile(args["tag_pattern"], regex.DOTALL)
        forms = []
        # Variants grouped by what comes before and after the value: one form
        # per group (written the same way for every argument; mixed forms
        # read back too, but greedy lexers lose them), each argument written
        # by any value branch of it that reads back.
        by_start: dict[tuple[str, str], dict[str, list[m.Node]]] = {}
        for variant in rc.variants(rc.ast_of(args["tag_pattern"]), 512, optional_chars=True):
            items = rc._items(variant)
            index = next((i for i, item in enumerate(items) if isinstance(item, Group) and item.name == "value"), None)
            if index is None:
                continue
            start = by_start.setdefault((to_source(Concat(tuple(items[:index]))), to_source(Concat(tuple(items[index + 1 :])))), {})
            for key, schema in props.items():
                try:
                    node = self.tag(dict(args, tag_pattern=to_source(variant)), where, key, schema=schema,
                                    schema_path=f"{tool.path}.properties.{key}", value_parser=value_parser)
                except m.GrammarError:
                    continue
                text = self.filled(node, FILL)
                hits = list(pattern.finditer(text))
                if len(hits) != 1 or hits[0].span() != (0, len(text)) or hits[0].group("key") != key:
                    continue
                if text != self.shortest(node) and hits[0].group("value") != FILL:
                    continue  # free text not read back as written (a backslash escaping the end)
                start.setdefault(key, []).append(node)
        from .schema import members_in_order

        for found in by_start.values():
            if set(found) != set(props):
                continue
            members = {k: m.alt(*found[k]) for k in props}
            for text, sep in (("\n", WS), (", ", m.seq(m.Lit(","), WS))):
                if self.tags_read_back(args, list(props)[:2], members, text):
                    forms.append(m.seq(WS, members_in_order(self.g, list(props), required, members, sep)))
                    break
        json_form = self.json_object_form(pattern, tool, props, required)
        if json_form is not None:
            forms.append(json_form)
        if not forms:
            raise error
        return m.alt(*forms)

    def filled(self, node: m.Node, text: str) -> str:
        """A witness of `node` whose free text (before a trigger) is `text`."""
        if isinstance(node, m.Seq):
            return "".join(self.filled(item, text) for item in node.items)
        if isinstance(node, m.Alt):
            return self.filled(node.items[0], text)
        if isinstance(node, m.Until) and node.exits and not node.may_end:
            trigger, exit = node.exits[0]
            return text + trigger + self.shortest(exit)
        return self.shortest(node)

    def json_object_form(self, pattern, tool, props, required) -> m.Node | None:
        """A flat JSON object whose members the tag pattern reads one by one
        (strings without escapes: the pattern keeps them raw)."""
        members = {}
        for key, schema in props.items():
            if not isinstance(schema, dict):
                return None
            if "enum" in schema or "const" in schema:
                values = schema.get("enum", [schema.get("const")])
                if any(isinstance(v, (dict, list)) or (isinstance(v, str) and ('"' in v or "\\" in v)) for v in values):
                    return None
                value = m.alt(*(m.Lit(json.dumps(v, ensure_ascii=False)) for v in values))
            elif schema.get("type") == "string":
                value = m.seq(m.Lit('"'), m.Rep(PLAIN_STRING_CHAR, 0, None), m.Lit('"'))
            elif schema.get("type") in ("integer", "number", "boolean"):
                value = Expander(self.g, self.fmt).value(schema, f"{tool.path}.properties.{key}")
            else:
                return None
            members[key] = m.seq(m.Lit(json.dumps(key, ensure_ascii=False)), WS, m.Lit(":"), WS, value)
        from .schema import members_in_order

        sep = m.seq(WS, m.Lit(","), WS)
        node = m.seq(WS, m.Lit("{"), WS, members_in_order(self.g, list(props), required, members, sep), WS, m.Lit("}"))
        keys = list(props)[:2]
        text = "{" + ", ".join(self.shortest(members[k]) for k in keys) + "}"
        if [hit.group("key") for hit in pattern.finditer(text)] != keys:
            return None
        return node

    def outer_forms(self, args, where, key, value, tool) -> m.Node | None:
        """The tag holding the arguments, when its pattern reads more than
        one form (an empty value only after a self-closing tag) or the call
        open names the tool in a look-ahead at this tag (then the tag is
        written as that look-ahead, with the name). None: one plain form."""
        ast = rc.ast_of(args["tag_pattern"])
        value_group = rc.group_nodes(ast).get("value")
        heads = self.open_lookahead_heads(tool)
        look_only = value_group is not None and any(
            all(isinstance(item, Look) for item in rc._items(b)) and rc._items(b) for b in rc.branches(value_group.body)
        )
        if not look_only and not heads:
            return None
        pattern = regex.compile(args["tag_pattern"], regex.DOTALL)
        close = self.tool_field.close
        close_re = _compiled(to_source(self.ast(close))) if isinstance(close, RegexDelimiter) and rc.starts_with_lookbehind(self.ast(close)) else None
        open_w = self.shortest(self.full(self.tool_field.open, self.open_for(tool, self.tool_field.open)) or m.EMPTY)
        value_w = self.shortest(value)
        out = []
        for variant in rc.variants(ast, 512, optional_chars=True):
            items = rc._items(variant)
            index = next((i for i, item in enumerate(items) if isinstance(item, Group) and item.name == "value"), None)
            if index is None:
                continue
            inner = rc._items(items[index].body)
            empty = all(isinstance(item, Look) for item in inner)
            body = m.EMPTY if empty else value
            if empty and tool.parameters.get("required"):
                continue
            key_sub = {"key": m.Lit(key)}
            lead = Concat(tuple(items[:index]))
            before = rc.to_node(lead, key_sub, at_start=True, at_end=True)
            after = rc.to_node(Concat(tuple(items[index + 1 :])), key_sub, at_start=True, at_end=True)
            if before is None or after is None:
                continue
            if heads:
                lead_re = regex.compile(to_source(lead), regex.DOTALL)
                matching = [h for h in heads if lead_re.fullmatch(self.shortest(h))]
                if not matching:
                    continue
                before = m.alt(*matching)
            text = self.shortest(before) + ("" if empty else value_w) + self.shortest(after)
            hit = pattern.fullmatch(text)
            if hit is None or hit.group("key") != key or hit.group("value") != ("" if empty else value_w):
                continue
            if close_re is not None:
                # The call's close (a look-behind) matches at the end of the tag, not before.
                full = open_w + text
                if [p for p in range(len(open_w) + 1, len(full) + 1) if close_re.match(full, p)] != [len(full)]:
                    continue
            # Whitespace after the value sits next to what follows it (one
            # lexeme for greedy lexers).
            out.append(m.seq(before, body, m.seq(WS, after) if body is not m.EMPTY else after))
        if not out:
            raise m.GrammarError(where + ".tag_pattern", "no form of the pattern reads back the arguments")
        return m.alt(*out)

    def open_lookahead_heads(self, tool) -> list[m.Node]:
        """When the call open ends in a look-ahead holding the tool's name
        group (`<X(?=invoke name="(?P<name>...)")`), the texts it accepts
        with the name: the body must start with one of them."""
        open_ = self.tool_field.open
        groups = self.open_for(tool, open_)
        if not groups or not isinstance(open_, RegexDelimiter):
            return []
        out = []
        for variant in rc.variants(self.ast(open_)):
            items = rc._items(variant)
            if not items or not isinstance(items[-1], Look) or items[-1].behind or items[-1].negative:
                continue
            if not set(groups) & set(rc.group_nodes(items[-1].body)):
                continue
            for head in rc.variants(items[-1].body, optional_chars=True):
                node = rc.to_node(head, groups, at_start=False, at_end=True)
                if node is not None:
                    out.append(node)
        return list(dict.fromkeys(out))

    def tags_read_back(self, args: dict, keys: list[str], members: dict, sep: str) -> bool:
        if not keys:
            return True
        text = sep.join(self.shortest(members[k]) for k in keys)
        return [match.group("key") for match in regex.finditer(args["tag_pattern"], text, regex.DOTALL)] == keys

    def check_tags_read_back(self, args: dict, where: str, keys: list[str], members: dict) -> None:
        """Tags written one after another must be found again by the
        pattern, each with its key (a pattern that needs a separator the
        grammar does not write, like the commas of a Python call, is refused)."""
        if not keys:
            return
        text = "\n".join(self.shortest(members[k]) for k in keys)
        found = [match.group("key") for match in regex.finditer(args["tag_pattern"], text, regex.DOTALL)]
        if found != keys:
            raise m.GrammarError(
                where + ".tag_pattern",
                f"tags written one per line ({text!r}) do not read back as {keys} (found {found}): the pattern needs "
                "a separator or context the grammar does not write",
            )

    def tag(self, args, where, key, *, value=None, schema=None, schema_path="", value_parser=None) -> m.Node:
        ast = rc.ast_of(args["tag_pattern"])
        groups = rc.group_nodes(ast)
        if "key" not in groups or "value" not in groups:
            raise m.GrammarError(where + ".tag_pattern", "needs groups 'key' and 'value'")
        if not regex.fullmatch(to_source(groups["key"].body), key, regex.DOTALL):
            raise m.GrammarError(where + ".tag_pattern", f"the key group cannot match {key!r}")
        items = rc._items(ast)
        if items and rc.start_or_separator(items[0]):
            items = items[1:]  # `(?:^|,)`: the grammar writes the separator between tags
        index = next((i for i, item in enumerate(items) if isinstance(item, Group) and item.name == "value"), None)
        if index is None:
            raise m.GrammarError(where + ".tag_pattern", "the value group must sit at the top level of the pattern")
        # An optional quote right around the value (`'?` quoting a Python
        # value) is not written: the value is written as JSON.
        lead = list(items[:index])
        while lead and _optional_char(lead[-1]):
            lead.pop()
        trail = list(items[index + 1 :])
        while trail and _optional_char(trail[0]):
            trail.pop(0)
        before = rc.to_node(Concat(tuple(lead)), {"key": m.Lit(key)}, at_start=True, at_end=True)
        after_items = tuple(trail)
        if value is not None:
            after = rc.to_node(Concat(after_items), {"key": m.Lit(key)}, at_start=True, at_end=True)
            return m.seq(before, value, after)
        # A raw value: typed values are written whole; free text runs up to
        # the first literal that follows the value group in the pattern.
        key_sub = {"key": m.Lit(key)}
        raw = self.raw_value(schema, schema_path, value_parser or {})
        if raw is not None:
            # An end anchor after the value (`\}\s*$`) holds for the last tag
            # only: not written when the tag can end without it.
            after = rc.to_node(Concat(after_items), key_sub, at_start=True, at_end=False)
            if after is None:
                after = rc.to_node(Concat(after_items), key_sub, at_start=True, at_end=True)
            return m.seq(before, raw, after)
        substituted = tuple(_substitute_key(item, key) for item in after_items)
        found = rc.splits(Concat(substituted))
        if found is None or len(found) != 1:
            raise m.GrammarError(where + ".tag_pattern", "a string value must be followed by a literal in the pattern")
        s = found[0]
        pre = rc.to_node(Concat(s.pre), key_sub, at_start=True, at_end=True)
        post = rc.to_node(Concat(s.post), key_sub, at_start=True, at_end=True)
        if raw is None:  # free text
            return m.seq(before, m.Until((s.trigger,), ((s.trigger, post),), False))
        return m.seq(before, raw, pre, m.Lit(s.trigger), post)

    def raw_value(self, schema, path: str, value_parser: dict) -> m.Node | None:
        """A value written as raw text and typed by the tool schema; None for free text."""
        name = value_parser.get("name")
        if name == "json":
            return Expander(self.g, self.fmt).value(schema, path) if isinstance(schema, dict) else None
        if name not in (None, "text"):
            raise m.GrammarError(path, f"values parsed by {name!r}")
        if not isinstance(schema, dict):
            return None
        if "enum" in schema or "const" in schema:
            values = schema.get("enum", [schema.get("const")])
            return m.alt(*(m.Lit(v if isinstance(v, str) else json.dumps(v)) for v in values))
        kind = schema.get("type", "string")
        if kind == "string" or (isinstance(kind, list) and "string" in kind):
            return None
        return Expander(self.g, self.fmt).value(schema, path)

    def kv_body(self, args: dict, tool: Tool) -> m.Node:
        line_sep, kv_sep = args.get("line_sep", "\n"), args.get("kv_sep", ":")
        props = tool.parameters.get("properties") or {}
        required = [k for k in props if k in set(tool.parameters.get("required") or [])]
        members = {}
        for key, schema in props.items():
            raw = self.raw_value(schema, f"{tool.path}.properties.{key}", args.get("value_parser") or {})
            if raw is None:
                raw = m.Until((line_sep,), ((line_sep, m.EMPTY),), True)
                members[key] = m.seq(m.Lit(key + kv_sep + " "), raw)
            else:
                members[key] = m.seq(m.Lit(key + kv_sep + " "), raw, m.Lit(line_sep))
        return members_in_order_kv(self.g, list(props), required, members)

    def open_for(self, tool: Tool, delim: Delimiter) -> dict:
        """Group substitutions of the open for this tool (its name)."""
        b = self.binding
        if b.name[0] != "capture":
            return {}
        group = b.name[1][0]
        if isinstance(delim, LiteralDelimiter) or group not in (delim.group_names or ()):
            raise m.GrammarError(self.tool_field.path + ".transform", f"the name group '{group}' is not in the open pattern")
        node = rc.group_nodes(self.ast(delim))[group]
        if not regex.fullmatch(to_source(node.body), tool.name, regex.DOTALL):
            raise m.GrammarError(tool.path.removesuffix(".parameters") + ".name", f"the open pattern's '{group}' group cannot match {tool.name!r}")
        return {group: m.Lit(tool.name)}

    # -- the whole output -------------------------------------------------------------
    # Between blocks the parser is back in the implicit region (or the null
    # sink). That stretch is a segment whose rule depends on a state (cs, cd):
    # cs = calls written so far (0 none; 1 some, more allowed; 2 some, no
    # more), cd = a content block was written (a non-repeating one is not
    # written twice). Every block returns to a segment, as the parser
    # returns to the implicit region after every close.

    def build(self) -> m.Grammar:
        self.classify()
        self.low, self.high = self.call_counts()
        reasoning_mode = self.options.reasoning
        if reasoning_mode == "require" and self.reasoning is None:
            raise m.GrammarError("fields", "--reasoning require: the template has no reasoning field with an open delimiter")
        open_now = self.open_region()
        self.end_close = self.implicit.close if self.implicit is not None else None
        self.exclude_all = self.watched_literals()
        self.prepare_calls(self.active_tools() if self.high != 0 else [])
        first = (0, False)
        if open_now is not None:
            if open_now is self.reasoning:
                start = self.block(self.reasoning, first)
            elif open_now is self.content_block:
                start = self.block(self.content_block, (0, True))
            elif open_now is self.tool_field:
                start = self.prefilled_call()
            else:
                raise m.GrammarError("prefix", f"the prompt leaves field '{open_now.name}' open; the grammar starts only in reasoning or content")
        else:
            options = []
            if self.reasoning is not None and reasoning_mode != "forbid" and (reasoning_mode == "require" or not self.reasoning_again()):
                rest = self.block(self.reasoning, first)
                for _, opened in self.delimiter_variants(self.reasoning.open, at_start=True):
                    options.append(m.seq(WS, opened, rest))
            if reasoning_mode != "require" or self.reasoning is None:
                first_seg = self.seg(first)
                dead = self.g.rules[first_seg.name]
                if not (isinstance(dead, m.Until) and not dead.exits and not dead.may_end):
                    options.append(first_seg)  # (dead when a call is required and may only open at the start)
                options.extend(self.start_calls)
            start = m.alt(*options)
        self.g.rules = {"start": start, **self.g.rules}
        return self.g

    def watched_literals(self) -> tuple[str, ...]:
        """Literals free text of the implicit region never holds: one of them
        is in every match of a delimiter watched there."""
        watched = [f.open for f in self.program.fields if f.open is not None]
        if self.end_close is not None:
            watched.append(self.end_close)
        exclude: set[str] = set()
        for delim in watched:
            found = self.excluded(delim)
            if not found:
                raise m.GrammarError(delim.path, "no literal that every match contains: free text cannot be kept from matching it")
            exclude.update(found)
        return tuple(sorted(exclude))

    def prepare_calls(self, tools: list[Tool]) -> None:
        """Bodies, open groups and witnesses of the calls; `start_calls` for
        opens that only match at the start of the output (llama3)."""
        self.call_tools, self.start_calls = [], []
        if not tools:
            return
        field = self.tool_field
        bodies = {t.name: self.body(t, self.options.parallel) for t in tools}
        if self.binding.name[0] == "content" and field.content == "json" and not self.binding.each and len(tools) > 1:
            # One JSON value for all tools (anyOf): alternatives of embedded
            # schemas would make the engine pick one at the first '{'.
            items = [self.element_schema(t) for t in tools]
            args = json.loads(field.content_args_json) or {}
            shared = m.seq(WS, self.json_value({"anyOf": items}, self.dialect(args)), WS)
            bodies = {t.name: shared for t in tools}
            tools = tools[:1]
        self.call_tools = tools
        self.bodies = bodies
        self.opens = {t.name: self.open_for(t, field.open) for t in tools}
        self.body_witness = {t.name: self.shortest(bodies[t.name]) for t in tools}
        if isinstance(field.open, RegexDelimiter):
            self.start_calls = [
                m.seq(node, self.call_rest(t, (self.next_calls(), False)))
                for t in tools
                for branch in rc.variants(self.ast(field.open))
                if (node := rc.to_node(branch, self.opens[t.name], at_start=True)) is not None
                and rc.to_node(branch, self.opens[t.name], at_start=False) is None
            ]

    def delimiter_variants(self, delim: Delimiter | None, groups=None, *, at_end=False, at_start=False):
        """(regex source or None, node) for each variant of a delimiter."""
        if delim is None:
            return []
        if isinstance(delim, LiteralDelimiter):
            return [(None, m.Lit(lit)) for lit in delim.literals]
        out = []
        for variant in rc.variants(self.ast(delim)):
            node = rc.to_node(variant, groups, at_end=at_end, at_start=at_start)
            if node is not None:
                out.append((to_source(variant), node))
        return out

    def open_variants(self, tool: Tool, groups: dict) -> list[m.Node]:
        """Variants of the call open for `tool` whose witness the open pattern
        reads back with the right name (a word written right after the name
        would otherwise run into it)."""
        field, out = self.tool_field, []
        for source, node in self.delimiter_variants(field.open, groups):
            contexts = LOOKBEHIND_CONTEXTS
            if source is not None:
                contexts += tuple(self.lookbehind_witnesses(rc.ast_of(source)))
            if source is not None and groups:
                group = next(iter(groups))
                matcher = regex.compile(source, regex.DOTALL)
                texts = {self.shortest(node)}
                try:
                    texts.add(_grown(node))
                except TypeError:
                    pass
                if not any(all(_reads_name(matcher, text, group, tool.name, before) for text in texts) for before in contexts):
                    continue
            out.append(node)
        return out

    def lookbehind_witnesses(self, variant) -> list[str]:
        """Shortest texts a leading look-behind of a variant accepts."""
        out = []
        for item in rc._items(variant):
            if isinstance(item, Look) and item.behind and not item.negative:
                node = rc.to_node(item.body, at_start=True, at_end=True)
                if node is not None:
                    out.append(self.shortest(node))
            elif not rc.conditional_empty(item):
                break
        return out

    # -- states ------------------------------------------------------------------------
    def calls_allowed(self, cs: int) -> bool:
        return bool(self.call_tools) and cs in (0, 1)

    def next_calls(self) -> int:
        return 1 if self.high is None else 2

    def may_end(self, cs: int) -> bool:
        return self.low == 0 or cs > 0

    def content_allowed(self, cd: bool) -> bool:
        return self.content_block is not None and (not cd or self.content_block.repeats)

    def reasoning_again(self) -> bool:
        return self.reasoning is not None and self.reasoning.repeats and self.options.reasoning != "forbid"

    def state_name(self, state, suffix: str = "") -> str:
        cs, cd = state
        return ("before_calls", "after_call", "calls_done")[cs] + ("_content_done" if cd and self.content_block else "") + suffix

    def _rule(self, name: str, make) -> m.Ref:
        """A named rule built once; a placeholder while it is built breaks cycles."""
        if name not in self.g.rules:
            self.g.rules[name] = m.EMPTY
            self.g.rules[name] = make()
        return m.Ref(name)

    def entries(self, state) -> list[tuple]:
        """What may open from the segment of `state`: (delimiter, groups,
        node after it, witness of what follows it, at_end, whole variants)."""
        cs, cd = state
        out = []
        if self.calls_allowed(cs):
            for t in self.call_tools:
                groups = self.opens[t.name]
                out.append((self.tool_field.open, groups, self.call_rest(t, (self.next_calls(), cd)), self.body_witness[t.name], False, self.open_variants(t, groups)))
        if self.content_allowed(cd):
            block = self.block(self.content_block, (cs, True))
            out.append((self.content_block.open, None, block, "x", False, [n for _, n in self.delimiter_variants(self.content_block.open)]))
        if self.reasoning_again():
            block = self.block(self.reasoning, state)
            out.append((self.reasoning.open, None, block, "x", False, [n for _, n in self.delimiter_variants(self.reasoning.open)]))
        if self.may_end(cs) and self.end_close is not None:
            # After the implicit field's close the parser is back in the same
            # region (ernie45 closes content with `</response>`, then calls):
            # so is the grammar. Variants that need the end of the output
            # (`\s*$`) end it.
            out.append((self.end_close, None, self.seg(state), "x", False, []))
            out.append((self.end_close, None, m.EMPTY, "", True, [n for _, n in self.delimiter_variants(self.end_close, at_end=True)]))
        return out

    def call_rest(self, tool: Tool, state) -> m.Ref:
        """A call's body after its open, its close, then the segment of `state`."""
        index = self.call_tools.index(tool)
        ref = self._rule(f"call_{index}_{self.state_name(state)}", lambda: m.seq(self.bodies[tool.name], self.after_call(state)))
        self.call_bodies[ref] = self.body_witness[tool.name]
        return ref

    def open_not_closing(self, variant: m.Node, then: m.Node, before: str) -> m.Node | None:
        """A call open written right after a call's close, narrowed so that
        the close does not match again at once (minimax_m1's zero-width close
        `(?<=\\})(?=\\s*\\{"name")` and open `(?<=\\})\\s*` read `}{` as an
        empty call body): an optional leading run becomes required, or the
        variant is dropped (None)."""
        body = self.call_bodies.get(then)
        field = self.tool_field
        if body is None or not isinstance(field.close, RegexDelimiter):
            return variant
        close = _compiled(to_source(self.ast(field.close)))

        def closes_at_once(node: m.Node) -> bool:
            written = before + self.shortest(node)
            return close.match(written + body, len(written)) is not None

        if not closes_at_once(variant):
            return variant
        narrowed = _nonempty(variant)
        if narrowed is None or closes_at_once(narrowed):
            return None
        return narrowed

    def direct(self, state) -> list[tuple[str | None, m.Node, m.Node]]:
        """The segment's continuations written with no text first: (witness or
        None for the end of the output, delimiter variant, node after it)."""
        out = []
        for _, _, then, after_w, at_end, variants in self.entries(state):
            for variant in variants:
                # Right after a close, the end of turn ends the output (text
                # after it, allowed after free text, confuses greedy lexers).
                out.append((self.shortest(variant) + after_w, variant, m.EMPTY if at_end else then))
        if self.may_end(state[0]):
            out.append((None, m.EMPTY if self.implicit is not None else self.null_end(), m.EMPTY))
        return out

    def grouped(self, found: list[tuple[m.Node, m.Node]]) -> list[m.Node]:
        """(variant, then) pairs as one alternative per `then`."""
        by_then: dict[m.Node, list[m.Node]] = {}
        for variant, then in found:
            by_then.setdefault(then, []).append(variant)
        return [m.seq(self.shared(variants), then) for then, variants in by_then.items()]

    def seg(self, state, must_exit: bool = False) -> m.Ref:
        """Implicit-region text (or dropped whitespace) up to the next block,
        the end of turn or (when the state allows) the end of the output."""

        def make():
            entries = self.entries(state)
            may_end = self.may_end(state[0]) and not must_exit
            if self.implicit is not None:
                exits = []
                for delim, groups, then, after_w, at_end, _ in entries:
                    exits += self.exits(delim, then, groups, at_end=at_end, follow=after_w)
                return m.Until(self.exclude_all, tuple(_merge_exits(exits)), may_end)
            if not may_end:
                # Calls last: where the output may not end yet, a call is what
                # leads to an end (the option that ends a loop comes last).
                calls = [e for e in entries if e[0] is self.tool_field.open and e[1] is not None]
                entries = [e for e in entries if not any(e is c for c in calls)] + calls
            whole = [m.seq(WS, node) for node in self.grouped([(v, then) for _, _, then, _, _, variants in entries for v in variants])]
            if may_end:
                whole.append(self.null_end())
            return m.alt(*whole) if whole else m.EMPTY

        return self._rule(self.state_name(state, "_then_block" if must_exit else ""), make)

    def close_variants(self, delim: Delimiter):
        """(regex source or None, node before more text, node at the end of the output, witness)."""
        if isinstance(delim, LiteralDelimiter):
            return [(None, m.Lit(lit), m.Lit(lit), lit) for lit in delim.literals]
        out = []
        for variant in rc.variants(self.ast(delim)):
            mid, end = rc.to_node(variant), rc.to_node(variant, at_end=True)
            if mid is None and end is None:
                continue
            out.append((to_source(variant), mid, end, self.shortest(end if end is not None else mid)))
        return out

    def after_call(self, state) -> m.Ref:
        """A call's close, then the segment of `state`. A close that matches
        before any text (look-arounds checked on witnesses) leads to free
        text; one that looks ahead at the next block leads to that block."""

        def make():
            field = self.tool_field
            if field.close is None:
                return m.EMPTY  # the call runs to the end of the output
            witness = self.body_witness[self.call_tools[0].name]
            cs = state[0]
            universal, specific, at_eos, universal_texts = [], [], [], []
            direct = self.direct(state)
            for source, mid, end, text in self.close_variants(field.close):
                valid = lambda follow: source is None or _close_matches(source, witness, text, follow)
                if mid is not None and self.implicit is not None:
                    if all(map(valid, TEXT_AFTER)) and (not self.may_end(cs) or valid(None)):
                        universal.append(m.seq(mid, self.seg(state)))
                        universal_texts.append(text)
                        continue
                    if valid("\nx"):
                        specific.append((text, m.seq(mid, m.Lit("\n"), LETTER, self.seg(state))))
                found = []
                for follow, variant, then in direct:
                    if follow is None:
                        if end is not None and valid(None):
                            if self.implicit is not None:
                                at_eos.append((text, end))
                                continue
                            # The turn's end literals after the close (`<|end|>`)
                            # only where the close still matches before them
                            # (gpt_oss: `<|call|>` then only whitespace).
                            tails = [v for v in (variant.items if isinstance(variant, m.Alt) else (variant,)) if valid(self.shortest(v) or None)]
                            if tails:
                                at_eos.append((text, m.seq(end, m.alt(*tails))))
                    elif mid is not None and valid(follow):
                        variant = self.open_not_closing(variant, then, witness + text)
                        if variant is not None:
                            found.append((variant, then))
                specific.extend((text, m.seq(mid, node)) for node in self.grouped(found))
            # A close that writes what a close followed by free text writes
            # (and more) is left out: a greedy lexer would take the longer
            # one and never see the text.
            kept = [node for text, node in specific + at_eos if not any(text.startswith(u) for u in universal_texts)]
            options = kept + universal  # the ones that lead to the end last (random walks end on them)
            if not options:
                raise m.GrammarError(field.close.path, "no variant of the close matches before anything the grammar can write next")
            return m.alt(*options)

        return self._rule("close_" + self.state_name(state), make)

    def block(self, field: Field, state) -> m.Ref:
        """The body of a text field up to its close, then the segment of
        `state` (or the end of the output, which closes the region, when the
        state may end). A close that only looks ahead at the next block
        (`(?=\\s*<tool_call>)`) ends the text at that block's trigger."""

        def make():
            if field.close is None:
                return m.Until((), (), True)
            if isinstance(field.close, LiteralDelimiter):
                exits = list(self.exits(field.close, self.seg(state)))
            else:
                exits = []
                for variant in rc.variants(self.ast(field.close)):
                    found = rc.splits(variant)
                    if found is None:
                        continue
                    if not rc.ends_in_lookahead(variant):
                        exits += self.variant_exits(variant, self.seg(state))
                        continue
                    # A literal then a look-ahead at the next block
                    # (`<calls>(?=\s*<invoke)`): that block follows at once.
                    matcher = regex.compile(to_source(variant), regex.DOTALL)
                    for trigger, post in self.variant_exits(variant, m.EMPTY):
                        written = trigger + self.shortest(post)
                        for follow, node, then in self.direct(state):
                            hit = None if follow is None else matcher.match(written + follow)
                            if hit is not None and hit.end() == len(written):
                                exits.append((trigger, m.seq(post, node, then)))
            if isinstance(field.close, RegexDelimiter):
                for variant in rc.variants(self.ast(field.close)):
                    if rc.splits(variant) is not None:
                        continue
                    matcher = regex.compile(to_source(variant), regex.DOTALL)
                    for delim, groups, then, after_w, at_end, _ in self.entries(state):
                        rests: dict[str, list[m.Node]] = {}
                        for trigger, post in self.split_parts(delim, groups, at_end=at_end, follow=after_w):
                            hit = matcher.match(trigger + self.shortest(post) + after_w)
                            if hit is not None and hit.end() == 0:
                                rests.setdefault(trigger, []).append(post)
                        exits += [(trigger, m.seq(self.shared(posts), then)) for trigger, posts in rests.items()]
            if not exits:
                raise m.GrammarError(field.close.path, "no literal that every match contains: free text cannot be kept from matching it")
            return m.Until(tuple(sorted({t for t, _ in exits})), tuple(_merge_exits(exits)), self.may_end(state[0]))

        return self._rule(f"{field.name}_then_{self.state_name(state)}", make)

    def variant_exits(self, variant, then: m.Node) -> list[tuple[str, m.Node]]:
        """(trigger, rest + `then`) for one variant of a close that ends text."""
        out = []
        for s in rc.splits(variant) or []:
            if s.start_only or any(isinstance(item, Look) and item.behind and not item.negative for item in s.pre):
                continue
            post = rc.to_node(Concat(s.post))
            if post is not None:
                out.append((s.trigger, m.seq(post, then)))
        return out

    def split_parts(self, delim: Delimiter, groups=None, *, at_end=False, follow: str | None = None) -> list[tuple[str, m.Node]]:
        """(trigger, rest) for each way a delimiter starts with a literal
        (what comes before it is absorbed by the free text). With `follow`
        (a witness of the call body after a call open), a way is kept only
        when the open reads it back before that body with the tool's name
        (its look-ahead may need a body the grammar does not write)."""
        if isinstance(delim, LiteralDelimiter):
            found = [(None, s) for s in self.split(delim)]
        else:
            found = [(branch, s) for branch in rc.variants(self.ast(delim)) for s in (rc.splits(branch) or [])]
        names = {g: n.text for g, n in (groups or {}).items() if isinstance(n, m.Lit)}
        out = []
        for branch, s in found:
            if s.start_only or any(isinstance(item, Look) and item.behind and not item.negative for item in s.pre):
                continue  # only at the start, or only after a given character: not after free text
            post = rc.to_node(Concat(s.post), groups, at_end=at_end)
            if post is None:
                continue
            if follow is not None and names and branch is not None:
                matcher = _compiled(to_source(branch))
                texts = {s.trigger + self.shortest(post)}
                try:
                    texts.add(s.trigger + _grown(post))
                except TypeError:
                    pass
                hits = [(text, matcher.match(text + follow)) for text in texts]
                if not all(hit is not None and hit.end() == len(text) and all(hit.group(g) == v for g, v in names.items()) for text, hit in hits):
                    continue
            out.append((s.trigger, post))
        return out

    def null_end(self) -> m.Node:
        """Without an implicit field, the content block's close literals may
        still end the turn (the parser drops them)."""
        if self.content_block is not None and self.content_block.close is not None:
            end = self.full(self.content_block.close, at_end=True)
            if end is not None:
                return m.alt(m.seq(WS, end, WS), WS)
        return WS

    def tail(self) -> m.Ref:
        """After an end-of-turn close the parser reads text again: allow more
        text and closes, but no more blocks."""

        def make():
            exits = self.exits(self.end_close, m.Ref("tail"), at_end=True)
            return m.Until(self.exclude_all, tuple(_merge_exits(exits)), True)

        return self._rule("tail", make)


# What a look-behind in a call open may need before it (after a close).
LOOKBEHIND_CONTEXTS = ("", ";", ",", "}", "]", ">", "\n", " ")


def _reads_name(matcher, text: str, group: str, name: str, before: str) -> bool:
    """Every way of writing this open variant reads back the tool's name
    (here: the witness, after `before` for a look-behind)."""
    hit = matcher.fullmatch(before + text, len(before))
    return hit is not None and hit.group(group) == name


# Free text that may follow a call's close, as witnesses for its look-arounds.
TEXT_AFTER = ("x", " x", "\nx", "x y")
LETTER = m.Chars(CharSet.of([(0x41, 0x5A), (0x61, 0x7A)]))
# Free text for witnesses: a backslash at its end escapes a quote that ends it.
FILL = "a b\\"
# A JSON string character that is neither a quote, a backslash nor a control
# character: patterns that read JSON strings raw keep escapes as written.
PLAIN_STRING_CHAR = m.Chars(CharSet.of([(0x20, 0x21), (0x23, 0x5B), (0x5D, 0x10FFFF)]))


def _close_matches(source: str, body: str, text: str, follow: str | None) -> bool:
    """The close matches `text` right after `body` and before `follow` (None:
    the end of the output); it may also take whitespace that follows."""
    subject = body + text + (follow or "")
    hit = _compiled(source).match(subject, len(body))
    if hit is None or hit.end() < len(body) + len(text):
        return False
    extra = subject[len(body) + len(text) : hit.end()]
    return extra == "" or extra.isspace()


_COMPILED: dict[str, object] = {}


def _compiled(source: str):
    if source not in _COMPILED:
        _COMPILED[source] = regex.compile(source, regex.DOTALL)
    return _COMPILED[source]


def _optional_char(node) -> bool:
    from ..regex.nodes import Char, Repeat

    return isinstance(node, Repeat) and node.min == 0 and node.max == 1 and isinstance(node.body, Char) and node.body.char in "'\""


def _merge_exits(exits: list[tuple[str, m.Node]]) -> list[tuple[str, m.Node]]:
    """One exit per trigger. A trigger that extends a shorter one
    (`<|X|>calls>` after `<|X|>`) becomes the rest of the shorter one's exit:
    text ends at the first of them anyway, and a lazy lexer would stop at
    the shorter one and lose the longer."""
    triggers = {t for t, _ in exits}
    merged: dict[str, list[m.Node]] = {}
    for trigger, node in exits:
        shorter = [t for t in triggers if t != trigger and trigger.startswith(t)]
        if shorter:
            base = min(shorter, key=len)
            node, trigger = m.seq(m.Lit(trigger[len(base) :]), node), base
        merged.setdefault(trigger, []).append(node)
    return [(t, m.alt(*nodes)) for t, nodes in merged.items()]


def _substitute_key(item, key: str):
    return item


def members_in_order_kv(grammar, order, required, members):
    from .schema import members_in_order

    return members_in_order(grammar, order, required, members, m.EMPTY)
