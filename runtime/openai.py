"""OpenAI chat.completions output for generated response parsers.

    from runtime.openai import OpenAIStreamAdapter, to_openai_message

    adapter = OpenAIStreamAdapter(qwen3, prompt, tools=tools, model="qwen3")
    for text in stream:
        for chunk in adapter.feed(text):      # chat.completion.chunk dicts
            send(chunk)
    for chunk in adapter.finish():            # the last one carries finish_reason
        send(chunk)
    adapter.message                           # the parsed message (after finish)

    to_openai_message(module.parse_response(text, prefix=prompt), completion_id=adapter.id)

Only three fields of the parsed message are used: `content`, `reasoning_content`
and `tool_calls`. Each tool call gets the id `tool_call_id(completion_id, index)`:
`id_prefix` plus 24 hex digits of SHA-256 of "<completion id>:<index>", so the
streaming adapter and `to_openai_message` agree when given the same completion id.

What is sent, and when. The rule everywhere: a delta is sent only when it is
known to be a prefix of the final value, so that concatenating the deltas gives
exactly what `to_openai_message` gives for the message the parser returns.

- content / reasoning_content (`text` fields without a transform): each region
  chunk is sent as it arrives, except whitespace: leading whitespace of a region
  is dropped and trailing whitespace is held until text follows it (the field is
  stripped at close; `strip: false` sends everything). For `join` fields the
  separator is sent before the second region's first text (or at its close).
  Other content types are sent at close (non-strings as JSON text).
- tool calls: the first delta of a call carries its `id`, `type` and
  `function.name`, sent as soon as the name is known: at the region open when it
  comes from an open-pattern capture, or when the body has written it
  (`{"name": ...}` bodies); calls are announced in index order. Then
  `function.arguments` as string deltas whose concatenation is exactly
  `json.dumps(final_arguments)` (the typed arguments of the closed message):
  * `json` bodies (including the `string_delims` / `unquoted_keys` dialects) are
    read incrementally and re-serialised in `json.dumps` layout: brackets,
    separators and keys as soon as they are read, string values character by
    character, numbers and literals once complete. The value of an argument the
    tools schema could cast (it declares a type other than string) is held until
    it is complete, then cast the way the parser casts it and sent whole.
    Argument text follows the name; with tools, arguments the body writes
    before the name come at close (what may be cast depends on the name).
  * `xml-inline` bodies (`<parameter=k>v</parameter>` style, nested in an outer
    `...</function>` pattern or flat): one parameter at a time, once its match is
    settled: the tag pattern matches it completely in the body so far without
    running into the end of the text seen (partial matching, `$` taken as never
    matching), the match is unchanged when the text is followed by more of the
    same (greedy parts), and the outer closing tag cannot start at or before it.
    Values are cast as above. The last parameter and the closing brace come at
    close. (While one parameter grows long, the search is retried only each
    time it has grown by an eighth, to stay linear.)
  * anything else (other content types, `allow_non_json`, `merge_duplicates`,
    shapes the transform analysis does not recognise, arguments that are not an
    object or array, text that does not read as JSON): at close, in one piece.
  At close the rest of `json.dumps(final_arguments)` is sent.

Tool call ids are always generated (a model's own ids, e.g. kimi_k2's
`functions.f:0` in the transform's `id`, are not used).

Known limits: a model that repeats a key in an arguments object gets the object
as written (json.loads of the deltas still gives the final arguments, since both
keep the last value); a non-repeating field that the output opens twice keeps
only the second region in the message, while the stream has sent both.

Standard library only; everything parser-specific (casting, content parsers, the
`regex` module) is taken from the runtime the parser module runs on, so this
file works next to a vendored parser too (copy it under another name than
`openai.py`, which would shadow the `openai` package).
"""

import hashlib
import json
import re
import sys
import time
import uuid

__all__ = ["OpenAIStreamAdapter", "to_openai_message", "tool_call_id"]

_TEXT_FIELDS = ("reasoning_content", "content")
_CASTING_TYPES = frozenset(("integer", "number", "boolean", "null", "object", "array"))
_MISSING = object()


def tool_call_id(completion_id, index, id_prefix="call_"):
    """The id of tool call `index` in the completion `completion_id`."""
    digest = hashlib.sha256(f"{completion_id}:{index}".encode("utf-8")).hexdigest()
    return f"{id_prefix}{digest[:24]}"


def _text_of(value):
    """A content value as OpenAI text."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "".join(_text_of(item) for item in value)
    return json.dumps(value, ensure_ascii=False)


def _calls_of(value):
    """The tool calls in a `tool_calls` value: dicts with a `function` dict, lists flattened."""
    if isinstance(value, dict):
        return [value] if isinstance(value.get("function"), dict) else []
    if isinstance(value, list):
        return [call for item in value for call in _calls_of(item)]
    return []


def _name_of(function):
    name = function.get("name")
    if name is None:
        return ""
    return name if isinstance(name, str) else json.dumps(name)


def _arguments_of(function):
    """`function.arguments` as a string: JSON text, or the string the model wrote."""
    arguments = function.get("arguments", _MISSING)
    if arguments is _MISSING:
        return "{}"
    if isinstance(arguments, str):
        return arguments
    return json.dumps(arguments)


def to_openai_message(message, *, id_prefix="call_", completion_id=None):
    """A parsed message as an OpenAI assistant message.

    `{"role", "content", "reasoning_content"?, "tool_calls"?}`: content is None
    when empty; reasoning_content only when present; tool_calls only when there
    are calls, each `{"id", "type": "function", "function": {"name", "arguments"}}`
    with arguments as JSON text. Pass the adapter's `id` as `completion_id` to get
    the ids the streaming adapter assigned.
    """
    out = {"role": message.get("role") or "assistant", "content": _text_of(message.get("content")) or None}
    reasoning = _text_of(message.get("reasoning_content"))
    if reasoning:
        out["reasoning_content"] = reasoning
    calls = []
    for index, call in enumerate(_calls_of(message.get("tool_calls"))):
        function = call["function"]
        calls.append(
            {
                "id": tool_call_id(completion_id, index, id_prefix),
                "type": "function",
                "function": {"name": _name_of(function), "arguments": _arguments_of(function)},
            }
        )
    if calls:
        out["tool_calls"] = calls
    return out


def _core_of(parser_class):
    """The runtime module the parser runs on (runtime.core, or the vendored module)."""
    for cls in parser_class.__mro__:
        if cls.__name__ == "StreamParser":
            return sys.modules[cls.__module__]
    raise TypeError(f"{parser_class!r} is not a generated response parser")


# --------------------------------------------------------------------------
# The adapter.
# --------------------------------------------------------------------------


class OpenAIStreamAdapter:
    """Turns a generated parser's events into OpenAI `chat.completion.chunk` dicts.

    `parser_module` is a generated module (it has `ResponseParser` and `TEMPLATE`);
    `prefix` and `tools` are passed to its parser. `feed(text)` and `finish()`
    return lists of chunks; exceptions of the parser propagate unchanged.
    """

    def __init__(self, parser_module, prefix, *, tools=None, model, id=None, created=None, id_prefix="call_"):
        self.id = id if id is not None else f"chatcmpl-{uuid.uuid4().hex}"
        self.created = int(time.time()) if created is None else created
        self.model = model
        self.id_prefix = id_prefix
        self.message = None
        self.parser = parser_module.ResponseParser(prefix, tools=tools)
        self._core = _core_of(type(self.parser))
        fields = parser_module.TEMPLATE["fields"]
        self._texts = {name: _TextField(self, name, fields[name]) for name in _TEXT_FIELDS if name in fields}
        self._tools = _ToolCalls(self, fields["tool_calls"], tools) if "tool_calls" in fields else None
        self._items = []  # (kind, payload) deltas not yet put into chunks
        self._started = False
        self._finished = False
        self._handle(self.parser.initial_events)

    # -- public API --------------------------------------------------------

    def feed(self, text):
        """Feed generated text; return the chunks it completes."""
        if self._finished:
            raise RuntimeError("OpenAIStreamAdapter already finished")
        self._handle(self.parser.feed(text))
        return self._chunks()

    def finish(self, finish_reason=None):
        """End of generation: the remaining chunks, the last one with finish_reason
        ("tool_calls" if a tool call was sent, else "stop", unless given)."""
        if self._finished:
            raise RuntimeError("OpenAIStreamAdapter already finished")
        message, events = self.parser.finalize()
        self._handle(events)
        self._finished = True
        self.message = message
        chunks = self._chunks()
        if finish_reason is None:
            finish_reason = "tool_calls" if self._tools is not None and self._tools.announced else "stop"
        chunks.append(self._chunk({}, finish_reason))
        return chunks

    def to_message(self):
        """The OpenAI message for the parsed message (after finish), with this adapter's ids."""
        if self.message is None:
            raise RuntimeError("finish() first")
        return to_openai_message(self.message, id_prefix=self.id_prefix, completion_id=self.id)

    # -- internals ---------------------------------------------------------

    def _handle(self, events):
        current = None  # the event index of the open of the region still open after this batch
        for index in range(len(events) - 1, -1, -1):
            kind = events[index]["type"]
            if kind == "region_close":
                break
            if kind == "region_open":
                current = index
                break
        for index, event in enumerate(events):
            field = event["field"]
            if field == "tool_calls":
                if self._tools is not None:
                    captures = self._captures() if index == current else None
                    self._tools.event(event, captures)
            elif field in self._texts:
                self._texts[field].event(event)
        if self._tools is not None:
            self._tools.flush()

    def _captures(self):
        captures = getattr(self.parser, "captures", None)
        if captures is None:  # a runtime from before the accessor
            captures = dict(getattr(self.parser, "_captures", {}))
        return captures

    def _emit(self, kind, payload):
        self._items.append((kind, payload))

    def _chunk(self, delta, finish_reason=None):
        if not self._started:
            delta = {"role": "assistant", **delta}
            self._started = True
        return {
            "id": self.id,
            "object": "chat.completion.chunk",
            "created": self.created,
            "model": self.model,
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish_reason}],
        }

    def _chunks(self):
        """Consecutive deltas of one kind (a text field, or one tool call) share a chunk."""
        chunks = []
        items, self._items = self._items, []
        position = 0
        while position < len(items):
            kind, payload = items[position]
            position += 1
            if kind == "tool":
                entry = dict(payload)
                entry["function"] = dict(payload["function"])
                while (
                    position < len(items)
                    and items[position][0] == "tool"
                    and items[position][1]["index"] == entry["index"]
                ):
                    entry["function"]["arguments"] += items[position][1]["function"]["arguments"]
                    position += 1
                chunks.append(self._chunk({"tool_calls": [entry]}))
            else:
                text = payload
                while position < len(items) and items[position][0] == kind:
                    text += items[position][1]
                    position += 1
                if text:
                    chunks.append(self._chunk({kind: text}))
        return chunks


# --------------------------------------------------------------------------
# content / reasoning_content
# --------------------------------------------------------------------------


class _TextField:
    def __init__(self, adapter, name, spec):
        self.adapter = adapter
        self.name = name
        self.streams = spec.get("content", "text") == "text" and spec.get("transform") is None
        self.strip = (spec.get("content_args") or {}).get("strip", True)
        self.join = spec.get("join")
        self.closed_before = False
        self._reset()

    def _reset(self):
        self.started = False
        self.held = ""  # trailing whitespace not yet known to be interior
        self.sent = []  # what this region has sent
        self.owe_join = False

    def _send(self, text):
        if self.owe_join:
            self.adapter._emit(self.name, self.join)
            self.owe_join = False
        if text:
            self.sent.append(text)
            self.adapter._emit(self.name, text)

    def event(self, event):
        kind = event["type"]
        if kind == "region_open":
            self._reset()
            self.owe_join = self.join is not None and self.closed_before
        elif kind == "region_chunk":
            if self.streams:
                self._chunk(event["text"])
        else:
            self._close(event["value"])

    def _chunk(self, text):
        if not self.strip:
            self._send(text)
            return
        if not self.started:
            text = text.lstrip()
            if not text:
                return
            self.started = True
        elif text.isspace():
            self.held += text
            return
        text = self.held + text
        body = text.rstrip()
        self.held = text[len(body) :]
        if body:
            self._send(body)

    def _close(self, value):
        final = _text_of(value)
        sent = "".join(self.sent)
        rest = final[len(sent) :] if final.startswith(sent) else ""
        if self.owe_join:
            self._send("")
        self._send(rest)
        self.closed_before = True
        self._reset()


# --------------------------------------------------------------------------
# tool_calls
# --------------------------------------------------------------------------


class _Call:
    """One OpenAI tool call: its name, and argument text sent / ready / final."""

    __slots__ = ("name", "index", "sent", "ready", "final", "closed", "dropped")

    def __init__(self):
        self.name = None
        self.index = None  # set when announced
        self.sent = []
        self.ready = ""  # argument text known to be right, waiting for the announcement
        self.final = None
        self.closed = False
        self.dropped = False

    def write(self, text):
        self.ready += text


def _placeholder(node):
    """The path of a whole-string transform placeholder, or None."""
    if isinstance(node, str):
        match = re.fullmatch(r"\{([^{}]+)\}", node)
        if match:
            return match.group(1).split(".")
    return None


class _Plan:
    """How the tool_calls field's value is built (from the template), as far as streaming needs."""

    def __init__(self, spec, rx):
        self.kind = "close"  # "json", "xml" or "close"
        self.each = bool(spec.get("transform_each"))
        self.name_capture = None  # capture holding the name
        self.name_const = None
        self.name_path = None  # path of the name in the body (json)
        self.args_path = None
        self.dialect = None
        transform = spec.get("transform")
        if not isinstance(transform, dict):
            return
        function = transform.get("function")
        if isinstance(function, dict):
            name_node, args_node = function.get("name"), function.get("arguments")
            name_src, args_src = _placeholder(name_node), _placeholder(args_node)
            if name_src is None and isinstance(name_node, str):
                self.name_const = name_node
        else:
            path = _placeholder(function)
            if path is None:
                return
            name_src, args_src = path + ["name"], path + ["arguments"]
        if args_src is None:
            return
        pattern = spec.get("open_pattern")
        groups = set(rx.compile(pattern).groupindex) if pattern else set()
        if self.each:
            if groups:
                return  # captures and element keys share the scope: leave it to close
            body_root = None
        else:
            body_root = "content"
            if args_src[0] != "content":
                return
        if name_src is not None:
            if body_root is None or name_src[0] == body_root:
                self.name_path = tuple(name_src[1:] if body_root else name_src)
            elif len(name_src) == 1:
                self.name_capture = name_src[0]
            else:
                return
        self.args_path = tuple(args_src[1:] if body_root else args_src)
        content = spec.get("content", "text")
        args = spec.get("content_args") or {}
        if content == "json":
            if args.get("allow_non_json") or len(args.get("string_delims") or []) > 1:
                return
            delims = args.get("string_delims") or []
            self.dialect = (tuple(delims[0]) if delims else None, bool(args.get("unquoted_keys")))
            self.kind = "json"
        elif content == "xml-inline" and not self.each and self.name_path is None:
            self.xml = _XmlPlan.of(args, self.args_path, rx)
            if self.xml is not None:
                self.kind = "xml"


class _ToolCalls:
    def __init__(self, adapter, spec, tools):
        self.adapter = adapter
        core = adapter._core
        self.core = core
        self.params = core.tool_parameters(tools) if tools else {}
        args = spec.get("content_args") or {}
        needs_regex = spec.get("open_pattern") is not None or spec.get("content") == "xml-inline"
        needs_regex = needs_regex or bool(args.get("string_delims") or args.get("unquoted_keys"))
        self.rx = core.regex_module() if needs_regex else None
        try:
            self.plan = _Plan(spec, self.rx)
        except Exception:  # noqa: BLE001 - a shape this module does not follow: send at close
            self.plan = _Plan({}, None)
        self.calls = []  # every call, in index order once announced
        self.announced = 0
        self.region = None

    # -- casting, as the parser does it ------------------------------------

    def caster(self, name):
        """None when no argument can be cast for this tool name, else key -> types or None.
        Raises LookupError while the name is unknown and tools are given."""
        if not self.params:
            return None
        if name is None:
            raise LookupError("name not known yet")
        properties = self.params.get(name)
        if not properties:
            return None
        schema_types = self.core.schema_types

        def types_of(key):
            if key not in properties:
                return None
            types = schema_types(properties[key])
            return types if any(t in _CASTING_TYPES for t in types) else None

        return types_of

    def cast(self, value, types):
        cast_argument = self.core.cast_argument
        if isinstance(value, str):
            return cast_argument(value, types)
        if isinstance(value, list) and "array" not in types:
            return [cast_argument(item, types) if isinstance(item, str) else item for item in value]
        return value

    # -- events ------------------------------------------------------------

    def new_call(self):
        call = _Call()
        self.calls.append(call)
        return call

    def event(self, event, captures):
        kind = event["type"]
        if kind == "region_open":
            plan = self.plan
            try:
                if plan.kind == "json":
                    self.region = _JsonRegion(self, plan, captures)
                elif plan.kind == "xml":
                    self.region = _XmlRegion(self, plan, captures)
                else:
                    self.region = _Region(self)
            except Exception:  # noqa: BLE001 - never let streaming fail the parse
                self.region = _Region(self)
        elif kind == "region_chunk":
            region = self.region
            if region is not None and not region.stopped:
                try:
                    region.feed(event["text"])
                except Exception:  # noqa: BLE001 - stop streaming this region; close sends the rest
                    region.stopped = True
        else:
            region = self.region if self.region is not None else _Region(self)
            self.region = None
            try:
                region.finish()
            except Exception:  # noqa: BLE001 - only the fallback text is missing
                pass
            self.close(region, event["value"])

    def close(self, region, value):
        finals = _calls_of(value)
        calls = region.calls
        for position, final in enumerate(finals):
            if position < len(calls):
                call = calls[position]
            else:
                call = self.new_call()
            function = final["function"]
            if call.index is None:
                call.name = _name_of(function)
            call.final = _arguments_of(function)
            call.closed = True
        for call in calls[len(finals) :]:
            if call.index is None:
                call.dropped = True
        self.calls = [call for call in self.calls if not call.dropped]

    def flush(self):
        emit = self.adapter._emit
        for call in self.calls:
            if call.index is None:
                if call.name is None:
                    break  # announce in index order
                call.index = self.announced
                self.announced += 1
                emit(
                    "tool",
                    {
                        "index": call.index,
                        "id": tool_call_id(self.adapter.id, call.index, self.adapter.id_prefix),
                        "type": "function",
                        "function": {"name": call.name, "arguments": ""},
                    },
                )
            if call.closed:
                if call.final is None:
                    continue
                sent = "".join(call.sent)
                if call.final.startswith(sent):
                    text = call.final[len(sent) :]
                else:  # the model repeated a key: keep to the text as written
                    text = call.ready
                call.final = None
                call.ready = ""
            else:
                text, call.ready = call.ready, ""
            if text:
                call.sent.append(text)
                emit("tool", {"index": call.index, "function": {"arguments": text}})


class _Region:
    """A tool-call region sent at close."""

    def __init__(self, tools):
        self.tools = tools
        self.calls = []
        self.stopped = True

    def feed(self, text):
        pass

    def finish(self):
        pass


# --------------------------------------------------------------------------
# json bodies
# --------------------------------------------------------------------------


class _JsonRegion(_Region):
    """Reads a json body as it streams and writes each call's arguments."""

    def __init__(self, tools, plan, captures):
        super().__init__(tools)
        self.stopped = False
        self.plan = plan
        self.reader = _JsonReader(self)
        delims, unquoted = plan.dialect
        self.dialect = _Dialect(delims, unquoted, tools.rx) if (delims or unquoted) else None
        self.routes = []  # per open string/container: "args", "name" or None
        self.writer = None
        self.call = None
        self.args_call = None
        self.name_parts = None
        self.root = 1 if plan.each else 0
        if not plan.each:
            self._start_call(captures)

    def _start_call(self, captures):
        call = self.tools.new_call()
        self.calls.append(call)
        self.call = call
        plan = self.plan
        if plan.name_const is not None:
            call.name = plan.name_const
        elif plan.name_capture is not None and captures is not None:
            name = captures.get(plan.name_capture)
            if isinstance(name, str):
                call.name = name

    def feed(self, text):
        if self.dialect is not None:
            text = self.dialect.feed(text)
        if text:
            self.reader.feed(text)
        if self.reader.failed:
            self.stop()

    def stop(self):
        self.stopped = True
        self.writer = None

    # -- reader events -----------------------------------------------------

    def value(self, path, kind, scalar=None):
        routes = self.routes
        route = routes[-1] if routes else None
        if route == "args":
            self.writer.value(kind, scalar)
        else:
            route = None
            if self.plan.each and len(path) == 1:
                self._start_call(None)
                if kind != "obj":
                    self.call = None
            call = self.call
            if call is not None and len(path) >= self.root:
                relative = path[self.root :]
                if relative == self.plan.args_path and call is not self.args_call:
                    self.args_call = call  # a repeated key is left to the close
                    route = self._start_args(call, kind, scalar)
                elif relative == self.plan.name_path:
                    if kind == "str":
                        route = "name"
                        self.name_parts = []
        if kind in ("obj", "arr", "str"):
            routes.append(route)

    def _start_args(self, call, kind, scalar):
        if kind not in ("obj", "arr"):
            return None
        try:
            caster = self.tools.caster(call.name)
        except LookupError:
            return None  # the schema depends on a name not written yet: send at close
        self.writer = _ArgsWriter(call, caster, self.tools)
        self.writer.value(kind, scalar)
        return "args"

    def key(self, key):
        if self.routes and self.routes[-1] == "args":
            self.writer.key(key)

    def chars(self, text):
        route = self.routes[-1]
        if route == "args":
            self.writer.chars(text)
        elif route == "name":
            self.name_parts.append(text)

    def end(self, kind):
        route = self.routes.pop()
        if route == "args":
            self.writer.end(kind)
            if not self.routes or self.routes[-1] != "args":
                self.writer = None
        elif route == "name":
            if self.call is not None and self.call.name is None:
                self.call.name = "".join(self.name_parts)
            self.name_parts = None


class _Builder:
    """Builds the Python value of a held argument from reader events."""

    def __init__(self):
        self.stack = []  # [container, pending key]
        self.parts = None
        self.done = False
        self.result = None

    def _add(self, value):
        if not self.stack:
            self.result = value
            self.done = True
            return
        top = self.stack[-1]
        if isinstance(top[0], dict):
            top[0][top[1]] = value
        else:
            top[0].append(value)

    def value(self, kind, scalar):
        if kind == "obj":
            self.stack.append([{}, None])
        elif kind == "arr":
            self.stack.append([[], None])
        elif kind == "str":
            self.parts = []
        else:
            self._add(scalar)

    def key(self, key):
        self.stack[-1][1] = key

    def chars(self, text):
        self.parts.append(text)

    def end(self, kind):
        if kind == "str":
            text, self.parts = "".join(self.parts), None
            self._add(text)
        else:
            container = self.stack.pop()[0]
            self._add(container)


def _escape(text):
    return json.dumps(text)[1:-1]


class _ArgsWriter:
    """Writes an arguments value in json.dumps layout into a call, from reader events."""

    def __init__(self, call, caster, tools):
        self.call = call
        self.caster = caster
        self.tools = tools
        self.stack = []  # per open container: [is_object, first, key]
        self.held = None  # _Builder of a member that may be cast
        self.held_types = None
        self.held_depth = 0

    def _open_value(self):
        """Separator and hold decision before a value inside the arguments."""
        out = ""
        if self.stack:
            top = self.stack[-1]
            if not top[0]:
                if not top[1]:
                    out = ", "
                top[1] = False
            elif len(self.stack) == 1 and self.caster is not None:
                types = self.caster(top[2])
                if types is not None:
                    self.held = _Builder()
                    self.held_types = types
        return out

    def value(self, kind, scalar):
        if self.held is not None:
            self.held.value(kind, scalar)
            return
        out = self._open_value()
        if self.held is not None:
            self.call.write(out)
            self.held.value(kind, scalar)
            self._release()
            return
        if kind == "obj":
            self.stack.append([True, True, None])
            out += "{"
        elif kind == "arr":
            self.stack.append([False, True, None])
            out += "["
        elif kind == "str":
            out += '"'
        else:
            out += json.dumps(scalar)
        self.call.write(out)

    def key(self, key):
        if self.held is not None:
            self.held.key(key)
            return
        top = self.stack[-1]
        out = json.dumps(key) + ": "
        if not top[1]:
            out = ", " + out
        top[1] = False
        top[2] = key
        self.call.write(out)

    def chars(self, text):
        if self.held is not None:
            self.held.chars(text)
        else:
            self.call.write(_escape(text))

    def end(self, kind):
        if self.held is not None:
            self.held.end(kind)
            self._release()
            return
        if kind == "str":
            self.call.write('"')
        else:
            self.stack.pop()
            self.call.write("}" if kind == "obj" else "]")

    def _release(self):
        if self.held.done:
            value = self.tools.cast(self.held.result, self.held_types)
            self.held = None
            self.call.write(json.dumps(value))


# The json reader: json.loads' grammar (NaN, Infinity and -Infinity included),
# read incrementally. Anything it does not accept stops it: the parser's close
# then decides (it raises, or the value comes whole at close).

_WS = frozenset(" \t\n\r")
_TOKEN_CHARS = frozenset("0123456789+-.eEabcdfghijklmnopqrstuvwxyzABCDFGHIJKLMNOPQRSTUVWXYZ")
_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?")
_LITERALS = {
    "true": True,
    "false": False,
    "null": None,
    "NaN": float("nan"),
    "Infinity": float("inf"),
    "-Infinity": float("-inf"),
}
_STRING_RUN = re.compile(r'[^"\\\x00-\x1f]+')
_ESCAPES = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}
_HEX = frozenset("0123456789abcdefABCDEF")

_VALUE, _ARRAY_FIRST, _OBJECT_FIRST, _KEY, _COLON, _AFTER, _DONE, _STRING, _ESCAPE, _UNICODE, _TOKEN = range(11)


class _JsonReader:
    """Incremental JSON reader reporting to a handler: value(path, kind, scalar)
    for every value start (kind "obj", "arr", "str") or complete scalar
    ("scalar"), key(k) after an object key and its colon, chars(text) for the
    decoded text of a string value, end(kind) at the end of an obj/arr/str."""

    def __init__(self, handler):
        self.handler = handler
        self.state = _VALUE
        self.path = []  # key or index per open container
        self.objects = []  # True per open object, False per open array
        self.token = []
        self.hex = ""
        self.high = ""  # a high surrogate escape waiting for a low one
        self.in_key = False
        self.key_parts = []
        self.failed = False

    def feed(self, text):
        if self.failed:
            return
        try:
            self._feed(text)
        except _Stop:
            self.failed = True

    def _fail(self):
        raise _Stop()

    def _feed(self, text):
        position, size = 0, len(text)
        while position < size:
            state = self.state
            if state == _STRING:
                match = _STRING_RUN.match(text, position)
                if match:
                    self._text(match.group())
                    position = match.end()
                    continue
                char = text[position]
                position += 1
                if char == '"':
                    self._string_end()
                elif char == "\\":
                    self.state = _ESCAPE
                else:
                    self._fail()  # a control character
            elif state == _ESCAPE:
                char = text[position]
                position += 1
                if char == "u":
                    self.state = _UNICODE
                    self.hex = ""
                elif char in _ESCAPES:
                    self._text(_ESCAPES[char])
                    self.state = _STRING
                else:
                    self._fail()
            elif state == _UNICODE:
                char = text[position]
                position += 1
                if char not in _HEX:
                    self._fail()
                self.hex += char
                if len(self.hex) == 4:
                    self._code(int(self.hex, 16))
                    self.state = _STRING
            elif state == _TOKEN:
                end = position
                while end < size and text[end] in _TOKEN_CHARS:
                    end += 1
                self.token.append(text[position:end])
                position = end
                if end < size:
                    self._token_end()
            else:
                char = text[position]
                position += 1
                if char in _WS:
                    continue
                self._structural(state, char)

    def _structural(self, state, char):
        if state in (_VALUE, _ARRAY_FIRST):
            if state == _ARRAY_FIRST and char == "]":
                self._end_container(False)
            else:
                self._value(char)
        elif state in (_OBJECT_FIRST, _KEY):
            if char == '"':
                self.in_key = True
                self.key_parts = []
                self.state = _STRING
            elif char == "}" and state == _OBJECT_FIRST:
                self._end_container(True)
            else:
                self._fail()
        elif state == _COLON:
            if char != ":":
                self._fail()
            self.handler.key(self.path[-1])
            self.state = _VALUE
        elif state == _AFTER:
            is_object = self.objects[-1]
            if char == ",":
                if is_object:
                    self.state = _KEY
                else:
                    self.path[-1] += 1
                    self.state = _VALUE
            elif char == ("}" if is_object else "]"):
                self._end_container(is_object)
            else:
                self._fail()
        else:
            self._fail()  # extra data after the value

    def _value(self, char):
        if char == "{":
            self.handler.value(tuple(self.path), "obj")
            self.objects.append(True)
            self.path.append(None)
            self.state = _OBJECT_FIRST
        elif char == "[":
            self.handler.value(tuple(self.path), "arr")
            self.objects.append(False)
            self.path.append(0)
            self.state = _ARRAY_FIRST
        elif char == '"':
            self.handler.value(tuple(self.path), "str")
            self.in_key = False
            self.state = _STRING
        elif char in _TOKEN_CHARS:
            self.token = [char]
            self.state = _TOKEN
        else:
            self._fail()

    def _after_value(self):
        self.state = _AFTER if self.objects else _DONE

    def _end_container(self, is_object):
        self.objects.pop()
        self.path.pop()
        self.handler.end("obj" if is_object else "arr")
        self._after_value()

    def _token_end(self):
        token = "".join(self.token)
        if token in _LITERALS:
            value = _LITERALS[token]
        else:
            match = _NUMBER.fullmatch(token)
            if match is None:
                self._fail()
            try:
                value = float(token) if match.group(1) or match.group(2) else int(token)
            except ValueError:
                self._fail()
        self.handler.value(tuple(self.path), "scalar", value)
        self._after_value()

    # -- strings -----------------------------------------------------------

    def _text(self, text):
        if self.high:
            text = self.high + text
            self.high = ""
        if self.in_key:
            self.key_parts.append(text)
        else:
            self.handler.chars(text)

    def _code(self, code):
        if self.high and 0xDC00 <= code <= 0xDFFF:
            high = ord(self.high)
            self.high = ""
            self._text(chr(0x10000 + ((high - 0xD800) << 10) + (code - 0xDC00)))
        elif 0xD800 <= code <= 0xDBFF:
            if self.high:
                self._text("")
            self.high = chr(code)
        else:
            self._text(chr(code))

    def _string_end(self):
        if self.high:
            self._text("")
        if self.in_key:
            self.in_key = False
            self.path[-1] = "".join(self.key_parts)
            self.state = _COLON
        else:
            self.handler.end("str")
            self._after_value()


class _Stop(Exception):
    pass


class _Dialect:
    """The json content parser's dialect options, applied as the text streams:
    `string_delims` (one pair) become JSON strings, `unquoted_keys` get quoted.
    Returns the JSON text known so far; holds back what the next text could change."""

    def __init__(self, delims, unquoted, rx):
        self.open, self.close = delims if delims else (None, None)
        self.key_pattern = rx.compile(r"(?<=[{,])(\w+):") if unquoted else None
        self.tail_word = rx.compile(r"\w+\Z") if unquoted else None
        self.raw = ""
        self.in_string = False
        self.before = ""  # the character before the held text, for the key look-behind
        self.failed = False

    def feed(self, text):
        if self.failed:
            return ""
        if self.open is not None and ("\x01" in text or "\x02" in text):
            self.failed = True  # the parser refuses these
            return ""
        raw = self.raw + text
        out = []
        while True:
            if self.in_string:
                found = raw.find(self.close)
                if found < 0:
                    keep = _partial_suffix(raw, self.close)
                    out.append(_escape(raw[: len(raw) - keep]))
                    raw = raw[len(raw) - keep :]
                    break
                out.append(_escape(raw[:found]) + '"')
                raw = raw[found + len(self.close) :]
                self.in_string = False
                self.before = "\x02"
                continue
            found = raw.find(self.open) if self.open is not None else -1
            if found >= 0:
                out.append(self._plain(raw[:found]) + '"')
                raw = raw[found + len(self.open) :]
                self.in_string = True
                self.before = "\x01"
                continue
            keep = _partial_suffix(raw, self.open) if self.open is not None else 0
            plain = raw[: len(raw) - keep]
            if self.tail_word is not None:
                match = self.tail_word.search(plain)
                if match:
                    plain = plain[: match.start()]
            out.append(self._plain(plain))
            raw = raw[len(plain) :]
            break
        self.raw = raw
        return "".join(out)

    def _plain(self, text):
        if not text:
            return ""
        if self.key_pattern is not None:
            before = self.before or "\x00"
            text_out = self.key_pattern.sub(r'"\1":', before + text)[len(before) :]
        else:
            text_out = text
        self.before = text[-1]
        return text_out


def _partial_suffix(text, delimiter):
    """Length of the longest end of `text` that is a proper prefix of `delimiter`."""
    for size in range(min(len(text), len(delimiter) - 1), 0, -1):
        if text.endswith(delimiter[:size]):
            return size
    return 0


# --------------------------------------------------------------------------
# xml-inline bodies
# --------------------------------------------------------------------------


def _top_level_alternation(pattern):
    depth, position, in_class = 0, 0, False
    while position < len(pattern):
        char = pattern[position]
        if char == "\\":
            position += 2
            continue
        if in_class:
            if char == "]":
                in_class = False
        elif char == "[":
            in_class = True
            if pattern[position + 1 : position + 2] == "^":
                position += 1
            if pattern[position + 1 : position + 2] == "]":
                position += 1
        elif char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
        elif char == "|" and depth == 0:
            return True
        position += 1
    return False


def _never_at_end(pattern):
    """`pattern` with `$` and `\\Z` made never to match; None when it has other
    assertions whose answer at the end of the text seen could change."""
    out, position, in_class = [], 0, False
    while position < len(pattern):
        char = pattern[position]
        if char == "\\":
            escaped = pattern[position + 1 : position + 2]
            if not in_class:
                if escaped == "Z":
                    out.append("(?!)")
                    position += 2
                    continue
                if escaped in ("b", "B", "G", "m", "M", "z"):
                    return None
            out.append(pattern[position : position + 2])
            position += 2
            continue
        if in_class:
            if char == "]":
                in_class = False
            out.append(char)
        elif char == "[":
            in_class = True
            out.append(char)
            if pattern[position + 1 : position + 2] == "^":
                out.append("^")
                position += 1
            if pattern[position + 1 : position + 2] == "]":
                out.append("]")
                position += 1
        elif char == "$":
            out.append("(?!)")
        else:
            out.append(char)
        position += 1
    return "".join(out)


class _XmlPlan:
    """The parameter pattern (and the outer wrapper, if any) of an xml-inline body."""

    def __init__(self):
        self.outer_end = None  # the outer pattern after its `(?P<value>.*)`: where its value ends
        self.outer = None  # the whole outer pattern, and the key the arguments are under
        self.outer_key = None
        self.inner = None
        self.inner_written = None  # the parameter pattern as the parser uses it
        self.value_parser = None
        self.triggers = frozenset()

    @classmethod
    def of(cls, args, args_path, rx):
        plan = cls()
        if args_path == ():
            inner_args = args
        elif len(args_path) == 1:
            pattern = args.get("tag_pattern")
            parser = args.get("value_parser")
            if not isinstance(pattern, str) or not isinstance(parser, dict) or parser.get("name") != "xml-inline":
                return None
            for head in ("^(?P<value>.*)", "(?P<value>.*)"):
                if pattern.startswith(head):
                    rest = pattern[len(head) :]
                    break
            else:
                return None
            if (
                _top_level_alternation(rest)
                or "(?P<key>" not in rest
                or not (rest.endswith("$") or rest.endswith("\\Z"))
            ):
                return None
            if rest.endswith("\\$"):
                return None
            plan.outer_end = rx.compile(rest, rx.DOTALL)
            plan.outer = rx.compile(pattern, rx.DOTALL)
            plan.outer_key = args_path[0]
            if plan.outer_end.flags & rx.MULTILINE:
                return None
            inner_args = parser.get("args") or {}
        else:
            return None
        inner = inner_args.get("tag_pattern")
        if not isinstance(inner, str) or inner_args.get("merge_duplicates"):
            return None
        strict = _never_at_end(inner)
        if strict is None:
            return None
        plan.inner = rx.compile(strict, rx.DOTALL)
        plan.inner_written = rx.compile(inner, rx.DOTALL)
        if plan.inner.flags & rx.MULTILINE or "key" not in plan.inner.groupindex:
            return None
        plan.value_parser = inner_args.get("value_parser")
        plan.triggers = frozenset(char for char in inner if not char.isalnum() and char not in "\\()[]{}?*+.|^$ ")
        return plan


def _settled(pattern, text, start, end):
    """The leftmost match of `pattern` in text[start:end] if no more text can change it, else None."""
    if end <= start:
        return None
    match = pattern.search(text, start, end, partial=True)
    if match is None or match.partial or match.end() >= end:
        return None
    if match.start() > start:
        earlier = pattern.search(text, start, match.start(), partial=True)
        if earlier is not None and earlier.start() < match.start():
            return None  # an earlier attempt ran into the end
    # Greedy parts read to the end and back off without reporting it: the match
    # must stay the same when the text goes on with more of the same.
    probe = text[:end] + text[match.start() : end]
    again = pattern.search(probe, start, len(probe), partial=True)
    if again is None or again.partial or again.span() != match.span() or again.groupdict() != match.groupdict():
        return None
    return match


class _XmlRegion(_Region):
    """Sends an xml-inline call's parameters one at a time as they settle."""

    def __init__(self, tools, plan, captures):
        super().__init__(tools)
        self.stopped = False
        self.xml = plan.xml
        self.pieces = []
        self.size = 0
        self.position = 0  # end of the last parameter sent
        self.outer_from = 0  # the outer value cannot end before this
        self.members = 0
        self.tried = 0  # body length at the last search
        self.due = False  # a search was put off
        call = tools.new_call()
        self.calls.append(call)
        self.call = call
        if plan.name_const is not None:
            call.name = plan.name_const
        elif captures is not None and isinstance(captures.get(plan.name_capture), str):
            call.name = captures[plan.name_capture]
        self.caster = None
        if call.name is None and tools.params:
            self.stopped = True  # the schema depends on the name: send at close
            return
        self.caster = tools.caster(call.name)
        call.write("{")

    def _member(self, key, raw):
        value = raw
        parser = self.xml.value_parser
        if parser is not None:
            value = self.tools.core.parse_content(raw, parser.get("name", "text"), parser.get("args", {}))
        if self.caster is not None:
            types = self.caster(key)
            if types is not None:
                value = self.tools.cast(value, types)
        prefix = ", " if self.members else ""
        self.call.write(f"{prefix}{json.dumps(key)}: {json.dumps(value)}")
        self.members += 1

    def finish(self):
        """At close: the parameters not sent yet, as written (used only when
        the model repeated a key and the final arguments differ from what was sent)."""
        if self.stopped:
            return
        body = self._body()
        xml = self.xml
        if xml.outer is not None:
            values = [m.group("value") for m in xml.outer.finditer(body) if m.group("key") == xml.outer_key]
            if not values:
                return
            body = values[-1]
        matches = list(xml.inner_written.finditer(body))
        for match in matches[self.members :]:
            self._member(match.group("key"), match.group("value"))
        self.call.write("}")

    def feed(self, text):
        self.pieces.append(text)
        self.size += len(text)
        if not self.due and not any(char in self.xml.triggers for char in text):
            return
        # Each try searches the unsent text again: for a long parameter, try
        # again only once it has grown by an eighth (linear time overall).
        size = self.size
        if size - self.tried < (size - self.position) // 8:
            self.due = True
            return
        self.due = False
        self.tried = size
        body = self._body()
        end = self._outer_bound(body) - 1
        inner = self.xml.inner
        while True:
            match = _settled(inner, body, self.position, end)
            if match is None:
                break
            groups = match.groupdict()
            key, raw = groups.get("key"), groups.get("value", "")
            if not isinstance(key, str) or not isinstance(raw, str):
                self.stopped = True
                return
            self._member(key, raw)
            self.position = match.end()

    def _body(self):
        if len(self.pieces) > 1:
            self.pieces = ["".join(self.pieces)]
        return self.pieces[0] if self.pieces else ""

    def _outer_bound(self, body):
        """No position before this can be where the outer value ends."""
        pattern = self.xml.outer_end
        if pattern is None:
            return len(body)
        start = self.outer_from
        match = pattern.search(body, start, partial=True)
        bound = len(body) if match is None else match.start()
        if match is not None and not match.partial:
            while True:  # a complete match wins over an earlier partial one: look before it
                earlier = pattern.search(body, start, bound, partial=True)
                if earlier is None or earlier.start() >= bound:
                    break
                bound = earlier.start()
        self.outer_from = bound
        return bound
