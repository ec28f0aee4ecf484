"""Call bodies: the arguments of one call as the template's content type
writes them (json, xml-inline tags, kv-lines), typed by the tool's schema.
A part of `Builder` (build.py), kept apart for its size.
"""

from __future__ import annotations

import json

import regex

from ..ir import Delimiter, LiteralDelimiter, RegexDelimiter
from ..regex import to_source
from ..regex.charset import CharSet
from ..regex.nodes import Concat, Group, Look
from . import model as m
from . import regexconv as rc
from .binding import Tool, _merge, _place
from .schema import STANDARD, WS, WS_CHARS, Dialect, Expander
from .witness import FILL, _compiled


class CallBodies:
    """`Builder`'s rules for a call's body (after its open, before its close)."""

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
                Expander(m.Grammar(), self.fmt, dialect).value(
                    tool.parameters, tool.path
                )  # errors name the tool's path
            if b.each:
                items = [self.element_schema(t) for t in self.active_tools()]
                schema = {
                    "type": "array",
                    "items": items[0] if len(items) == 1 else {"anyOf": items},
                    "minItems": 1 if self.low else 0,
                }
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
                    if rc.ends_in_lookahead(v) and not regex.match(
                        to_source(rc._items(v)[-1].body), " " + first, regex.DOTALL
                    ):
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
            # Repeated keys would become lists: the grammar writes each key once.
            note = "merge_duplicates: each argument is written once (a repeated key would make its value a list)"
            if note not in self.g.notes:
                self.g.notes.append(note)
        value_parser = args.get("value_parser") or {}
        if path:
            inner = value_parser.get("args", {}) if value_parser.get("name") == "xml-inline" else None
            if inner is None:
                raise m.GrammarError(
                    where + ".value_parser", f"the value of tag '{path[0]}' must be parsed by xml-inline"
                )
            value = self.xml_body(inner, tool, path[1:], where + ".value_parser.args", trailing=False)
            forms = self.outer_forms(args, where, path[0], value, tool)
            if forms is None:
                return m.seq(WS, self.tag(args, where, path[0], value=value), WS)
            # The open looks ahead at the tag: nothing may come before it.
            return m.seq(m.EMPTY if self.open_lookahead_heads(tool) else WS, forms, WS)
        props = tool.parameters.get("properties") or {}
        required = [k for k in props if k in set(tool.parameters.get("required") or [])]
        try:
            members = {
                k: self.tag(
                    args, where, k, schema=v, schema_path=f"{tool.path}.properties.{k}", value_parser=value_parser
                )
                for k, v in props.items()
            }
        except m.GrammarError as error:
            if "followed by a literal" not in str(error):
                raise
            forms = self.xml_forms(args, tool, where, props, required, value_parser, error)
            return m.seq(forms, self.ws()) if trailing else forms
        # Tags one per line; else separated by commas (Python call arguments).
        sep = None
        for text, node in (("\n", WS), (", ", m.seq(m.Lit(","), WS))):
            if self.tags_read_back(args, list(props)[:2], members, text):
                sep = node
                break
        if sep is None:
            self.check_tags_read_back(args, where, list(props)[:2], members)
        return m.seq(self.ws(), self.members(args, list(props), required, members, sep), self.ws())

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
            start = by_start.setdefault(
                (to_source(Concat(tuple(items[:index]))), to_source(Concat(tuple(items[index + 1 :])))), {}
            )
            for key, schema in props.items():
                try:
                    node = self.tag(
                        dict(args, tag_pattern=to_source(variant)),
                        where,
                        key,
                        schema=schema,
                        schema_path=f"{tool.path}.properties.{key}",
                        value_parser=value_parser,
                    )
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

        json_form = self.json_object_form(pattern, tool, props, required)
        complete = [found for found in by_start.values() if set(found) == set(props)]
        # One form (MiniMax's parameter tags): in any order; several forms
        # (deepseek_v32's tags, JSON members): in the schema's order.
        single = len(complete) == 1 and json_form is None
        for found in complete:
            members = {k: m.alt(*found[k]) for k in props}
            for text, sep in (("\n", WS), (", ", m.seq(m.Lit(","), WS))):
                if self.tags_read_back(args, list(props)[:2], members, text):
                    if single:
                        forms.append(m.seq(self.ws(), self.members(args, list(props), required, members, sep, text)))
                    else:
                        forms.append(m.seq(WS, members_in_order(self.g, list(props), required, members, sep)))
                    break
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
        close = self.tool_field.close
        close_re = (
            _compiled(to_source(self.ast(close)))
            if isinstance(close, RegexDelimiter) and rc.starts_with_lookbehind(self.ast(close))
            else None
        )
        only_close = not look_only and not heads
        if only_close and close_re is None:
            return None
        pattern = regex.compile(args["tag_pattern"], regex.DOTALL)
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
                # The call's close (a look-behind) matches at the end of the tag, not before
                # (minimax_m2's `(?<=</invoke>)(?=\s*</minimax:tool_call>)` ends the body
                # before the tag pattern's optional section close).
                full = open_w + text
                ends = [p for p in range(len(open_w) + 1, len(full) + 1) if close_re.match(full, p)]
                if any(p < len(full) for p in ends) if only_close else ends != [len(full)]:
                    continue
            # Whitespace after the value sits next to what follows it (one
            # lexeme for greedy lexers), unless the value ends in a `ws` rule
            # of its own (argument tags).
            spaced = body is not m.EMPTY and not only_close
            out.append(m.seq(before, body, m.seq(WS, after) if spaced else after))
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

    def ws(self) -> m.Node:
        """Whitespace around and between argument tags: a rule, so a lexeme
        of its own wherever it is written. Greedy lexers (llguidance) would
        otherwise read it with the literal after it (`\\s*<parameter`) and
        lose the other ways on (`\\s*</invoke>`)."""
        return self.g.add("tag_ws", WS)

    def members(self, args, order, required, members, sep, sep_text=None) -> m.Node:
        """The argument tags in any order, each once (schema.members_any_order),
        when two of them read back in either order; else in schema order."""
        from .schema import ANY_ORDER_LIMIT, members_any_order, members_in_order

        if sep_text is None:
            sep_text = "\n" if sep == WS else ", "
        if len(order) >= 2 and self.tags_read_back(args, order[:2][::-1], members, sep_text):
            if sep == WS:
                # Whitespace between tags is a lexeme of its own (a rule), as
                # around them: a greedy lexer never reads it as the start of
                # one next tag (or the close) and loses the others.
                sep = self.ws()
            harmless = not args.get("merge_duplicates")  # the parser keeps a repeated key's last value
            if len(order) > ANY_ORDER_LIMIT:
                note = (
                    f"more than {ANY_ORDER_LIMIT} arguments: any order, a key may be written again (the last "
                    "value counts)"
                    if harmless
                    else f"more than {ANY_ORDER_LIMIT} arguments with merge_duplicates: written in schema order"
                )
                if note not in self.g.notes:
                    self.g.notes.append(note)
            return members_any_order(self.g, order, required, members, sep, harmless)
        return members_in_order(self.g, order, required, members, sep)

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
            typed = m.seq(before, raw, after)
            if not (value_parser or {}).get("name") == "json" or not ((value_parser or {}).get("args") or {}).get(
                "allow_non_json"
            ):
                return typed
            found = rc.splits(Concat(after_items))
            if found is None or len(found) != 1:
                return typed
            post = rc.to_node(Concat(found[0].post), key_sub, at_start=True, at_end=True)
            pre = rc.to_node(Concat(found[0].pre), key_sub, at_start=True, at_end=True)
            plain = not ((value_parser or {}).get("args") or {}).keys() & {"unquoted_keys", "string_delims"}
            untyped = non_json_text(schema, found[0].trigger, post, pre, plain) if None not in (post, pre) else None
            if untyped is None:
                return typed
            if plain and _any_quoted_text(schema):
                # Text opening with a quote reads as a string either way (the
                # JSON string, or the raw text when it is not one): the raw
                # forms hold the JSON-quoted one, which as a lexeme of its own
                # would outrun them (`"a</p>` then more).
                return m.seq(before, self.g.add("raw_string", untyped))
            # The tag's literal once, then either form (one lexeme with what precedes it).
            return m.seq(before, m.alt(m.seq(raw, after), self.g.add("raw_string", untyped)))
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
            raise m.GrammarError(
                self.tool_field.path + ".transform", f"the name group '{group}' is not in the open pattern"
            )
        node = rc.group_nodes(self.ast(delim))[group]
        if not regex.fullmatch(to_source(node.body), tool.name, regex.DOTALL):
            raise m.GrammarError(
                tool.path.removesuffix(".parameters") + ".name",
                f"the open pattern's '{group}' group cannot match {tool.name!r}",
            )
        return {group: m.Lit(tool.name)}


# Raw text that `json.loads` reads as a value once stripped: what a raw
# string must not be (for a `json` value parser with `allow_non_json`, the
# text is the string only when it is not JSON). The grammar keeps raw
# strings off numbers and the words themselves, and off text that starts
# like a JSON string, array or object unless it cannot be one; those
# strings are written JSON-quoted.
JSON_WORDS = ("true", "false", "null", "NaN", "Infinity")
JSON_HEADS = CharSet.chars('"[{-0123456789') | WS_CHARS


def _reads_as_json(text: str) -> bool:
    try:
        json.loads(text)
    except ValueError:
        return False
    return True


def non_json_text(schema, trigger: str, post: m.Node, pre: m.Node = m.EMPTY, plain: bool = True) -> m.Node | None:
    """A value written raw, as a model writes a string (`<p=city>Paris</p>`),
    where a `json` value parser with `allow_non_json` reads it as that
    string: text up to `trigger` (then `post`) that is not JSON once
    stripped. For an enum (or const), its strings that are not JSON; for a
    string type, any such text; None: no raw form (other types). `pre`:
    what the pattern allows between the value and the trigger (`\\s*`);
    `plain`: the parser has no dialect knobs (`unquoted_keys` reads
    `{x: 1}` as an object), so bracketed text may be written raw."""
    if not isinstance(schema, dict):
        return None
    stop = CharSet.chars(trigger[0])
    close = m.seq(m.Lit(trigger), post)
    if "enum" in schema or "const" in schema:
        values = schema.get("enum", [schema.get("const")])
        safe = [
            v
            for v in values
            if isinstance(v, str) and v == v.strip() and v and trigger not in v + trigger[:-1] and not _reads_as_json(v)
        ]
        return m.alt(*(m.seq(m.Lit(v), pre, close) for v in safe)) if safe else None
    kind = schema.get("type")
    if not (kind == "string" or (isinstance(kind, list) and "string" in kind)):
        return None
    if "anyOf" in schema or "oneOf" in schema:
        return None
    rest = m.Until((trigger,), ((trigger, post),), False)
    words = CharSet.chars("".join(w[0] for w in JSON_WORDS))
    options = [close, m.seq(m.Chars((JSON_HEADS | words | stop).complement()), rest)]
    # A number's characters, then (after whitespace) something else: not a
    # number (`3 apples`, `10am`, `x-ray` is plain); after a minus no
    # `Infinity`.
    numeric = CharSet.chars("0123456789.eE+-")
    options.append(
        m.seq(
            m.Chars(CharSet.chars("-0123456789")),
            m.Rep(m.Chars(numeric), 0, None),
            WS,
            m.Chars((numeric | WS_CHARS | stop | CharSet.chars("IN")).complement()),
            rest,
        )
    )
    if plain and (kind == "string" or not {"array", "object"} & set(kind)):
        # Text opening like a JSON array or object that cannot be one:
        # `[draft]`, `{x}` (after the bracket, a character no value or key
        # starts with).
        value_heads = CharSet.chars('{["-0123456789tfnNI]') | WS_CHARS | stop
        options.append(m.seq(m.Lit("["), WS, m.Chars(value_heads.complement()), rest))
        options.append(m.seq(m.Lit("{"), WS, m.Chars((CharSet.chars('"}') | WS_CHARS | stop).complement()), rest))
    if plain and _any_quoted_text(schema):
        options.append(m.seq(m.Lit('"'), rest))  # `"quoted"`, `"no closing quote`, `"a" and b`
    return m.alt(*options, *_word_forms(close, rest, stop))


def _any_quoted_text(schema: dict) -> bool:
    """A plain string schema: any text opening with a quote satisfies it."""
    return schema.get("type") == "string" and set(schema) <= {"type", "description", "title"}


def _word_forms(close: m.Node, rest: m.Node, stop: CharSet) -> list[m.Node]:
    """Raw strings that start like a JSON word but are not one."""
    out = []
    for word in JSON_WORDS:
        for i in range(1, len(word)):
            # A proper prefix of the word, then the end or another character.
            other = m.Chars((CharSet.chars(word[i]) | stop).complement())
            out.append(m.seq(m.Lit(word[:i]), m.alt(close, m.seq(other, rest))))
        # The whole word, then more than whitespace.
        out.append(m.seq(m.Lit(word), WS, m.Chars((WS_CHARS | stop).complement()), rest))
    return out


# A JSON string character that is neither a quote, a backslash nor a control
# character: patterns that read JSON strings raw keep escapes as written.
PLAIN_STRING_CHAR = m.Chars(CharSet.of([(0x20, 0x21), (0x23, 0x5B), (0x5D, 0x10FFFF)]))


def _optional_char(node) -> bool:
    from ..regex.nodes import Char, Repeat

    return (
        isinstance(node, Repeat)
        and node.min == 0
        and node.max == 1
        and isinstance(node.body, Char)
        and node.body.char in "'\""
    )


def _substitute_key(item, key: str):
    return item


def members_in_order_kv(grammar, order, required, members):
    from .schema import members_in_order

    return members_in_order(grammar, order, required, members, m.EMPTY)
