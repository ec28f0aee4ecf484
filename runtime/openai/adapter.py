"""The adapter: a generated parser's events in, `chat.completion.chunk` dicts out.

Deltas are queued by the fields (text fields here, tool calls in `calls`) and
put into chunks, consecutive deltas of one kind sharing a chunk.
"""

import importlib
import sys
import time
import uuid

from .calls import _ToolCalls
from .message import _text_of, to_openai_message

_TEXT_FIELDS = ("reasoning_content", "content")


def _core_of(parser_class):
    """The runtime module the parser runs on (runtime.core, or the vendored module)."""
    for cls in parser_class.__mro__:
        if cls.__name__ == "StreamParser":
            module = sys.modules[cls.__module__]
            if module.__name__ == "runtime.stream":  # the package: its names are runtime.core's
                return importlib.import_module("runtime.core")
            return module
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
        # a recover=True parser runs the tables of the generated class it names
        self._core = _core_of(getattr(self.parser, "tables", type(self.parser)))
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
