"""The tool_calls field: its calls in index order, each announced once its name
is known, argument text sent as the body regions write it; casting as the parser does it."""

import re

from .message import _arguments_of, _calls_of, _name_of, tool_call_id
from .regions import _JsonRegion, _Region, _XmlPlan, _XmlRegion

_CASTING_TYPES = frozenset(("integer", "number", "boolean", "null", "object", "array"))


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
