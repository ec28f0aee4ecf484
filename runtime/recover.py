"""Recovery mode (`recover=True`): the streaming machine of vLLM 0.33's
vendored interpreter (`vllm/parser/chat_parsing/`), on a generated parser's
tables.

The default parsers reproduce transformers 5.23.0, which raises when a
region's value fails to parse (invalid JSON in one tool call, a failing
int, a transform missing a key), so one bad call loses the whole message.
vLLM's copy of the interpreter instead ends such a region with a
`region_malformed` event carrying the exception, keeps parsing after it,
and gives every open, close and malformed event the `start` and `end` of
the delimiter it consumed in `input_text` (empty for implicit boundaries);
an explicit open also carries the open match's named `captures`. It also
drops from a chunk the prefix text that was held back as a possible
delimiter, and a required field that was malformed is not reported missing
at finalize. This module does all of that, and nothing else differs from
the default mode (tool typing, content parsers and transforms are the
runtime's). Offsets count characters (Python string indices).

It is a separate, plain machine (the buffer is kept whole, every step
searches), so the default mode's fast paths stay untouched. It imports
only the runtime modules before it, and `--vendor` inlines it after them.

What the message holds for a malformed region (`malformed=`):
- "drop" (default): nothing, as vLLM's parser output and its serving layer
  (which drops a malformed tool call with a warning);
- "content": the region's raw text (from the start of its open delimiter to
  the end of its close) is stored into the `content` field as one more of
  its matches would be, the fallback other servers use (SGLang, llama.cpp
  and vLLM's older tool parsers return unparsable calls as content).
"""

from copy import deepcopy

from runtime.delimiters import last_anchor_end
from runtime.values import OPEN, PREFIX_REQUIRED, close_region, finished_message, tool_parameters
from runtime.whole import plain_scan, run_parse_response

MALFORMED_MODES = ("drop", "content")
RECOVERED_ERRORS = (KeyError, TypeError, ValueError)  # what vLLM's interpreter turns into region_malformed


class RecoveringParser:
    """`ResponseParser(prefix, tools=..., recover=True)`: the same API (feed,
    finalize, initial_events, captures) plus `input_text`, with vLLM's events."""

    def __init__(self, tables, prefix=None, *, tools=None, malformed="drop"):
        if malformed not in MALFORMED_MODES:
            raise ValueError(f"malformed must be one of {list(MALFORMED_MODES)}, got {malformed!r}")
        if prefix is None:
            raise ValueError(PREFIX_REQUIRED)
        self.tables = tables  # the generated ResponseParser class whose tables this runs
        self._fields = tables.FIELDS
        self._implicit = tables.IMPLICIT
        self._watch = tables.WATCH
        self._defaults = tables.DEFAULTS
        self._content = None  # the field malformed="content" stores into
        if malformed == "content":
            names = [field.name for field in self._fields]
            self._content = names.index("content") if "content" in names else self._implicit
            if self._content is None:
                raise ValueError('malformed="content" needs a field named "content" or an implicit field')
        self._tool_params = tool_parameters(tools)
        self._buf = ""
        self._pos = 0
        self._memo = {}  # Literals.find's memo (the buffer only grows)
        self._output = deepcopy(self._defaults)
        self._current = self._implicit
        self._state = -1
        self._captures = {}
        self._body = []
        self._opened = False
        self._open_start = 0  # where the current region's open delimiter starts
        self._finalized = False
        self._prefix_len = 0
        self._malformed = set()
        self.initial_events = []
        if prefix:
            end = last_anchor_end(tables.START_ANCHOR, prefix)
            text = prefix if end is None else prefix[end:]
            if text:
                self._buf = text
                self._process(self.initial_events, False)
                self._prefix_len = len(text)

    @property
    def input_text(self):
        """The parser's input after start-anchor truncation: the offsets of events index it."""
        return self._buf

    @property
    def captures(self):
        """The named groups of the open match of the region open now (a copy)."""
        return dict(self._captures)

    def feed(self, text):
        """Add generated text; return the events it completes."""
        if self._finalized:
            raise RuntimeError("ResponseParser already finalized")
        if text:
            # The buffer's only reference is the local while it grows, so
            # CPython extends it in place instead of copying all of it.
            buf = self._buf
            self._buf = ""
            buf += text
            self._buf = buf
        events = []
        self._process(events, False)
        return events

    def finalize(self):
        """End of generation: return (message, final events)."""
        if self._finalized:
            raise RuntimeError("ResponseParser already finalized")
        events = []
        self._process(events, True)
        output = self._output
        missing = [
            field.name
            for field in self._fields
            if not field.optional and field.name not in output and field.name not in self._malformed
        ]
        if missing:
            raise ValueError(f"Required response_template fields missing from parsed output: {missing}")
        self._output = finished_message(output, self._defaults)
        self._finalized = True
        return self._output, events

    # -- the machine ---------------------------------------------------------

    def _process(self, events, eos):
        while True:
            best, hold = plain_scan(self._fields, self._watch[self._state], self._buf, self._pos, eos, self._memo)
            if best is not None:
                kind, index, start, end, captures = best
                if start > self._pos:
                    self._route(events, self._buf[self._pos : start])
                self._pos = end
                if kind == OPEN:
                    self._close(events, start, start)
                    self._open(events, index, start, end, captures)
                else:
                    had_text = self._opened
                    self._close(events, start, end)
                    if not had_text and start == end:
                        break  # a zero-width close of an empty region would fire forever
                continue
            if eos:
                if self._pos < len(self._buf):
                    self._route(events, self._buf[self._pos :])
                    self._pos = len(self._buf)
                self._close(events, self._pos, self._pos)
                break
            if hold > self._pos:
                self._route(events, self._buf[self._pos : hold])
                self._pos = hold
            break

    def _route(self, events, text):
        current = self._current
        if current is None or not text:
            return
        field = self._fields[current]
        if not self._opened:
            events.append({"type": "region_open", "field": field.name, "start": self._pos, "end": self._pos})
            self._opened = True
            self._open_start = self._pos
        self._body.append(text)
        # Prefix text held back as a possible delimiter belongs to the prompt, not the chunk.
        text = text[max(0, self._prefix_len - self._pos) :]
        if text:
            events.append({"type": "region_chunk", "field": field.name, "text": text, "dirty": field.dirty})

    def _open(self, events, index, start, end, captures):
        field = self._fields[index]
        self._current = self._state = index
        self._captures = captures
        self._body = []
        self._opened = True
        self._open_start = start
        events.append({"type": "region_open", "field": field.name, "start": start, "end": end, "captures": captures})

    def _close(self, events, start, end):
        current = self._current
        if current is not None and self._opened:
            field = self._fields[current]
            try:
                value = close_region(field, self._output, self._body, self._captures, self._tool_params)
            except RECOVERED_ERRORS as error:
                self._malformed.add(field.name)
                events.append(
                    {"type": "region_malformed", "field": field.name, "start": start, "end": end, "error": error}
                )
                if self._content is not None:
                    self._store_raw(self._buf[self._open_start : end])
            else:
                events.append({"type": "region_close", "field": field.name, "start": start, "end": end, "value": value})
        self._current = self._implicit
        self._state = -1
        self._captures = {}
        self._body = []
        self._opened = False

    def _store(self, field, value):
        output = self._output
        if field.join is not None:
            previous = output.get(field.name)
            output[field.name] = value if previous is None else previous + field.join + value
        elif field.repeats:
            output.setdefault(field.name, []).append(value)
        else:
            output[field.name] = value

    def _store_raw(self, raw):
        """malformed="content": the raw text as one more match of the content field."""
        field = self._fields[self._content]
        text = raw.strip() if field.strips else raw
        if text:
            self._store(field, text)


def run_recovering_parse(parser_class, text, prefix, tools, malformed="drop"):
    """`parse_response(..., recover=True)`: one text or a batch, as run_parse_response."""

    def make(one_prefix, tools=None):
        return RecoveringParser(parser_class, one_prefix, tools=tools, malformed=malformed)

    if malformed not in MALFORMED_MODES:
        make("")  # raises the ValueError naming the modes
    return run_parse_response(make, text, prefix, tools)
