"""`parse_response` on a text longer than WHOLE_LIMIT, which goes through
`run_parse_response`'s streaming path (runtime/whole.py) instead of the
generated module's whole-text search: one text gives one message (a batch
a list), and the tools type the arguments there too. The oracle is the
same parser fed the text and finalized. Part of mutmut's selection
(pyproject.toml): the recorded survivors of `run_parse_response`
(`batched`, `tools=`, `messages[0]`) are reached only by such a text.
"""

from __future__ import annotations

import json

from compiler.conformance.vectors import VECTORS_DIR, read_json_lines
from runtime.whole import WHOLE_LIMIT, run_parse_response
from vector_modules import module_for


def _streamed(module, text, prefix, tools):
    parser = module.ResponseParser(prefix, tools=tools)
    parser.feed(text)
    return parser.finalize()[0]


def _typed_case():
    """A tool-typing case whose message the tools change, made longer than
    WHOLE_LIMIT by text in front of it."""
    module = module_for("feat_tool_typing")
    for case in read_json_lines(VECTORS_DIR / "feat_tool_typing.jsonl"):
        if not case["tools"] or case["error"] is not None or len(case["chunks"]) != 1:
            continue
        text = " " * (WHOLE_LIMIT + 1) + case["chunks"][0]
        try:
            typed = _streamed(module, text, case["prefix"], case["tools"])
            untyped = _streamed(module, text, case["prefix"], None)
        except Exception:  # noqa: BLE001 - the padding may make a case invalid; take another
            continue
        if json.dumps(typed) != json.dumps(untyped):
            return module, text, case["prefix"], case["tools"], typed
    raise AssertionError("no feat_tool_typing case whose tools change the message")


def test_long_text_is_one_typed_message():
    module, text, prefix, tools, expected = _typed_case()
    assert len(text) > WHOLE_LIMIT
    message = module.parse_response(text, prefix=prefix, tools=tools)
    assert isinstance(message, dict)
    assert json.dumps(message) == json.dumps(expected)
    batch = module.parse_response([text, text], prefix=prefix, tools=tools)
    assert [json.dumps(m) for m in batch] == [json.dumps(expected)] * 2


def test_run_parse_response_without_the_whole_search():
    """Called without the module's whole-text search (as a vendored or older
    module may), a short text takes the streaming path too."""
    module = module_for("qwen3")
    text = "Hi <tool_call>\n" + json.dumps({"name": "f", "arguments": {"n": 1}}) + "\n</tool_call>"
    expected = _streamed(module, text, "", None)
    assert json.dumps(run_parse_response(module.ResponseParser, text, "", None)) == json.dumps(expected)
    assert [json.dumps(m) for m in run_parse_response(module.ResponseParser, [text], "", None)] == [
        json.dumps(expected)
    ]
