"""Probe conversations: inference probes differ from each other in one thing;
validation probes are never used for inference.

Values are words no template prints by itself, so that finding them in a
render locates what the template did with them.
"""

from __future__ import annotations

USER = {"role": "user", "content": "USERQUERY"}
CONTENT = "CONTENTALPHA"
REASONING = "REASONINGALPHA"
REASONING_KEYS = ("reasoning_content", "thinking", "reasoning")


def _tool(name: str, properties: dict) -> dict:
    return {
        "type": "function",
        "function": {
            "name": name,
            "description": f"Probe tool {name}.",
            "parameters": {"type": "object", "properties": properties, "required": list(properties)},
        },
    }


TOOLS = [
    _tool("get_weather", {"city": {"type": "string"}, "unit": {"type": "string"}}),
    _tool("get_time", {"zone": {"type": "string"}}),
    _tool(
        "set_alarm",
        {
            "count": {"type": "integer"},
            "enabled": {"type": "boolean"},
            "ratio": {"type": "number"},
            "label": {"type": "string"},
            "filter": {"type": "object"},
            "tags": {"type": "array"},
        },
    ),
    _tool("list_items", {}),
]


def render_tools(renderer) -> list | None:
    """The tools probes render with: TOOLS, or none for a template that fails to render tool schemas."""
    return getattr(renderer, "probe_tools", TOOLS)


CALL_A = {"name": "get_weather", "arguments": {"city": "Paris", "unit": "celsius"}}
CALL_B = {"name": "get_time", "arguments": {"zone": "UTC"}}


def call_id(index: int, name: str, style: int) -> str:
    """Ids in the styles templates check: 9 alphanumerics (Mistral), `functions.NAME:IDX` (Kimi)."""
    return f"call{index:05d}" if style == 0 else f"functions.{name}:{index}"


def assistant(
    content: str | None = "",
    reasoning: str | None = None,
    calls: list[dict] = (),
    *,
    key: str = "reasoning_content",
    id_style: int = 0,
    string_args: bool = False,
) -> dict:
    import json

    message: dict = {"role": "assistant", "content": content}
    if reasoning is not None:
        message[key] = reasoning
    if calls:
        message["tool_calls"] = [
            {
                "id": call_id(index, call["name"], id_style),
                "type": "function",
                "function": {
                    "name": call["name"],
                    "arguments": (
                        json.dumps(call["arguments"], ensure_ascii=False) if string_args else call["arguments"]
                    ),
                },
            }
            for index, call in enumerate(calls)
        ]
    return message


def thinking_parts(content: str = CONTENT, reasoning: str = REASONING) -> dict:
    """An assistant turn whose content is a list of parts, reasoning as a thinking part (Mistral's shape)."""
    return {
        "role": "assistant",
        "content": [{"type": "thinking", "thinking": reasoning}, {"type": "text", "text": content}],
    }


def expected(content: str | None = "", reasoning: str | None = None, calls: list[dict] = ()) -> dict:
    """The message a parser must give back for a probe."""
    message: dict = {"role": "assistant"}
    if reasoning and reasoning.strip():
        message["reasoning_content"] = reasoning.strip()
    if content and content.strip():
        message["content"] = content.strip()
    if calls:
        message["tool_calls"] = [
            {"type": "function", "function": {"name": call["name"], "arguments": call["arguments"]}} for call in calls
        ]
    return message


# Validation probes: (name, content, reasoning, calls, needs) where needs names the
# fields the template must have for the probe to apply.
VALIDATION = [
    ("unicode_content", "Grüße aus Köln — 東京は晴れ ☀️ ok", None, [], ()),
    ("multiline_content", "First line.\n\nSecond line with `code` and 3 < 4.", None, [], ()),
    ("marker_like_content", 'Use <b>bold</b>, [x] or {"k": 1} here.', None, [], ()),
    ("reasoning_unicode", "Die Antwort ist 42.", "Erst rechnen: 6 × 7 = 42.\nDann prüfen.", [], ("reasoning",)),
    (
        "typed_arguments",
        "",
        None,
        [
            {
                "name": "set_alarm",
                "arguments": {
                    "count": 3,
                    "enabled": True,
                    "ratio": 0.25,
                    "label": "wake up",
                    "filter": {"a": [1, 2]},
                    "tags": ["x", "y"],
                },
            }
        ],
        ("tools",),
    ),
    (
        "three_calls",
        "",
        None,
        [
            {"name": "get_time", "arguments": {"zone": "Europe/Berlin"}},
            {"name": "get_weather", "arguments": {"city": "São Paulo", "unit": "fahrenheit"}},
            {"name": "get_time", "arguments": {"zone": "Asia/Tokyo"}},
        ],
        ("tools",),
    ),
    (
        "text_before_calls",
        "Let me check that.",
        None,
        [{"name": "get_time", "arguments": {"zone": "America/New_York"}}],
        ("tools",),
    ),
    ("no_arguments", "", None, [{"name": "list_items", "arguments": {}}], ("tools",)),
    (
        "reasoning_then_call",
        "",
        "The user wants the weather; call the tool.",
        [{"name": "get_weather", "arguments": {"city": "Zürich", "unit": "celsius"}}],
        ("reasoning", "tools"),
    ),
]
