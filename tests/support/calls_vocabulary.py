"""The pieces of a bundled template's own tool calls (benchmarks/shapes.py
finds them in its samples), cut at several places: what the many-calls
differential tests draw from."""

from __future__ import annotations

from benchmarks.shapes import _call_parts

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "parameters": {
                "type": "object",
                "properties": {"city": {"type": "string"}, "days": {"type": "integer"}, "hourly": {"type": "boolean"}},
            },
        },
    }
]


def _cuts(text: str) -> list[str]:
    """`text` whole, and cut in two at its start, middle and end."""
    pieces = [text]
    for at in sorted({1, len(text) // 2, len(text) - 1}):
        if 0 < at < len(text):
            pieces += [text[:at], text[at:]]
    return pieces


def _vocabulary(name: str):
    """(sample prefix, whole calls, pieces) of the template's calls."""
    parts = _call_parts(name, every=True)
    prefix = parts[0][0]["prefix"]
    calls, pieces = [], []
    for _sample, _before, opened, body, closed, _after in parts[:4]:
        calls.append(opened + body + closed)
        for text in (opened, body, closed):
            if text:
                pieces += _cuts(text)
        if body:
            pieces.append(body[: len(body) // 2])  # a body that stops halfway: its value fails
    pieces += [" ", "\n", "x", "}", "\n\n", "Done."]
    return prefix, calls, list(dict.fromkeys(pieces))
