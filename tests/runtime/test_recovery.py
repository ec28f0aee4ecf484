"""The recovery mode's API (runtime/recover.py) beyond what the recovery
vectors pin: the options, the offsets against `input_text`, the default mode
left as the reference's."""

from __future__ import annotations

import pytest

from vector_modules import module_for

BAD = 'Hi <tool_call>\n{"name": "a", "arguments": {}}\n</tool_call><tool_call>\n{bad}\n</tool_call> bye'


@pytest.fixture(scope="module")
def qwen3():
    return module_for("qwen3")


def test_default_mode_still_raises(qwen3):
    with pytest.raises(ValueError):
        qwen3.parse_response(BAD, prefix="")
    with pytest.raises(ValueError):
        qwen3.ResponseParser("", recover=False).feed(BAD)


def test_recover_keeps_the_rest(qwen3):
    message = qwen3.parse_response(BAD, prefix="", recover=True)
    assert message == {
        "role": "assistant",
        "content": "Hi\nbye",
        "tool_calls": [{"type": "function", "function": {"name": "a", "arguments": {}}}],
    }
    content = qwen3.parse_response(BAD, prefix="", recover=True, malformed="content")
    assert content["content"] == "Hi\n<tool_call>\n{bad}\n</tool_call>\nbye"
    assert qwen3.parse_response([BAD, "x"], prefix="", recover=True)[1] == {"role": "assistant", "content": "x"}


def test_offsets_are_the_delimiters_in_input_text(qwen3):
    prefix = "<|im_start|>assistant\n<think>"
    parser = qwen3.ResponseParser(prefix, recover=True)
    events = parser.initial_events + [e for ch in ("r</thi", "nk>" + BAD) for e in parser.feed(ch)]
    events += parser.finalize()[1]
    text = parser.input_text
    assert text == "<think>r</think>" + BAD
    spans = [(e["type"], e["field"], text[e["start"] : e["end"]]) for e in events if "start" in e]
    assert spans == [
        ("region_open", "reasoning_content", "<think>"),
        ("region_close", "reasoning_content", "</think>"),
        ("region_open", "content", ""),
        ("region_close", "content", ""),
        ("region_open", "tool_calls", " <tool_call>"),
        ("region_close", "tool_calls", "\n</tool_call>"),
        ("region_open", "tool_calls", "<tool_call>"),
        ("region_malformed", "tool_calls", "\n</tool_call>"),
        ("region_open", "content", ""),
        ("region_close", "content", ""),
    ]
    malformed = next(e for e in events if e["type"] == "region_malformed")
    assert isinstance(malformed["error"], ValueError)


def test_bad_options(qwen3):
    with pytest.raises(ValueError, match="recover=True"):
        qwen3.ResponseParser("", malformed="content")
    with pytest.raises(ValueError, match="recover=True"):
        qwen3.parse_response("x", prefix="", malformed="content")
    with pytest.raises(ValueError, match="malformed must be one of"):
        qwen3.ResponseParser("", recover=True, malformed="keep")
    with pytest.raises(ValueError, match="prefix"):
        qwen3.ResponseParser(None, recover=True)
    parser = qwen3.ResponseParser("", recover=True)
    parser.finalize()
    with pytest.raises(RuntimeError):
        parser.feed("x")
