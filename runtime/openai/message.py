"""Call ids and the non-streaming OpenAI message: what the streaming deltas must add up to."""

import hashlib
import json

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
