"""Which conformance vectors exercise which rule of the format.

compiler/conformance/inventory.json lists every rule of the response-template
format (template keys, content parsers and their arguments, transforms, tool
typing, delimiters and hold-back, prefixes, finalize, every error the
reference raises). Each entry's id is a tag that a probe below emits while
the reference interpreter runs a vector: the probes subclass the reference's
ResponseParser and wrap its content parsers, its transform step and its
tool-argument casting, and name the rule each call exercised. So "covered"
means "the reference took that path on that vector", read from the
reference itself, not claimed by the vector's author.

Entries of kind "frontend" are template-validation errors: no vector can
hold them (a port never sees an invalid template: the compiler rejects it
before emitting anything); they name the case of tests/frontend/test_frontend.py's
table that pins them.
"""

from __future__ import annotations

import json
from collections import defaultdict
from contextlib import contextmanager
from pathlib import Path

from .vectors import INVENTORY_FILE, TEMPLATES_DIR, VECTORS_DIR, read_json_lines
from ..resources import CHECKOUT, TEMPLATES_DIR as BUNDLED_DIR


def load_inventory() -> list[dict]:
    return json.loads(INVENTORY_FILE.read_text(encoding="utf-8"))["entries"]


def template_of(name: str) -> dict:
    bundled = BUNDLED_DIR / f"{name}.json"
    path = bundled if bundled.is_file() else TEMPLATES_DIR / f"{name}.json"
    return json.loads(path.read_text(encoding="utf-8"))


def vector_cases() -> list[dict]:
    cases = []
    for path in sorted(VECTORS_DIR.glob("*.jsonl")):
        cases.extend(read_json_lines(path))
    return cases


# --------------------------------------------------------------------------
# Probes
# --------------------------------------------------------------------------


def _empty(value) -> bool:
    return value is None or (isinstance(value, (list, dict, str)) and not value)


def _has_edge_space(text: str) -> bool:
    return text != text.strip()


class _Recorder:
    """The tags of one run."""

    def __init__(self):
        self.tags: set[str] = set()

    def add(self, *tags: str) -> None:
        self.tags.update(tags)


def _content_probes(rec: _Recorder, originals: dict):
    """Wrappers for the reference's content parsers: name -> function(text, args)."""
    import regex

    def text(body, args):
        value = originals["text"](body, args)
        strip = args.get("strip", True)
        if body == "":
            rec.add("content.text.empty")
        elif not body.strip():
            rec.add("content.text.whitespace-only")
        if _has_edge_space(body):
            rec.add("content.text.strip" if strip else "content.text.strip-false")
        if "\r\n" in body:
            rec.add("content.text.crlf")
        if any(ord(char) > 0xFFFF for char in body):
            rec.add("content.text.non-bmp")
        return value

    def number(name):
        def parse(body, args):
            try:
                value = originals[name](body, args)
            except ValueError:
                rec.add(f"content.{name}.error")
                raise
            rec.add(f"content.{name}")
            stripped = body.strip() if args.get("strip", True) else body
            if "_" in stripped:
                rec.add("content.number.underscore")
            if any(char.isdigit() and not char.isascii() for char in stripped):
                rec.add("content.number.unicode-digits")
            if args.get("strip", True) is False:
                rec.add(f"content.{name}.strip-false")
            if name == "float" and "e" in stripped.lower():
                rec.add("content.float.exponent")
            if name == "int" and abs(value) > 2**53:
                rec.add("content.int.beyond-double")
            return value

        return parse

    def boolean(body, args):
        value = originals["bool"](body, args)
        word = body.strip().lower() if args.get("strip", True) else body.lower()
        if word == "1":
            rec.add("content.bool.one")
        elif word == "true":
            rec.add("content.bool.true-any-case" if body.strip() != "true" else "content.bool.true")
        else:
            rec.add("content.bool.other-false")
        return value

    def json_parser(body, args):
        delims = args.get("string_delims", [])
        if args.get("unquoted_keys"):
            rec.add("content.json.unquoted_keys")
            if regex.search(r"(?<=[{,])(\w+):", body):
                rec.add("content.json.unquoted_keys.quoted")
        if delims:
            rec.add("content.json.string_delims")
            if len(delims) > 1:
                rec.add("content.json.string_delims.several")
        try:
            value = originals["json"](body, args)
        except ValueError as error:
            message = str(error)
            if "sentinel" in message:
                rec.add("error.feed.json-sentinel")
            elif "after dialect transforms" in message:
                rec.add("error.feed.json-invalid-after-dialect")
            else:
                rec.add("error.feed.json-invalid")
            raise
        try:
            json.loads(body)
            plain = True
        except ValueError:
            plain = False
        if not plain and not (delims or args.get("unquoted_keys")) and args.get("allow_non_json"):
            rec.add(
                "content.json.allow_non_json" if args.get("strip", True) else "content.json.allow_non_json.strip-false"
            )
        elif not plain and args.get("allow_non_json") and value == (body.strip() if args.get("strip", True) else body):
            rec.add("content.json.allow_non_json")
        elif delims and isinstance(value, (dict, list)):
            rec.add("content.json.string_delims.parsed")
        if plain:
            rec.add("content.json")
            if any(word in body for word in ("NaN", "Infinity")):
                rec.add("content.json.nan-infinity")
            pairs = []
            json.loads(body, object_pairs_hook=lambda items: pairs.append([k for k, _ in items]) or dict(items))
            if any(len(keys) != len(set(keys)) for keys in pairs):
                rec.add("content.json.duplicate-keys")
            if "\\u" in body:
                rec.add("content.json.unicode-escapes")
            if any(isinstance(v, int) and not isinstance(v, bool) and abs(v) > 2**53 for v in _leaves(value)):
                rec.add("content.json.beyond-double")
        return value

    def xml_inline(body, args):
        pattern = args.get("tag_pattern")
        try:
            value = originals["xml-inline"](body, args)
        except AttributeError:
            rec.add("error.feed.xml-value-group-unmatched-parsed")
            raise
        except ValueError as error:
            if pattern is None:
                rec.add("error.feed.xml-no-tag-pattern")
            elif "named group 'key'" in str(error):
                rec.add("error.feed.xml-no-key-group")
            raise
        rec.add("content.xml-inline")
        matches = list(regex.finditer(pattern, body, flags=regex.DOTALL))
        keys = [m.groupdict().get("key") for m in matches]
        if len(keys) != len(set(keys)):
            rec.add(
                "content.xml-inline.merge_duplicates"
                if args.get("merge_duplicates")
                else "content.xml-inline.duplicates-last-wins"
            )
        if not matches:
            rec.add("content.xml-inline.no-match")
        if any(m.groupdict().get("value") is None for m in matches):
            rec.add("content.xml-inline.value-missing")
        if args.get("value_parser") is not None and matches:
            rec.add("content.value_parser")
        return value

    def kv_lines(body, args):
        value = originals["kv-lines"](body, args)
        rec.add("content.kv-lines")
        line_sep = args.get("line_sep", "\n")
        kv_sep = args.get("kv_sep", ":")
        if "line_sep" in args:
            rec.add("content.kv-lines.line_sep")
        if "kv_sep" in args:
            rec.add("content.kv-lines.kv_sep")
        strip = args.get("strip", True)
        keys = []
        for line in body.split(line_sep):
            kept = line.strip() if strip else line
            if not kept or kv_sep not in kept:
                rec.add("content.kv-lines.line-skipped")
                continue
            if kept.count(kv_sep) > 1:
                rec.add("content.kv-lines.first-separator")
            key = kept.split(kv_sep, 1)[0]
            keys.append(key.strip() if strip else key)
            if not strip and _has_edge_space(line):
                rec.add("content.kv-lines.strip-false")
        if len(keys) != len(set(keys)):
            rec.add("content.kv-lines.duplicates-last-wins")
        if args.get("value_parser") is not None and keys:
            rec.add("content.value_parser")
        return value

    return {
        "text": text,
        "int": number("int"),
        "float": number("float"),
        "bool": boolean,
        "json": json_parser,
        "xml-inline": xml_inline,
        "kv-lines": kv_lines,
    }


def _leaves(value):
    if isinstance(value, dict):
        for item in value.values():
            yield from _leaves(item)
    elif isinstance(value, list):
        for item in value:
            yield from _leaves(item)
    else:
        yield value


def _placeholders(node, out):
    """Placeholder paths of a transform (the reference's own regex)."""
    from transformers.utils.chat_parsing.content_parsers import _PLACEHOLDER

    if isinstance(node, dict):
        for value in node.values():
            _placeholders(value, out)
    elif isinstance(node, list):
        for value in node:
            _placeholders(value, out)
    elif isinstance(node, str):
        whole = _PLACEHOLDER.fullmatch(node)
        if whole:
            out.append(whole.group(1))
        elif "{" in node:
            out.append(None)  # a string that looks like a placeholder but is a literal
    return out


def _transform_probe(rec: _Recorder, original):
    def process_field(body, field, captures):
        if field.content_args.get("value_parser") is not None and "name" not in field.content_args["value_parser"]:
            rec.add("content.value_parser.default-text")
        try:
            value = original(body, field, captures)
        except (KeyError, ValueError) as error:
            message = str(error)
            if "is not defined" in message:
                rec.add("error.transform.unknown-name")
            elif "cannot index into" in message:
                rec.add("error.transform.index-non-dict")
            elif "is missing key" in message:
                rec.add("error.transform.missing-key")
            elif "transform_each requires the parsed content to be a list" in message:
                rec.add("error.transform_each.not-list")
            elif "transform_each requires each list element" in message:
                rec.add("error.transform_each.item-not-dict")
            raise
        if field.transform is None:
            return value
        rec.add("transform")
        paths = _placeholders(field.transform, [])
        if isinstance(field.transform, (dict, list)):
            rec.add("transform.nested")
        else:
            rec.add("transform.whole-value")
        if None in paths:
            rec.add("transform.braces-literal")
        if any(not isinstance(leaf, str) for leaf in _leaves(field.transform)):
            rec.add("transform.scalars-kept")
        if any(p and "." in p for p in paths):
            rec.add("transform.dotted")
        roots = {p.split(".")[0] for p in paths if p}
        if roots & set(captures):
            rec.add("transform.capture")
        if "content" in captures and not field.transform_each:
            rec.add("transform.content-shadows-capture")
        if field.transform_each:
            rec.add("transform_each")
            if any(isinstance(item, dict) and set(item) & set(captures) for item in _transform_items(body, field)):
                rec.add("transform_each.item-shadows-capture")
        if any(not isinstance(leaf, str) for leaf in _leaves(value) if leaf is not None) or None in _leaves(value):
            rec.add("transform.type-kept")
        return value

    return process_field


def _transform_items(body, field):
    from transformers.utils.chat_parsing.content_parsers import parse_content

    try:
        value = parse_content(body, field.content, field.content_args)
    except Exception:  # noqa: BLE001 - only for classification
        return []
    return value if isinstance(value, list) else []


def _cast_probe(rec: _Recorder, original):
    def coerce(raw, types):
        value = original(raw, types)
        typed = value is not raw
        if len(types) > 1:
            rec.add("typing.union")
        if not typed:
            rec.add("typing.all-fail-stays-string")
        for index, type_name in enumerate(types):
            won = typed and original(raw, (type_name,)) is not raw and original(raw, (type_name,)) == value
            if won:
                if index > 0:
                    rec.add("typing.union.later-type-wins")
                rec.add(_cast_tag(type_name, raw, value))
                break
            rec.add(f"typing.{type_name}.fails" if type_name in _KNOWN else "typing.unknown-type")
        return value

    return coerce


_KNOWN = ("integer", "number", "boolean", "null", "object", "array", "string")


def _cast_tag(type_name: str, raw: str, value) -> str:
    if type_name == "integer":
        try:
            int(raw)
            return "typing.integer"
        except ValueError:
            return "typing.integer.whole-float-text"
    if type_name == "number":
        return "typing.number.int" if isinstance(value, int) else "typing.number.float"
    if type_name == "boolean":
        return "typing.boolean.digit" if raw.strip() in ("0", "1") else "typing.boolean.word"
    if type_name == "null":
        return "typing.null.None" if raw.strip() == "None" else "typing.null.null"
    return f"typing.{type_name}"


def _schema_probe(rec: _Recorder, original):
    def schema_types(schema):
        if isinstance(schema, dict):
            if isinstance(schema.get("type"), list):
                rec.add("typing.schema.type-list")
            for union in ("anyOf", "oneOf"):
                if schema.get(union):
                    rec.add(f"typing.schema.{union}")
            if schema.get("nullable"):
                rec.add("typing.schema.nullable")
            if "type" not in schema and not schema.get("anyOf") and not schema.get("oneOf"):
                rec.add("typing.schema.untyped")
        return original(schema)

    return schema_types


def _parser_class(rec: _Recorder):
    from transformers.utils.chat_parsing.response_parser import ResponseParser

    class ProbeParser(ResponseParser):
        def __init__(self, template, prefix=None, *, tools=None):
            if prefix is None:
                rec.add("error.init.prefix-none")
            elif prefix == "":
                rec.add("prefix.empty")
            for tool in tools or []:
                if isinstance(tool, dict) and "function" not in tool:
                    rec.add("typing.tools.bare-shape")
                if isinstance(tool, dict) and "function" in tool:
                    rec.add("typing.tools.function-shape")
            if tools is not None and not tools:
                rec.add("typing.tools.empty-list")
            super().__init__(template, prefix, tools=tools)
            spec = self._spec
            rec.add("start_anchor.pattern" if spec.start_anchor_literals is None else "start_anchor.literal")
            if template.get("version") is not None:
                rec.add("template.version")
            raw = template.get("start_anchor")
            if isinstance(raw, list):
                rec.add("start_anchor.list")
                if len(set(raw)) != len(raw):
                    rec.add("start_anchor.list-duplicates")
            if spec.implicit is None:
                rec.add("field.no-implicit")

        def _consume_prefix(self, prefix):
            matches = list(self._spec.start_anchor_re.finditer(prefix))
            if not matches:
                rec.add("prefix.no-anchor")
            elif len(matches) > 1:
                rec.add("prefix.last-anchor")
            else:
                rec.add("prefix.one-anchor")
            if matches and matches[-1].end() == len(prefix):
                rec.add("prefix.nothing-after-anchor")
            super()._consume_prefix(prefix)
            if self.initial_events:
                rec.add("prefix.events")
            if self._pos < len(self._buffer):
                rec.add("prefix.held-back")

        def feed(self, text):
            if text == "":
                rec.add("feed.empty-chunk")
            return super().feed(text)

        def finalize(self):
            before = len(self._buffer) - self._pos
            current, opened = self._current, self._opened
            try:
                message, events = super().finalize()
            except ValueError as error:
                if "Required response_template fields missing" in str(error):
                    rec.add("error.finalize.required-missing")
                raise
            if before:
                rec.add("finalize.flush-held")
            if current is not None and current != self._implicit_name and opened:
                rec.add("finalize.closes-open-region")
            defaults = self._spec.defaults
            if defaults:
                rec.add("template.defaults")
            if any(_empty(message[key]) for key in defaults if key in message):
                rec.add("finalize.defaults-kept-when-empty")
            if any(not f.optional for f in self._spec.fields.values()):
                rec.add("field.optional-false.present")
            if len(message) > 1:
                rec.add("finalize.key-order")
            return message, events

        def _process(self, events, eos):
            rec.add("process.eos" if eos else "process.stream")
            super()._process(events, eos)
            if not eos and self._pos < len(self._buffer):
                rec.add("hold.text-held")

        def _scan(self, watch, eos):
            best, hold = super()._scan(watch, eos)
            candidates = []
            for kind, field in watch:
                pattern = field.open_re if kind == "open" else field.close_re
                literal = (field.open_literals if kind == "open" else field.close_literals) is not None
                m = (
                    pattern.search(self._buffer, self._pos)
                    if eos
                    else pattern.search(self._buffer, self._pos, partial=True)
                )
                if m is None:
                    continue
                at_edge = m.end() == len(self._buffer)
                if not eos and m.partial:
                    if m.start() < len(self._buffer):
                        rec.add("hold.partial-literal" if literal else "hold.partial-pattern")
                    continue
                if not eos and at_edge:
                    if m.start() == m.end():
                        rec.add("hold.zero-width-at-edge")
                        continue
                    if not literal:
                        rec.add("hold.pattern-at-edge")
                        continue
                    if field.open_literal_can_extend if kind == "open" else field.close_literal_can_extend:
                        rec.add("hold.literal-can-extend")
                        continue
                    rec.add("commit.literal-at-edge")
                candidates.append((m.start(), -(m.end() - m.start()), 0 if kind == "open" else 1, field.name))
            if eos and candidates:
                rec.add("commit.at-eos")
            candidates.sort()
            if len(candidates) > 1 and candidates[0][0] == candidates[1][0]:
                first, second = candidates[0], candidates[1]
                if first[1] != second[1]:
                    rec.add("tie.longest")
                elif first[2] != second[2]:
                    rec.add("tie.open-before-close")
                else:
                    rec.add("tie.field-name")
            if candidates and best is None:
                rec.add("hold.blocks-commit")
            if best is not None:
                kind, field, m = best
                if (
                    kind == "open"
                    and self._opened
                    and self._current is not None
                    and self._current == self._implicit_name
                ):
                    rec.add("implicit.closed-by-open")
                if (field.open_literals if kind == "open" else field.close_literals) is None:
                    _regex_tags(rec, (field.open_re if kind == "open" else field.close_re).pattern, m, self._buffer)
                if m.start() == m.end():
                    rec.add("delim.zero-width-match")
                    if kind == "close" and not self._opened:
                        rec.add("close.zero-width-empty-stops")
            return best, hold

        def _accumulate(self, events, text):
            if text and self._current is None:
                rec.add("null-sink.discard")
            if text and self._current is not None and self._current == self._implicit_name and not self._opened:
                rec.add("implicit.lazy-open")
            if text and self._current is not None:
                dirty = self._spec.fields[self._current].content not in ("text", "int", "float", "bool")
                rec.add("event.chunk-dirty" if dirty else "event.chunk-clean")
            super()._accumulate(events, text)

        def _open_explicit(self, events, field, m):
            if field.open_literals is not None:
                rec.add("delim.open.literal" if len(field.open_literals) == 1 else "delim.open.list")
            else:
                rec.add("delim.open.pattern")
                if any(value is None for value in m.groupdict().values()):
                    rec.add("capture.unmatched-group-dropped")
                if m.groupdict():
                    rec.add("capture.named-groups")
            super()._open_explicit(events, field, m)

        def _close_current(self, events):
            current, opened = self._current, self._opened
            if current is None or not opened:
                if current is not None:
                    rec.add("close.never-opened-skipped")
                return super()._close_current(events)
            field = self._spec.fields[current]
            previous = self._output.get(current)
            had_key = current in self._output
            rec.add(f"field.content.{field.content}")
            for key in field.content_args:
                rec.add(f"field.content_args.{key}")
            if field.close_re is not None and field.close_re.groupindex:
                rec.add("capture.close-groups-not-in-scope")
            try:
                super()._close_current(events)
            except ValueError as error:
                if "'join' requires" in str(error):
                    rec.add("error.join.non-string")
                raise
            value = events[-1]["value"]
            if field.join is not None:
                rec.add("join.append" if previous is not None else "join.first")
                if previous is not None and value == "":
                    rec.add("join.empty-match")
            elif field.repeats:
                rec.add("repeats.append")
            else:
                rec.add("store.overwrite" if had_key and current not in self._spec.defaults else "store.set")
                if had_key and current in self._spec.defaults:
                    rec.add("store.replaces-default")
            if not field.optional:
                rec.add("field.optional-false")
            if current == self._implicit_name:
                rec.add("implicit.closed")
            if field.close_re is None:
                rec.add("delim.no-close")
            elif field.close_literals is not None and len(field.close_literals) > 1:
                rec.add("delim.close.list")
            elif field.close_literals is not None:
                rec.add("delim.close.literal")
            else:
                rec.add("delim.close.pattern")
            if self._tool_params and _is_call(value):
                rec.add("typing.applied")
            if self._tool_params and isinstance(value, list) and any(_is_call(item) for item in value):
                rec.add("typing.applied-to-list")
            if _empty(value):
                rec.add("value.empty")

        def _coerce_tool_calls(self, value):
            for item in value if isinstance(value, list) else [value]:
                function = item.get("function") if isinstance(item, dict) else None
                if not isinstance(function, dict):
                    continue
                name, arguments = function.get("name"), function.get("arguments")
                if not isinstance(name, str) or not isinstance(arguments, dict):
                    rec.add("typing.not-a-call-skipped")
                    continue
                properties = self._tool_params.get(name)
                if name not in self._tool_params:
                    rec.add("typing.tool-unknown")
                elif not properties:
                    rec.add("typing.tool-without-properties")
                for key, argument in arguments.items():
                    if not properties:
                        break
                    if key not in properties:
                        rec.add("typing.argument-not-in-schema")
                    elif isinstance(argument, list) and not isinstance(argument, str):
                        from transformers.utils.chat_parsing.response_parser import _schema_types

                        types = _schema_types(properties[key])
                        if types and "array" not in types:
                            rec.add("typing.list-elementwise")
                        elif "array" in types:
                            rec.add("typing.array-list-untouched")
                    elif not isinstance(argument, str):
                        rec.add("typing.non-string-untouched")
            return super()._coerce_tool_calls(value)

    return ProbeParser


def _regex_tags(rec: _Recorder, pattern: str, m, buffer: str) -> None:
    """Regex-dialect rules a committed pattern match relied on."""
    text = m.group(0)
    if "\\w" in pattern and any(not char.isascii() and char.isalnum() for char in text):
        rec.add("regex.unicode-word")
    if "." in pattern.replace("\\.", "") and "\n" in text:
        rec.add("regex.dotall")
    if pattern.rstrip(")").endswith("$") and m.end() == len(buffer) - 1 and buffer.endswith("\n"):
        rec.add("regex.dollar-before-final-newline")
    if "^" in pattern and m.start() == 0 and not pattern.startswith("[^"):
        rec.add("regex.caret-buffer-start")
    if "(?=" in pattern or "(?<=" in pattern or "(?!" in pattern:
        rec.add("regex.lookaround")


def _is_call(value) -> bool:
    function = value.get("function") if isinstance(value, dict) else None
    return (
        isinstance(function, dict)
        and isinstance(function.get("name"), str)
        and isinstance(function.get("arguments"), dict)
    )


@contextmanager
def _instrumented(rec: _Recorder):
    from transformers.utils.chat_parsing import content_parsers, response_parser

    originals = dict(content_parsers.CONTENT_PARSERS)
    saved = (response_parser.process_field, response_parser._coerce, response_parser._schema_types)
    content_parsers.CONTENT_PARSERS.update(_content_probes(rec, originals))
    response_parser.process_field = _transform_probe(rec, saved[0])
    response_parser._coerce = _cast_probe(rec, saved[1])
    response_parser._schema_types = _schema_probe(rec, saved[2])
    try:
        yield
    finally:
        content_parsers.CONTENT_PARSERS.update(originals)
        response_parser.process_field, response_parser._coerce, response_parser._schema_types = saved


def probe(case: dict, template: dict) -> set[str]:
    """The inventory tags the reference exercises on one vector."""
    from .vectors import trace

    rec = _Recorder()
    with _instrumented(rec):
        parser_class = _parser_class(rec)
        result = trace(lambda: parser_class(template, case["prefix"], tools=case["tools"]), case["chunks"])
    if result["error"] is not None:
        rec.add(f"error.at-{result['error']['stage']}")
    if len(case["chunks"]) > 1 and max(map(len, case["chunks"])) == 1:
        rec.add("chunking.per-character")
    return rec.tags


def coverage(cases: list[dict] | None = None) -> dict[str, list[str]]:
    """tag -> ids of the vectors on which the reference exercised it."""
    cases = vector_cases() if cases is None else cases
    templates: dict[str, dict] = {}
    found: dict[str, list[str]] = defaultdict(list)
    for case in cases:
        name = case["template"]
        if name not in templates:
            templates[name] = template_of(name)
        for tag in sorted(probe(case, templates[name])):
            found[tag].append(case["id"])
    return dict(found)


def frontend_cases() -> set[str]:
    """Names of the invalid-template table in tests/frontend/test_frontend.py."""
    import ast

    tree = ast.parse((CHECKOUT / "tests" / "frontend" / "test_frontend.py").read_text(encoding="utf-8"))
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "INVALID" for t in node.targets):
            for element in node.value.elts:
                if isinstance(element, ast.Tuple) and isinstance(element.elts[0], ast.Constant):
                    names.add(element.elts[0].value)
    return names


def report(limit: int = 3) -> tuple[str, list[str]]:
    """The coverage report and the ids of uncovered entries."""
    entries = load_inventory()
    found = coverage()
    frontend = frontend_cases()
    lines, missing = [], []
    for entry in entries:
        if entry.get("kind") == "frontend":
            ok = entry["frontend_case"] in frontend
            where = (
                f"tests/frontend/test_frontend.py INVALID {entry['frontend_case']!r}" if ok else "MISSING frontend case"
            )
            count = 1 if ok else 0
        else:
            ids = found.get(entry["id"], [])
            count = len(ids)
            where = ", ".join(ids[:limit]) + (f", ... (+{count - limit})" if count > limit else "") if ids else "NONE"
        if not count:
            missing.append(entry["id"])
        lines.append(f"{entry['id']:<48} {count:>5}  {where}")
    known = {entry["id"] for entry in entries}
    unknown = sorted(set(found) - known)
    lines.append(f"\n{len(entries)} entries, {len(entries) - len(missing)} covered, {len(missing)} uncovered")
    if unknown:
        lines.append(f"probe tags missing from the inventory: {', '.join(unknown)}")
    return "\n".join(lines), missing + [f"unknown:{tag}" for tag in unknown]
