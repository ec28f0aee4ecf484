"""Hand-written floor parsers for the realistic benchmark (benchmarks/realistic.py).

Plain `str.find` / `json.loads` code, as a person would write a parser for
one model family without any template machinery: the physical reference the
compiled whole-text parse is measured against. Each one is written for its
template's bundled samples (and the benchmark's variants of them) and is
checked to give the compiled parser's message on every one of them before
it is timed; it is not a general parser of the format.

- `qwen3`: find the anchor from the end of the prompt (a prefilled
  `<think>`), the reasoning, each `<tool_call>` block (`json.loads`), the
  content pieces around them (joined by a newline).
- `qwen3_coder`: each `<function=NAME>` call (with or without the
  `<tool_call>` wrapper), its `<parameter=K>` values, the content pieces
  (joined by a blank line).

Arguments are cast to the tools' declared types as transformers does
(integer, number, boolean, null; a failed cast keeps the text).
"""

from __future__ import annotations

import json

ANCHOR = "<|im_start|>assistant\n"
END_MARKERS = ("<|im_end|>", "<|endoftext|>")


def tool_types(tools) -> dict:
    """{tool name: {argument: (declared types)}} from JSON-schema tools."""
    out = {}
    for tool in tools or ():
        function = tool.get("function", tool)
        properties = (function.get("parameters") or {}).get("properties") or {}
        types = {}
        for key, schema in properties.items():
            declared = schema.get("type") if isinstance(schema, dict) else None
            types[key] = (declared,) if isinstance(declared, str) else tuple(declared or ())
        out[function.get("name")] = types
    return out


def cast(raw: str, types: tuple):
    for name in types:
        try:
            if name == "integer":
                try:
                    return int(raw)
                except ValueError:
                    number = float(raw)
                    if number.is_integer():
                        return int(number)
            elif name == "number":
                number = float(raw)
                if number == number and number not in (float("inf"), float("-inf")):
                    return int(number) if number.is_integer() and "." not in raw else number
            elif name == "boolean" and raw.strip().lower() in ("true", "1", "false", "0"):
                return raw.strip().lower() in ("true", "1")
            elif name == "null" and raw.strip() in ("null", "None"):
                return None
            elif name in ("object", "array"):
                decoded = json.loads(raw)
                if isinstance(decoded, dict if name == "object" else list):
                    return decoded
        except ValueError:
            continue
    return raw


def typed(arguments: dict, types: dict | None) -> dict:
    if not types:
        return arguments
    return {
        key: cast(value, types[key]) if isinstance(value, str) and key in types else value
        for key, value in arguments.items()
    }


def content_pieces(piece: str, out: list) -> None:
    """The content text of `piece`, split at end-of-turn markers, stripped."""
    for marker in END_MARKERS[1:]:
        piece = piece.replace(marker, END_MARKERS[0])
    for part in piece.split(END_MARKERS[0]):
        part = part.strip()
        if part:
            out.append(part)


def prefilled_think(prefix: str) -> bool:
    at = prefix.rfind(ANCHOR)
    tail = prefix[at + len(ANCHOR) :] if at >= 0 else ""
    return tail.rfind("<think>") > tail.rfind("</think>")


def qwen3(text: str, prefix: str, tools=None) -> dict:
    message = {"role": "assistant"}
    types = tool_types(tools) if tools else None
    pos = 0
    thinking = prefilled_think(prefix)
    if not thinking:
        start = text.find("<think>")
        if start >= 0 and not text[:start].strip():
            thinking, pos = True, start + 7
    if thinking:
        end = text.find("</think>", pos)
        call = text.find("<tool_call>", pos)
        if call >= 0 and (end < 0 or call < end) and text[call + 11 :].lstrip().startswith("{"):
            reasoning, pos = text[pos:call], call
        elif end >= 0:
            reasoning, pos = text[pos:end], end + 8
        else:
            reasoning, pos = text[pos:], len(text)
        reasoning = reasoning.strip()
        if reasoning:
            message["reasoning_content"] = reasoning
    content, calls = [], []
    while pos < len(text):
        call = text.find("<tool_call>", pos)
        if call < 0:
            content_pieces(text[pos:], content)
            break
        content_pieces(text[pos:call], content)
        body = call + 11
        close = text.find("</tool_call>", body)
        while close >= 0:
            rest = text[close + 12 :].lstrip()
            if text[body:close].rstrip().endswith("}") or not rest or rest.startswith(("<tool_call>",) + END_MARKERS):
                break
            close = text.find("</tool_call>", close + 12)
        if close < 0:
            value = json.loads(text[body:])  # a cut-off call: raises ValueError, as the reference does
            close = len(text) - 12
        else:
            value = json.loads(text[body:close])
        if types and isinstance(value, dict) and isinstance(value.get("arguments"), dict):
            value["arguments"] = typed(value["arguments"], types.get(value.get("name")))
        calls.append({"type": "function", "function": value})
        pos = close + 12
    if content:
        message["content"] = "\n".join(content)
    if calls:
        message["tool_calls"] = calls
    return message


def _coder_call_end(text: str, at: int) -> tuple[int, int]:
    """(end of the body, end of the call) of the call whose body starts at `at`."""
    close = text.find("</function>", at)
    while close >= 0:
        after = close + 11
        rest = text[after:].lstrip()
        if rest.startswith("</tool_call>"):
            return close, text.find("</tool_call>", after) + 12
        if not rest or rest.startswith(("<tool_call>", "<function=") + END_MARKERS):
            return close, after
        close = text.find("</function>", after)
    raise ValueError("tool call cut off before </function>")


def _coder_arguments(body: str) -> dict:
    arguments = {}
    at = body.find("<parameter=")
    while at >= 0:
        key_end = body.find(">", at)
        key = body[at + 11 : key_end]
        start = key_end + 1
        if body.startswith("\n", start):
            start += 1
        close = body.find("</parameter>", start)
        while close >= 0:
            rest = body[close + 12 :].lstrip()
            if not rest or rest.startswith("<parameter="):
                break
            close = body.find("</parameter>", close + 12)
        value = body[start:close]
        arguments[key] = value[:-1] if value.endswith("\n") else value
        at = body.find("<parameter=", close + 12)
    return arguments


def qwen3_coder(text: str, prefix: str, tools=None) -> dict:
    message = {"role": "assistant"}
    types = tool_types(tools) if tools else None
    content, calls = [], []
    pos = 0
    while pos < len(text):
        function = text.find("<function=", pos)
        name_end = text.find(">", function + 10) if function >= 0 else -1
        if name_end < 0 or "\n" in text[function + 10 : name_end]:
            content_pieces(text[pos:], content)
            break
        start = function
        head = text[pos:function].rstrip()
        if head.endswith("<tool_call>"):
            start = pos + len(head) - 11
        content_pieces(text[pos:start], content)
        name = text[function + 10 : name_end]
        body_end, pos = _coder_call_end(text, name_end + 1)
        arguments = _coder_arguments(text[name_end + 1 : body_end])
        if types:
            arguments = typed(arguments, types.get(name))
        calls.append({"type": "function", "function": {"name": name, "arguments": arguments}})
    if calls:
        message["tool_calls"] = calls
    if content:
        message["content"] = "\n\n".join(content)
    return message


FLOORS = {"qwen3": qwen3, "qwen3_coder": qwen3_coder}
