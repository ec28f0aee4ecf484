"""Cases where the reference interpreter's own result depends on how the
output was chunked. The compiled parsers reproduce the reference exactly in
each chunking (they must not be "better" or worse); the bundled templates
avoid the patterns that cause it."""

from __future__ import annotations

import pytest
from transformers.utils.chat_parsing import ResponseParser

from compiler import compile_template
from differential import assert_same_behaviour

# A close pattern whose lookahead accepts `$`: during streaming `$` is
# satisfied at the end of whatever text has arrived, so a chunk ending
# right after a `</tool_call> ` that sits inside a JSON string commits the
# close too early. Whole-text parsing gets it right.
DOLLAR_LOOKAHEAD = {
    "start_anchor": "<|im_start|>assistant\n",
    "fields": {
        "tool_calls": {
            "open_pattern": r"\s*<tool_call>",
            "close_pattern": r"</tool_call>(?=\s*(?:<tool_call>|<\|im_end\|>|$))",
            "repeats": True,
            "content": "json",
            "transform": {"type": "function", "function": "{content}"},
        },
        "content": {"close_pattern": r"\s*<\|im_end\|>"},
    },
}
OUTPUT = '<tool_call>\n{"name": "run_python", "arguments": {"code": "print(\'</tool_call> x\')"}}\n</tool_call><|im_end|>'
CUT = OUTPUT.index("</tool_call> x") + len("</tool_call> ")

# An open pattern ending in an optional group: a chunk ending inside the
# optional part commits the shorter complete match (partial matching prefers
# a complete match to a longer partial one), so the optional text lands in
# the body.
OPTIONAL_TAIL = {
    "start_anchor": "<|assistant|>",
    "fields": {
        "tool_calls": {"open_pattern": r"<call>(?:json)?", "close": "</call>", "content": "json"},
        "content": {"close": "<|end|>"},
    },
}


def _run_reference(template, chunks):
    parser = ResponseParser(template, prefix="")
    for chunk in chunks:
        parser.feed(chunk)
    return parser.finalize()[0]


def test_dollar_in_lookahead_depends_on_chunking():
    whole = _run_reference(DOLLAR_LOOKAHEAD, [OUTPUT])
    assert whole["tool_calls"][0]["function"]["arguments"] == {"code": "print('</tool_call> x')"}
    with pytest.raises(ValueError):  # the early close leaves half a JSON object
        _run_reference(DOLLAR_LOOKAHEAD, [OUTPUT[:CUT], OUTPUT[CUT:]])
    module = compile_template(DOLLAR_LOOKAHEAD, name="dollar_lookahead")
    for chunks in ([OUTPUT], [OUTPUT[:CUT], OUTPUT[CUT:]], list(OUTPUT)):
        assert_same_behaviour(DOLLAR_LOOKAHEAD, module, "", chunks)


def test_optional_tail_on_open_depends_on_chunking():
    text = '<call>json{"a": 1}</call><|end|>'
    assert _run_reference(OPTIONAL_TAIL, [text])["tool_calls"] == {"a": 1}
    with pytest.raises(ValueError):  # "json" went into the body
        _run_reference(OPTIONAL_TAIL, ["<call>j", 'son{"a": 1}</call><|end|>'])
    module = compile_template(OPTIONAL_TAIL, name="optional_tail")
    for chunks in ([text], ["<call>j", text[7:]], list(text)):
        assert_same_behaviour(OPTIONAL_TAIL, module, "", chunks)


def test_bundled_qwen3_is_chunking_independent_on_that_case():
    import json
    from pathlib import Path

    template = json.loads((Path(__file__).resolve().parents[2] / "templates_src" / "qwen3.json").read_text())
    expected = {"code": "print('</tool_call> x')"}
    for chunks in ([OUTPUT], [OUTPUT[:CUT], OUTPUT[CUT:]], list(OUTPUT)):
        assert _run_reference(template, chunks)["tool_calls"][0]["function"]["arguments"] == expected
