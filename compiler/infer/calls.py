"""Tool calls: locate each call in the renders of one and two calls, tell the
argument format, split the markers around them into per-call and per-section
ones, and build the `tool_calls` field.

Formats, tried in order on the one-call render:
- `json-list`: a JSON list of call objects (`[{"name": ..., "arguments": ...}]`);
- `json-object`: a JSON object holding the name and the arguments;
- `name-json`: the name in a marker, then the arguments as a JSON object;
- `xml-params`: the name in a marker, then one tag pair per argument
  (`<parameter=K>V</parameter>`, `<arg_key>K</arg_key><arg_value>V</arg_value>`).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

from .diff import decode_at, escape, is_boundary, loose, shared_head, shared_tail, snap_left
from .probes import CALL_A, CALL_B

# A function name as a model writes it in a marker.
NAME = r"[^\s<>\[\]{}()\"'`,:;=|｜]+"


# After a JSON body with no close marker: a line break, then text that cannot continue JSON (content).
TEXT_AFTER_JSON = r"(?=[ \t]*\n\s*[^\s\[\]{}\",:])"


class CallError(Exception):
    """Why the calls could not be inferred."""


@dataclass
class Located:
    start: int  # where the call's own text starts (the JSON body, or the name)
    end: int  # where it ends
    body_start: int = 0  # json formats: the JSON value; xml: the first argument tag
    details: dict = field(default_factory=dict)


def _find_json(text: str, call: dict, lo: int, hi: int, want: type):
    """The outermost JSON value of type `want` around text[lo:hi] (the name) that carries the call."""
    name = call["name"]
    best = None
    for start in range(lo, -1, -1):
        if text[start] != ("[" if want is list else "{"):
            continue
        decoded = decode_at(text, start)
        if decoded is None or decoded[1] < hi:
            continue
        value, end = decoded
        items = value if isinstance(value, list) else [value]
        if want is list and not (isinstance(value, list) and value and all(isinstance(i, dict) for i in value)):
            continue
        if want is dict and not isinstance(value, dict):
            continue
        item = items[0]
        name_key = next((k for k, v in item.items() if v == name), None)
        args_key = next((k for k, v in item.items() if v == call["arguments"]), None)
        if name_key and args_key:
            best = (start, end, name_key, args_key, len(items))
    return best


def locate(text: str, call: dict, fmt: str, after: int = 0) -> Located | None:
    """Where `call` sits in `text` (searching from `after`) in format `fmt`."""
    n = text.find(call["name"], after)
    if n < 0:
        return None
    n_end = n + len(call["name"])
    if fmt in ("json-list", "json-object"):
        found = _find_json(text, call, n, n_end, list if fmt == "json-list" else dict)
        if found is None:
            return None
        start, end, name_key, args_key, count = found
        return Located(start, end, start, {"name_key": name_key, "args_key": args_key, "count": count})
    if fmt == "name-json":
        for j in range(n_end, len(text)):
            if text[j] == "{":
                decoded = decode_at(text, j)
                if decoded is not None and decoded[0] == call["arguments"]:
                    return Located(n, decoded[1], j, {"header": text[n_end:j]})
                return None
        return None
    if fmt == "python-call":
        return _locate_python(text, call, n, n_end)
    if fmt == "name-json-dialect":
        return _locate_dialect(text, call, n, n_end)
    if fmt == "xml-params":
        return _locate_xml(text, call, n, n_end)
    raise ValueError(fmt)


def _locate_python(text: str, call: dict, n: int, n_end: int) -> Located | None:
    """A Python call: `name(key='value', ...)`."""
    if not text.startswith("(", n_end):
        return None
    i, quote = n_end + 1, None
    while i < len(text):
        char = text[i]
        if quote:
            if char == "\\":
                i += 1
            elif char == quote:
                quote = None
        elif char in "'\"":
            quote = char
        elif char == ")":
            break
        i += 1
    else:
        return None
    body = text[n_end + 1 : i]
    items = list(call["arguments"].items())
    if not items or not isinstance(items[0][1], str):
        return None
    key, value = items[0]
    found = re.search(re.escape(key) + r"\s*=\s*(.)" + re.escape(value), body)
    if not found or found.group(1) not in "'\"":
        return None
    return Located(n, i + 1, n_end + 1, {"header": "(", "quote": found.group(1)})


def _locate_dialect(text: str, call: dict, n: int, n_end: int) -> Located | None:
    """Arguments as JSON with bare keys and strings between custom delimiters (Gemma's `{k:<|"|>v<|"|>}`)."""
    j = text.find("{", n_end)
    items = list(call["arguments"].items())
    if j < 0 or not items or not isinstance(items[0][1], str):
        return None
    key, value = items[0]
    k = text.find(key, j)
    v = text.find(value, k + len(key)) if k >= 0 else -1
    if v < 0 or text[k + len(key)] != ":":
        return None
    open_delim = text[k + len(key) + 1 : v]
    after = v + len(value)
    close_delim = next((text[after:i] for i in range(after + 1, len(text)) if text[i] in ",}"), "")
    if not open_delim or not close_delim or '"' not in open_delim + close_delim and not open_delim.strip():
        return None
    # Rebuild JSON from the dialect and check that it reads back as the arguments.
    body_end = text.find("}", after)
    depth, i = 0, j
    while i < len(text):
        if text.startswith(open_delim, i):
            end = text.find(close_delim, i + len(open_delim))
            if end < 0:
                return None
            i = end + len(close_delim)
            continue
        depth += {"{": 1, "}": -1}.get(text[i], 0)
        i += 1
        if depth == 0:
            body_end = i
            break
    body = text[j:body_end]
    rebuilt = re.sub(
        re.escape(open_delim) + "(.*?)" + re.escape(close_delim), lambda m: json.dumps(m.group(1)), body, flags=re.S
    )
    rebuilt = re.sub(r"(?<=[{,])\s*([A-Za-z_][\w-]*)\s*(?=:)", r'"\1"', rebuilt)
    try:
        if json.loads(rebuilt) != call["arguments"]:
            return None
    except ValueError:
        return None
    return Located(n, body_end, j, {"header": text[n_end:j], "string_delims": [open_delim, close_delim]})


def _locate_xml(text: str, call: dict, n: int, n_end: int) -> Located | None:
    items = [(str(k), v) for k, v in call["arguments"].items()]
    if len(items) < 2 or not all(isinstance(v, str) for _, v in items):
        return None
    spots = []
    pos = n_end
    for key, value in items:
        k = text.find(key, pos)
        if k < 0:
            return None
        v = text.find(value, k + len(key))
        if v < 0:
            return None
        spots.append((k, key, v, value))
        pos = v + len(value)
    (k1, key1, v1, val1), (k2, key2, v2, _) = spots[0], spots[1]
    head_and_open = text[n_end:k1]
    between_kv = text[k1 + len(key1) : v1]
    if text[k2 + len(key2) : v2] != between_kv:
        return None
    close_and_open = text[v1 + len(val1) : k2]
    after = text[spots[-1][2] + len(spots[-1][3]) :]
    best = None
    for cut in range(len(close_and_open) + 1):
        close, opener = close_and_open[:cut], close_and_open[cut:]
        if not is_boundary(close_and_open, cut) or not opener.strip() or opener[0].isspace():
            continue
        if after.startswith(close) and head_and_open.endswith(opener):
            best = (close, opener)
    if best is None:
        return None
    close, opener = best
    value_close = close.rstrip()
    header = head_and_open[: len(head_and_open) - len(opener)]
    end = spots[-1][2] + len(spots[-1][3]) + len(value_close)
    return Located(
        n,
        end,
        n_end + len(header),
        {"header": header, "key_open": opener, "key_close": between_kv, "value_close": value_close},
    )


FORMATS = ("json-list", "json-object", "name-json", "name-json-dialect", "python-call", "xml-params")


@dataclass
class CallSpec:
    fmt: str
    call_open: str
    call_close: str
    section_open: str
    section_close: str
    details: dict
    body_prefix: str  # json-object: the body's text before the name (`{"name": "`)
    single: bool = False  # the template renders at most one call per message

    def describe(self) -> str:
        parts = [f"format {self.fmt}"] + (["one call per message (two do not render)"] if self.single else [])
        for label, value in (
            ("section open", self.section_open),
            ("call open", self.call_open),
            ("call close", self.call_close),
            ("section close", self.section_close),
        ):
            if value.strip():
                parts.append(f"{label} {value.strip()!r}")
        if self.fmt in ("name-json", "name-json-dialect", "python-call", "xml-params"):
            parts.append(f"name in the open marker, then {self.details['header']!r}")
        else:
            parts.append(f"name under {self.details['name_key']!r}, arguments under {self.details['args_key']!r}")
        return "; ".join(parts)


def analyse(one: str, two: str | None) -> CallSpec:
    """Infer the call format from the tool-call text of one call (CALL_A) and of two (CALL_A, CALL_B)."""
    for fmt in FORMATS:
        a = locate(one, CALL_A, fmt)
        if a is None:
            continue
        if fmt == "json-list" and two is not None:
            b_first = locate(two, CALL_A, fmt)
            if b_first is None or b_first.details["count"] != 2:
                raise CallError("the one-call render holds a JSON list, but two calls do not render as one list of two")
            return CallSpec(fmt, "", "", one[: a.start], one[a.end :], a.details, "")
        if two is None:
            # The template refuses two calls: the markers around the one call are per-call.
            lead, trail = one[: a.start], one[a.end :]
            body_prefix = one[a.start : one.find(CALL_A["name"], a.start)] if fmt == "json-object" else ""
            return CallSpec(fmt, lead, trail, "", "", a.details, body_prefix, single=True)
        first = locate(two, CALL_A, fmt)
        if first is None:
            raise CallError(f"the first call renders as {fmt} alone but not beside a second call")
        second = locate(two, CALL_B, fmt, first.end)
        if second is None and fmt == "xml-params":
            second = _locate_xml_single(two, first.end)
        if second is None:
            raise CallError("the second call does not render (only one call per message?)")
        lead, trail = one[: a.start], one[a.end :]
        middle = two[first.end : second.start]
        call_open = shared_tail(lead, middle)
        call_close = shared_head(trail, middle)
        if len(call_open) + len(call_close) > len(middle):
            call_close = middle[: len(middle) - len(call_open)]
        section_open = lead[: len(lead) - len(call_open)]
        section_close = trail[len(call_close) :]
        body_prefix = one[a.start : one.find(CALL_A["name"], a.start)] if fmt == "json-object" else ""
        details = dict(a.details, separator=middle[len(call_close) : len(middle) - len(call_open)])
        return CallSpec(fmt, call_open, call_close, section_open, section_close, details, body_prefix)
    raise CallError(
        "no known argument format: neither a JSON object or list holding the name and arguments, nor the "
        "name followed by JSON arguments or by one tag pair per argument"
    )


def _locate_xml_single(text: str, after: int) -> Located | None:
    """CALL_B has one argument, which xml-params cannot split alone: find its name only."""
    n = text.find(CALL_B["name"], after)
    if n < 0:
        return None
    return Located(n, n, n)


def _header(header: str) -> str:
    """The text between the name and the arguments. A probe's call id printed there (Mistral's
    `[CALL_ID]call00000`), with the marker before it, becomes optional: models write ids of their own, or none."""
    found = re.search(r"call\d{5}", header)
    if not found:
        return loose(header, digits=True)
    before, after = header[: found.start()], header[found.end() :]
    cut = snap_left(before, len(before.rstrip()) - 1) if before.strip() else 0
    optional = "(?:" + loose(before[cut:]) + r"[^\s<>\[\]{}]*)?"
    return loose(before[:cut], digits=True) + optional + loose(after, digits=True)


def _attributes(text: str) -> str:
    """A regex for the literal where quoted attribute values (`string="true"`) match any value: templates write
    them per argument (DeepSeek V3.2's `string="false"` before a JSON value)."""
    parts = re.split(r'(="[^"]*")', text)
    return "".join('="[^"]*"' if part.startswith('="') else escape(part) for part in parts if part)


def _punctuation(text: str) -> bool:
    return bool(text.strip()) and all(char in '{}[]",: \n' for char in text)


def tool_field(spec: CallSpec, end_of_turn: str) -> dict:
    """The `tool_calls` field for a CallSpec; `end_of_turn` is a regex of the turn's stop markers (or empty)."""
    section_open = spec.section_open.strip()
    call_open = spec.call_open.strip()
    call_close = spec.call_close.strip()
    section_close = spec.section_close.strip()
    pattern = r"\s*"
    if spec.fmt == "json-list":
        if not section_open:
            raise CallError("a JSON list of calls with no marker before it cannot be told from content")
        field = {"open_pattern": pattern + loose(section_open)}
        if section_close:
            field["close_pattern"] = r"\s*" + loose(section_close)
        else:
            # Nothing closes the list: it ends at its `]` before the turn's end (the last thing in the output), or
            # before a line break and text that cannot continue JSON (content after the calls).
            closes = [r"(?<=\])\s*" + end_of_turn + r"\s*\Z"] if end_of_turn else []
            field["close_pattern"] = "|".join(closes + [r"(?<=\])" + TEXT_AFTER_JSON])
        names = spec.details
        field.update(
            content="json",
            transform={
                "type": "function",
                "function": {"name": "{" + names["name_key"] + "}", "arguments": "{" + names["args_key"] + "}"},
            },
            transform_each=True,
        )
        return field
    if section_open:
        pattern += "(?:" + loose(section_open) + r"\s*)?"
    if spec.fmt == "json-object":
        if call_open:
            pattern += loose(call_open)
            next_open = loose(call_open)
        elif spec.body_prefix.strip():
            next_open = loose(spec.body_prefix.strip())
            pattern += "(?=" + next_open + ")"
        else:
            raise CallError("a call has no marker before it and its JSON has no fixed start")
        names = spec.details
        transform = {
            "type": "function",
            "function": {
                "name": "{content." + names["name_key"] + "}",
                "arguments": "{content." + names["args_key"] + "}",
            },
        }
    elif spec.fmt == "python-call":
        if not call_open and not section_open:
            raise CallError("Python-style calls with no marker before them cannot be told from content")
        separator = spec.details.get("separator", "")
        starts = [loose(call_open)] if call_open else []
        if not call_open:
            starts = [r"(?<=\))" + (loose(separator) if separator.strip() else r"\s*")]
            pattern = "(?:" + starts[0] + r"|\s*" + loose(section_open) + r"\s*)"
        else:
            pattern += loose(call_open)
        pattern += "(?P<name>" + NAME + r")\("
        next_open = "(?:" + "|".join(starts) + ")" if starts else loose(section_open)
        # The next call as it follows a call's `)`: the separator (or the call marker), then a name and `(`.
        # and a keyword argument or `)` (`"a), f(b"` inside a string is not a next call).
        if call_open:
            next_call = r"\s*" + loose(call_open) + NAME + r"\("
        else:
            next_call = (loose(separator) if separator.strip() else r"\s*") + NAME + r"\("
        next_call += r"(?:\s*[A-Za-z_]\w*\s*=|\s*\))"
        transform = {"type": "function", "function": {"name": "{name}", "arguments": "{content}"}}
    else:
        if not call_open:
            raise CallError("the name has no marker before it")
        head = loose(call_open) + "(?P<name>" + NAME + ")" + _header(spec.details["header"])
        next_open = loose(call_open)
        transform = {"type": "function", "function": {"name": "{name}", "arguments": "{content}"}}
        if _punctuation(call_open) and call_close:
            # Calls opened and closed by JSON punctuation alone (Apertus' `[{"NAME": {...}}, ...]`): the first
            # needs the section marker, the next ones the previous call's close and the separator.
            if not section_open:
                raise CallError("calls opened by JSON punctuation alone, with no marker before them")
            separator = loose(spec.details.get("separator", "")) or r"\s*"
            pattern = r"\s*(?:" + loose(section_open) + r"\s*|(?<=" + escape(call_close.strip()) + ")" + separator + ")"
            following = separator + head.replace("(?P<name>", "(?:")
            closes = [
                r"\s*" + loose(call_close) + "(?:" + (r"\s*" + loose(section_close) if section_close else r"\s*\Z")
            ]
            closes[0] += "|(?=" + following + "))"
            field = {"open_pattern": pattern + head, "close_pattern": closes[0], "repeats": True, "content": "json"}
            field["transform"] = transform
            return field
        pattern += head
    closes = []
    # What may follow a call's end: the next call, the turn's end, or the end of the output. A close marker
    # followed by anything else (`print('</tool_call>')` inside an argument) is text of the call.
    follow = [next_open] + ([end_of_turn] if end_of_turn else [])
    followed = r"(?:(?=\s*(?:" + "|".join(follow) + r"))|\s*\Z)"
    if call_close:
        tail = r"(?:\s*" + loose(section_close) + ")?" if section_close else ""
        closes.append(r"\s*" + loose(call_close) + tail + followed)
        # A close right after the end of the arguments' body (`}`, the last value's close) ends the call even
        # when text follows it (content after calls).
        body_end = spec.details.get("value_close", "") if spec.fmt == "xml-params" else "}"
        if body_end:
            closes.append("(?<=" + escape(body_end) + r")\s*" + loose(call_close) + tail)
    else:
        if section_close:
            closes.append(r"\s*" + loose(section_close) + followed)
        # Nothing closes a call: it ends where the next call or the turn's end follows its JSON.
        after_body = r"(?<=\})" if spec.fmt != "xml-params" else ""
        closes.append(after_body + r"(?=\s*" + next_open + ")")
        if end_of_turn:
            # (consumed with it: a look-ahead to the end would hold at the end of every chunk)
            closes.append(after_body + r"\s*" + end_of_turn + r"\s*\Z")
        if after_body:
            closes.append(after_body + TEXT_AFTER_JSON)
    if spec.fmt == "python-call":
        # A `)` ends the call only before the section's close, the next call, the turn's end or the output's end
        # (a `)` inside a quoted argument does not).
        closes = [r"\)\s*" + loose(section_close)] if section_close else []
        closes.append(r"\)(?=" + next_call + ")")
        if end_of_turn:
            closes.append(r"\)(?=\s*" + end_of_turn + ")")
        closes.append(r"\)\s*\Z")
    field = {"open_pattern": pattern, "close_pattern": "|".join(closes), "repeats": True}
    if spec.fmt == "python-call":
        quote = escape(spec.details["quote"])
        # A quoted string, a list or an object one level deep (a list inside an object), or a bare literal.
        value = (
            quote
            + r"(?:[^"
            + quote
            + r"\\]|\\.)*"
            + quote
            # (a JSON string too, where the template renders another quote)
            + (r'|"(?:[^"\\]|\\.)*"' if spec.details["quote"] != '"' else "")
            + r"|\[[^\[\]]*\]|\{[^{}\[\]]*(?:\[[^\[\]]*\][^{}\[\]]*)*\}|[^,()\[\]{}]*"
        )
        parser = {"name": "json", "args": {"allow_non_json": True}}
        if spec.details["quote"] != '"':
            parser["args"]["string_delims"] = [[spec.details["quote"], spec.details["quote"]]]
        field.update(
            content="xml-inline",
            content_args={
                "tag_pattern": r"(?P<key>[A-Za-z_]\w*)\s*=\s*(?P<value>" + value + ")",
                "value_parser": parser,
            },
            transform=transform,
        )
        return field
    if spec.fmt == "xml-params":
        d = spec.details
        # A value ends at its close when the next argument or the body's end follows (a value may hold the close).
        following = r"(?=\s*(?:" + loose(d["key_open"]) + "|$))"
        value_end = escape(d["value_close"]) + following if d["value_close"] else following
        tag = escape(d["key_open"]) + "(?P<key>.+?)" + _attributes(d["key_close"]) + "(?P<value>.*?)" + value_end
        field.update(content="xml-inline", content_args={"tag_pattern": tag})
        words = list(re.finditer(r"\w+", call_close))
        if words:
            # The call's close stays in its body (the close is a look-behind), and the body must end with it:
            # a call cut off before its close has no arguments to give and raises, as a cut-off JSON call does.
            word = words[-1]
            tail = r"(?:\s*" + loose(section_close) + ")?" if section_close else ""
            closed = loose(call_close) + tail
            keyed = (
                loose(call_close[: word.start()])
                + "(?P<key>"
                + word.group()
                + ")"
                + loose(call_close[word.end() :])
                + tail
            )
            field["close_pattern"] = "(?<=" + closed + ")" + followed
            if d["value_close"]:
                field["close_pattern"] += "|(?<=" + escape(d["value_close"]) + r"\s*" + closed + ")"
            field["content_args"] = {
                "tag_pattern": r"(?P<value>.*)" + keyed + r"\s*$",
                "value_parser": {"name": "xml-inline", "args": {"tag_pattern": tag}},
            }
            transform = {
                "type": "function",
                "function": {"name": "{name}", "arguments": "{content." + word.group() + "}"},
            }
    else:
        field["content"] = "json"
        if spec.fmt == "name-json-dialect":
            field["content_args"] = {"unquoted_keys": True, "string_delims": [spec.details["string_delims"]]}
    field["transform"] = transform
    return field
