"""Rows of generations for the batch tests, and the check that a batch's
output row equals what the compiled parser gives for that row alone (and
what the reference interpreter gives, compared as the differential tests do)."""

from __future__ import annotations

import json
from pathlib import Path

from differential import reference_trace, same

from compiler.frontend import source as sources
from compiler.pipeline import module_from_code, python_source

ROOT = Path(__file__).resolve().parents[2]


def samples(name: str) -> list[dict]:
    return json.loads((ROOT / "templates_src" / "samples" / f"{name}.json").read_text(encoding="utf-8"))["samples"]


def template(name: str) -> dict:
    return json.loads((ROOT / "templates_src" / f"{name}.json").read_text(encoding="utf-8"))


def vendored_module(name: str):
    """The template's parser with the runtime inlined: workers need nothing from this project."""
    source = sources.read(name)
    return module_from_code(python_source(source, vendored=True), source, filename=f"<vendored {name}>")


def rows(name: str, count: int | None = None) -> list[dict]:
    """Every sample of template `name` as a row (tools as JSON text), then rows that must fail
    (a null output, a null prefix, tools that are not JSON), cycled up to `count` rows."""
    base = [
        {
            "id": sample["id"],
            "output": sample["output"],
            "prefix": sample["prefix"],
            "tools": json.dumps(sample["tools"], ensure_ascii=False) if "tools" in sample else None,
        }
        for sample in samples(name)
    ]
    good = base[0]
    base += [
        {"id": "null-output", "output": None, "prefix": "", "tools": None},
        {"id": "null-prefix", "output": good["output"], "prefix": None, "tools": None},
        {"id": "bad-tools", "output": good["output"], "prefix": good["prefix"], "tools": "[{not json"},
    ]
    if count is None:
        return base
    return [dict(base[i % len(base)], id=f"{i}:{base[i % len(base)]['id']}") for i in range(count)]


def alone(module, row: dict):
    """(message, None) or (None, exception) from the compiled parser on this row alone."""
    try:
        if not isinstance(row["output"], str):
            raise TypeError("field 'output' must be a string, not NoneType")
        tools = json.loads(row["tools"]) if row["tools"] is not None else None
        return module.parse_response(row["output"], prefix=row["prefix"], tools=tools), None
    except Exception as error:  # noqa: BLE001 - the class is the result
        return None, error


def reference(name: str, row: dict):
    """The interpreter's (message, exception class) for a row whose inputs it accepts."""
    tools = json.loads(row["tools"]) if row["tools"] is not None else None
    result = reference_trace(template(name), row["prefix"], [row["output"]], tools)
    return result["message"], (result["error"] or {}).get("type")


def check_row(module, name: str, row: dict, out: dict, prefix: str = "") -> None:
    """`out` (a row of the batch output, the added columns behind `prefix`) equals the row parsed alone."""
    message, error = alone(module, row)
    for key in ("id", "output", "prefix", "tools"):
        assert out[key] == row[key], (row["id"], key)
    if error is not None:
        assert out[prefix + "error"] == {"type": type(error).__name__, "message": str(error)}, row["id"]
        assert out[prefix + "message"] is None and out[prefix + "tool_calls"] is None, row["id"]
        if isinstance(row["output"], str) and row["prefix"] is not None and row["tools"] != "[{not json":
            assert reference(name, row)[1] is type(error), row["id"]
        return
    assert out[prefix + "error"] is None, (row["id"], out[prefix + "error"])
    assert same(json.loads(out[prefix + "message"]), message), row["id"]
    assert out[prefix + "reasoning_content"] == message.get("reasoning_content"), row["id"]
    assert out[prefix + "content"] == message.get("content"), row["id"]
    calls = message.get("tool_calls")
    if calls is None:
        assert out[prefix + "tool_calls"] is None, row["id"]
    else:
        expected = [
            {"id": call.get("id"), "name": call["function"]["name"], "arguments": call["function"]["arguments"]}
            for call in calls
        ]
        got = [dict(call, arguments=json.loads(call["arguments"])) for call in out[prefix + "tool_calls"]]
        assert same(got, expected), row["id"]
    ref_message, ref_error = reference(name, row)
    assert ref_error is None and same(ref_message, message), row["id"]
