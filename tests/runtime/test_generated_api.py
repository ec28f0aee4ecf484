"""The generated module's public API: TEMPLATE, ResponseParser, parse_response
with single texts and batches."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from transformers.utils.chat_parsing import parse_response as reference_parse

from conftest import load_generated

ROOT = Path(__file__).resolve().parents[2]
QWEN3 = json.loads((ROOT / "templates_src" / "qwen3.json").read_text())
TEXTS = [
    "<think>a</think>Hello<|im_end|>",
    "Hi!<|im_end|>",
    '<tool_call>\n{"name": "f", "arguments": {}}\n</tool_call>',
]


def test_template_is_the_source_dict():
    assert load_generated("qwen3").TEMPLATE == QWEN3


def test_batch_with_one_prefix_and_with_one_prefix_per_text():
    module = load_generated("qwen3")
    prefix = "<|im_start|>assistant\n"
    expected = [reference_parse(text, QWEN3, prefix=prefix) for text in TEXTS]
    assert module.parse_response(TEXTS, prefix=prefix) == expected
    prefixes = [prefix, prefix + "<think>\n", ""]
    expected = [reference_parse(text, QWEN3, prefix=p) for text, p in zip(TEXTS, prefixes)]
    assert module.parse_response(TEXTS, prefix=prefixes) == expected
    assert module.parse_response(tuple(TEXTS), prefix=[]) == [reference_parse(t, QWEN3, prefix="") for t in TEXTS]
    assert module.parse_response([], prefix="") == []


def test_batch_errors():
    module = load_generated("qwen3")
    with pytest.raises(ValueError):
        module.parse_response(TEXTS, prefix=["", ""])  # one prefix per text, or one for all
    with pytest.raises(ValueError):
        module.parse_response(TEXTS[0])  # prefix is required, as in transformers
    with pytest.raises(ValueError):
        module.ResponseParser(None)


def test_streaming_api_and_finalize_twice():
    module = load_generated("qwen3")
    parser = module.ResponseParser("<|im_start|>assistant\n<think>\n")
    # The "\n" after <think> is held back: it could begin `\s*<tool_call>`,
    # where the reasoning ends (a call inside unclosed reasoning is a call).
    assert parser.initial_events == [{"type": "region_open", "field": "reasoning_content"}]
    events = parser.feed("ok</think>Done<|im_end|>")
    assert events[-1] == {"type": "region_chunk", "field": "content", "text": "Done", "dirty": False}
    # The end-of-turn close is a regex ending at the buffer edge: it could
    # still grow, so (as in the reference) it only commits at finalize.
    message, final_events = parser.finalize()
    assert message == {"role": "assistant", "reasoning_content": "ok", "content": "Done"}
    assert final_events == [{"type": "region_close", "field": "content", "value": "Done"}]
    with pytest.raises(RuntimeError):
        parser.feed("more")
    with pytest.raises(RuntimeError):
        parser.finalize()


def test_parse_response_agrees_with_every_one_chunk_vector():
    """`parse_response` (the generated whole-text search) on every long
    vector case fed in one chunk gives the case's message or error (shorter
    texts take `feed`, which the whole corpus checks)."""
    import sys

    sys.path.insert(0, str(ROOT / "tests"))
    from compiler.conformance.vectors import VECTORS_DIR, read_json_lines

    LONG = 1024  # a long text
    from vector_modules import module_for

    modules = {}
    long_texts = 0
    for path in sorted(VECTORS_DIR.glob("*.jsonl")):
        for case in read_json_lines(path):
            if len(case["chunks"]) != 1 or len(case["chunks"][0]) <= LONG // 2:
                continue
            name = case["template"]
            if name not in modules:
                modules[name] = module_for(name)
            text = case["chunks"][0]
            long_texts += len(text) > LONG
            try:
                message = modules[name].parse_response(text, prefix=case["prefix"], tools=case["tools"])
            except Exception as error:  # noqa: BLE001 - compared with the vector's error class
                assert case["error"] is not None and type(error).__name__ == case["error"]["type"], case["id"]
                continue
            assert case["error"] is None and json.dumps(message) == json.dumps(case["message"]), case["id"]
    assert long_texts >= 10
