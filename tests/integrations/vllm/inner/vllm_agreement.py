"""Agreement with vLLM's own response-template path.

- On every bundled template, the plugin's messages equal vLLM's vendored interpreter
  (vllm.parser.chat_parsing.parse_response) on the samples.
- On simplified variants of bundled templates that vLLM's built-in `hf` parser accepts
  (reasoning renamed `thinking`, content and reasoning plain text: no repeats, join or
  transform), the streamed deltas and final messages equal the built-in parser's, up to
  whitespace: the built-in path sends region text unstripped, the template's `text`
  parser (and so the plugin) strips it. Tool calls are compared exactly.
"""

from __future__ import annotations

import copy
import json

import pytest
import support as S


@pytest.fixture(scope="module", autouse=True)
def _plugin():
    from vllm.tool_parsers import ToolParserManager

    ToolParserManager.import_tool_parser("compiler.integrations.vllm")


def _interpreter(template, prefix, output, tools):
    from runtime.openai import to_openai_message
    from vllm.parser.chat_parsing import parse_response

    out = to_openai_message(parse_response(output, template, prefix=prefix, tools=tools))
    return {
        "reasoning": out.get("reasoning_content") or "",
        "content": out.get("content") or "",
        "tool_calls": [dict(c["function"]) for c in out.get("tool_calls", ())],
    }


@pytest.mark.parametrize("name", S.BUNDLED)
def test_messages_equal_vllm_interpreter(name):
    tok = S.tokenizer_for(name)
    reasoning = "compiled_template" if "reasoning_content" in S.template(name)["fields"] else None
    cls = S.parser_class("compiled_template", reasoning, tok)
    for sample, req_tools, tools in S.cases(name):
        prefix, output = sample.get("prefix", ""), sample["output"]
        expected = S.comparable(_interpreter(S.template(name), prefix, output, tools))
        got = S.message_of(S.whole(cls, tok, S.request(tools=req_tools), prefix, output))
        assert S.comparable(got) == expected, sample["id"]


def simplified(name):
    """The template with `thinking` for reasoning and plain-text reasoning and content."""
    template = copy.deepcopy(S.template(name))
    fields = {}
    for key, spec in template["fields"].items():
        if key in ("reasoning_content", "content"):
            spec = {k: v for k, v in spec.items() if k not in ("repeats", "join", "transform", "content_args")}
            spec["content"] = "text"
        fields["thinking" if key == "reasoning_content" else key] = spec
    template["fields"] = fields
    return template


def _vllm_accepts(template):
    from vllm.parser.response_template import validate_response_template_for_serving

    try:
        validate_response_template_for_serving(template)
        return "thinking" in template["fields"] and "tool_calls" in template["fields"]
    except (TypeError, ValueError):
        return False


VARIANTS = [n for n in S.BUNDLED if _vllm_accepts(simplified(n))]


def test_enough_variants():
    assert len(VARIANTS) >= 3, VARIANTS


def _squash(message):
    return {
        "reasoning": "".join(message["reasoning"].split()),
        "content": "".join(message["content"].split()),
        "tool_calls": [(c["name"], json.loads(c["arguments"])) for c in message["tool_calls"]],
    }


def _streamed_text(parser, output):
    out = {"reasoning": "", "content": ""}
    events = list(parser.initial_events) + parser.feed(output) + parser.finalize()[1]
    for event in events:
        if event["type"] == "region_chunk" and event["field"] in ("thinking", "content"):
            out["reasoning" if event["field"] == "thinking" else "content"] += event["text"]
    return out


def _prefilled(template, prefix, output):
    """The text the prefix writes into reasoning and content, which the built-in path
    never sends: what the interpreter streams when the prompt's text after its anchor
    is fed as output, less what it streams for the output alone. (Part of that text
    can be held back as a possible delimiter until the output arrives; vLLM's
    interpreter then drops it from the chunk.)"""
    from vllm.parser.chat_parsing import ResponseParser

    tail = ResponseParser(template, prefix=prefix).input_text
    fed = _streamed_text(ResponseParser(template, prefix=""), tail + output)
    generated = _streamed_text(ResponseParser(template, prefix=prefix), output)
    for event in ResponseParser(template, prefix=prefix).initial_events:
        if event["type"] == "region_chunk" and event["field"] in ("thinking", "content"):
            key = "reasoning" if event["field"] == "thinking" else "content"
            generated[key] = generated[key][len(event["text"]) :]
    out = {}
    for key in ("reasoning", "content"):
        assert fed[key].endswith(generated[key]), (key, fed[key], generated[key])
        out[key] = fed[key][: len(fed[key]) - len(generated[key])]
    return out


def _agreeing_samples(name, template):
    """Samples whose message the simplified template parses without error."""
    from vllm.parser.chat_parsing import parse_response

    for sample, req_tools, tools in S.cases(name):
        try:
            parse_response(sample["output"], template, prefix=sample.get("prefix", ""), tools=tools)
        except Exception:
            continue
        yield sample, req_tools


@pytest.mark.parametrize("name", VARIANTS)
def test_streams_and_messages_equal_vllm_builtin(name):
    template = simplified(name)
    tok = S.tokenizer_for(name, template)
    ours = S.parser_class("compiled_template", "compiled_template", tok)
    theirs = S.parser_class("hf", "hf", tok)
    checked = 0
    for sample, req_tools in _agreeing_samples(name, template):
        prefix, output = sample.get("prefix", ""), sample["output"]
        prefilled = _prefilled(template, prefix, output)
        for chunk in (None, 4):
            a = S.merged(S.stream(ours, tok, S.request(tools=req_tools), prefix, output, chunk=chunk))
            b = S.merged(S.stream(theirs, tok, S.request(tools=req_tools), prefix, output, chunk=chunk))
            # Text the prompt prefilled inside a region is part of the message (the template's
            # semantics, and the plugin's); the built-in path sends generated text only.
            b = {**b, **{k: prefilled[k] + b[k] for k in ("reasoning", "content")}}
            assert _squash(a) == _squash(b), (sample["id"], chunk, a, b)
        streamed = _squash(a)
        a = _squash(S.message_of(S.whole(ours, tok, S.request(tools=req_tools), prefix, output)))
        b = S.message_of(S.whole(theirs, tok, S.request(tools=req_tools), prefix, output))
        b = _squash({**b, **{k: prefilled[k] + b[k] for k in ("reasoning", "content")}})
        # A content field the output opens twice: the built-in message keeps both regions (as
        # both streams do); the template's non-repeating field, and so the plugin's message,
        # keeps the last (test_messages_equal_vllm_interpreter).
        assert b == streamed, sample["id"]
        # The same for reasoning, which the variants do not repeat either (two thinking blocks).
        assert a["tool_calls"] == b["tool_calls"], (sample["id"], a, b)
        for key in ("reasoning", "content"):
            assert a[key] == b[key] or b[key].endswith(a[key]), (sample["id"], key, a, b)
        checked += 1
    assert checked
