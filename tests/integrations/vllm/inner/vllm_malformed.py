"""A malformed call (invalid JSON, a body cut off) never fails the request, and the rest
of the message still arrives. With the runtime's recovery mode (the generated parsers
take `recover=True`), the bad region ends in `region_malformed` and only that call is
dropped; a parser without it would send the output as content from the error on
(streaming) or the whole output as content (whole). Streamed arguments already sent stay
sent."""

from __future__ import annotations

import pytest
import support as S

PREFIX = "<|im_start|>user\nWeather?<|im_end|>\n<|im_start|>assistant\n"
BAD_JSON = (
    "<think>\nCheck Paris.\n</think>\n\nSure, checking.\n<tool_call>\n"
    '{"name": "get_weather", "arguments": {"city": }}\n</tool_call>\nAnything else?<|im_end|>'
)
CUT_OFF = 'Sure, checking.\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "Par'
TOOLS = [{"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object"}}}]


@pytest.fixture(scope="module")
def setup():
    from vllm.tool_parsers import ToolParserManager

    ToolParserManager.import_tool_parser("compiler.integrations.vllm")
    tok = S.tokenizer_for("qwen3")
    return S.parser_class("compiled_template", "compiled_template", tok), tok


def _recovery(cls, tok):
    return cls(tok)._recovery


@pytest.mark.parametrize("chunk", [None, 4, 1000])
def test_bad_json_keeps_the_rest_of_the_message(setup, chunk):
    cls, tok = setup
    streamed = S.merged(S.stream(cls, tok, S.request(tools=TOOLS), PREFIX, BAD_JSON, chunk=chunk))
    whole = S.message_of(S.whole(cls, tok, S.request(tools=TOOLS), PREFIX, BAD_JSON))
    for message in (streamed, whole):
        assert "Sure, checking." in message["content"]
        assert "Anything else?" in message["content"]
    assert not whole["tool_calls"]  # no call with broken arguments in the message
    # Streamed arguments go out as the model writes them: a call announced before its body
    # broke keeps what was sent (its name and the arguments read so far), nothing more.
    assert [c["name"] for c in streamed["tool_calls"]] in ([], ["get_weather"])
    assert all('"city": }' not in c["arguments"] for c in streamed["tool_calls"])
    if _recovery(cls, tok):  # recovery mode: reasoning is parsed, the bad call alone is dropped
        assert whole["reasoning"] == "Check Paris." and "<tool_call>" not in whole["content"]


def test_cut_off_call_keeps_the_content(setup):
    cls, tok = setup
    streamed = S.merged(S.stream(cls, tok, S.request(tools=TOOLS), PREFIX, CUT_OFF))
    whole = S.message_of(S.whole(cls, tok, S.request(tools=TOOLS), PREFIX, CUT_OFF))
    for message in (streamed, whole):
        assert message["content"].startswith("Sure, checking.")


def test_vllm_builtin_also_keeps_the_rest():
    """For comparison: vLLM's built-in path on a thinking variant drops the call, keeps the rest."""
    template = S.template("qwen3")
    template["fields"] = {
        "thinking": {"open": "<think>", "close": "</think>"},
        "tool_calls": template["fields"]["tool_calls"],
        "content": {"close_pattern": template["fields"]["content"]["close_pattern"]},
    }
    tok = S.tokenizer_for("qwen3", template)
    theirs = S.parser_class("hf", "hf", tok)
    got = S.merged(S.stream(theirs, tok, S.request(tools=TOOLS), PREFIX, BAD_JSON))
    assert "Anything else?" in got["content"] and not got["tool_calls"]


def test_recovery_mode_drops_only_the_bad_call(setup):
    """The generated parsers have the runtime's recovery mode (`recover=True`): the bad
    region ends in `region_malformed`, the reasoning and both content pieces arrive."""
    cls, tok = setup
    assert _recovery(cls, tok)
    streamed = S.merged(S.stream(cls, tok, S.request(tools=TOOLS), PREFIX, BAD_JSON, chunk=4))
    whole = S.message_of(S.whole(cls, tok, S.request(tools=TOOLS), PREFIX, BAD_JSON))
    for message in (streamed, whole):
        assert message["reasoning"] == "Check Paris."
        assert message["content"].startswith("Sure, checking.") and message["content"].endswith("Anything else?")
    assert not whole["tool_calls"]
