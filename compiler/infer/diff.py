"""String diffing: common prefixes and suffixes snapped to marker boundaries, and
literal-to-regex helpers.

A boundary is where a marker can start or end: next to whitespace, after a
closing bracket-like character or before an opening one. This is what keeps
`<｜tool▁call▁end｜><｜tool▁call▁begin｜>` from being cut inside a marker when
two renders share the tail of one marker: `▁`, `｜`, `◁` are ordinary
characters, so no fixed list of marker shapes is needed.
"""

from __future__ import annotations

import json
import re

WHITESPACE = " \t\r\n"
OPENERS = "<[◁{(【（「"
CLOSERS = ">]▷})】）」"


def common_prefix(a: str, b: str) -> int:
    n = min(len(a), len(b))
    i = 0
    while i < n and a[i] == b[i]:
        i += 1
    return i


def common_suffix(a: str, b: str) -> int:
    n = min(len(a), len(b))
    i = 0
    while i < n and a[-1 - i] == b[-1 - i]:
        i += 1
    return i


def is_boundary(text: str, i: int) -> bool:
    if i <= 0 or i >= len(text):
        return True
    return text[i - 1] in WHITESPACE + CLOSERS or text[i] in WHITESPACE + OPENERS


def snap_left(text: str, i: int) -> int:
    while not is_boundary(text, i):
        i -= 1
    return i


def snap_right(text: str, i: int) -> int:
    while not is_boundary(text, i):
        i += 1
    return i


def shared_tail(a: str, b: str) -> str:
    """The longest common suffix of a and b that starts at a boundary of a."""
    n = common_suffix(a, b)
    start = snap_right(a, len(a) - n)
    return a[start:]


def shared_head(a: str, b: str) -> str:
    """The longest common prefix of a and b that ends at a boundary of a."""
    return a[: snap_left(a, common_prefix(a, b))]


def escape(text: str) -> str:
    """A regex for the literal, with newlines and tabs spelled as escapes."""
    return re.escape(text).replace("\\\n", "\\n").replace("\\\t", "\\t").replace("\\\r", "\\r")


def loose(text: str, *, digits: bool = False) -> str:
    """A regex for the literal where every whitespace run matches any whitespace
    (and, with `digits`, every digit run matches any digits: call indexes)."""
    parts = re.split(r"(\s+|\d+)" if digits else r"(\s+)", text)
    out = []
    for part in parts:
        if not part:
            continue
        if part.isspace():
            out.append(r"\s*")
        elif digits and part.isdigit():
            out.append(r"\d+")
        else:
            out.append(escape(part))
    return "".join(out)


def decode_at(text: str, start: int):
    """(value, end) of the JSON value starting at `start`, or None."""
    try:
        return json.JSONDecoder().raw_decode(text, start)
    except ValueError:
        return None


def first_token(text: str) -> str:
    """The first marker of text (an end-of-turn marker, without what the template prints after it)."""
    parts = split_markers(text)
    if not parts:
        return ""
    piece = parts[0]
    if piece[0] in OPENERS:
        ends = [i for i, char in enumerate(piece) if char in CLOSERS]
        if ends:
            return piece[: ends[0] + 1]
    return piece


def split_markers(text: str) -> list[str]:
    """`<think>\n\n</think>` or `<think></think>` -> [`<think>`, `</think>`]: split at whitespace and
    wherever a closing character meets an opening one."""
    out = []
    for piece in text.split():
        start = 0
        for i in range(1, len(piece)):
            if piece[i - 1] in CLOSERS and piece[i] in OPENERS:
                out.append(piece[start:i])
                start = i
        out.append(piece[start:])
    return out


def json_shapes(text: str) -> str:
    """`text` with each JSON object or list in it reduced to its shape and whitespace dropped: how a call is
    written, whatever its values, key order and spacing. An object keeps its keys (`{"name": .., "arguments":
    {..}}` -> `{arguments:{},name:0}`), an object inside one keeps none (the arguments), a list keeps its items'
    shapes."""
    decoder = json.JSONDecoder()
    out = []
    i = 0
    while i < len(text):
        if text[i] in "[{":
            try:
                value, end = decoder.raw_decode(text, i)
            except ValueError:
                value, end = None, i
            if isinstance(value, (dict, list)):
                out.append(_shape(value))
                i = end
                continue
        if not text[i].isspace():
            out.append(text[i])
        i += 1
    return "".join(out)


def _shape(value: object, outer: bool = True) -> str:
    if isinstance(value, dict):
        if not outer:
            return "{}"
        return "{" + ",".join(f"{key}:{_shape(value[key], False)}" for key in sorted(value)) + "}"
    if isinstance(value, list):
        return "[" + ",".join(_shape(item, outer) for item in value) + "]"
    return "0"
