"""Structural tags from `adjust_request`: strict tools, tool_choice="required", a named
tool and parallel_tool_calls=False, compiled by vLLM's pinned xgrammar through vLLM's
own validation, on every bundled template where `python -m compiler grammar` emits one."""

from __future__ import annotations

import json

import pytest
import support as S

from compiler.grammar import GrammarError, grammar

WEATHER = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "parameters": {
            "type": "object",
            "properties": {"city": {"type": "string"}, "days": {"type": "integer"}},
            "required": ["city"],
        },
    },
}
TIME = {"type": "function", "function": {"name": "get_time", "parameters": {"type": "object", "properties": {}}}}
TOOLS = [WEATHER, TIME]


def _emits_tag(name):
    try:
        grammar(name, TOOLS, format="structural-tag")
        return True
    except GrammarError:
        return False


TAGGED = [name for name in S.BUNDLED if _emits_tag(name)]


@pytest.fixture(scope="module", autouse=True)
def _plugin():
    from vllm.tool_parsers import ToolParserManager

    ToolParserManager.import_tool_parser("compiler.integrations.vllm")


def _parser(name):
    tok = S.tokenizer_for(name)
    reasoning = "compiled_template" if "reasoning_content" in S.template(name)["fields"] else None
    cls = S.parser_class("compiled_template", reasoning, tok)
    return cls, tok


def _adjusted(name, **options):
    cls, tok = _parser(name)
    return cls(tok, options.get("tools")).adjust_request(S.request(**options))


def _compiled(req):
    """The request's grammar as vLLM's xgrammar backend validates and compiles it."""
    import xgrammar as xgr
    from vllm.sampling_params import SamplingParams
    from vllm.v1.structured_output.backend_xgrammar import validate_xgrammar_grammar

    assert req.structured_outputs is not None and req.structured_outputs.structural_tag
    validate_xgrammar_grammar(SamplingParams(structured_outputs=req.structured_outputs))
    return xgr.Grammar.from_structural_tag(req.structured_outputs.structural_tag)


def _accepts(compiled, text):
    from xgrammar.testing import _is_grammar_accept_string

    return _is_grammar_accept_string(compiled, text)


def _call(req, name, arguments):
    tag = json.loads(req.structured_outputs.structural_tag)["format"]
    for entry in tag["tags"]:
        if entry["begin"].find(name) >= 0:
            return entry["begin"] + json.dumps(arguments, ensure_ascii=False) + entry["end"]
    raise AssertionError(f"no tag for {name}")


def test_some_templates_are_tagged():
    assert len(TAGGED) >= 10, TAGGED


@pytest.mark.parametrize("name", TAGGED)
def test_required(name):
    req = _adjusted(name, tools=TOOLS, tool_choice="required")
    compiled = _compiled(req)
    good = _call(req, "get_weather", {"city": "Paris", "days": 3})
    assert _accepts(compiled, good)
    assert _accepts(compiled, good + _call(req, "get_time", {}))  # parallel calls stay allowed
    assert not _accepts(compiled, _call(req, "get_weather", {"city": 12}))  # schema-breaking
    assert not _accepts(compiled, "Just text.")  # a call is required
    # what the grammar lets the model write parses back to the call
    cls, tok = _parser(name)
    _, _, calls = S.whole(cls, tok, S.request(tools=TOOLS, tool_choice="required"), "", good)
    assert [(c.name, json.loads(c.arguments)) for c in calls] == [("get_weather", {"city": "Paris", "days": 3})]


@pytest.mark.parametrize("name", TAGGED)
def test_named_and_single(name):
    named = _adjusted(name, tools=TOOLS, tool_choice={"type": "function", "function": {"name": "get_time"}})
    compiled = _compiled(named)
    assert _accepts(compiled, _call(named, "get_time", {}))
    assert not _accepts(compiled, _call(named, "get_time", {}) * 2)
    tag = json.loads(named.structured_outputs.structural_tag)["format"]
    assert ["get_weather" in t["begin"] for t in tag["tags"]] == [False]
    single = _adjusted(name, tools=TOOLS, parallel_tool_calls=False)
    compiled = _compiled(single)
    one = _call(single, "get_time", {})
    assert _accepts(compiled, "Let me look. " + one) and not _accepts(compiled, one + one)


@pytest.mark.parametrize("name", TAGGED)
def test_strict_tools_in_auto(name):
    strict = dict(WEATHER, function=dict(WEATHER["function"], strict=True))
    req = _adjusted(name, tools=[strict, TIME])
    compiled = _compiled(req)
    assert _accepts(compiled, "No call needed.")
    assert _accepts(compiled, "Sure. " + _call(req, "get_weather", {"city": "Oslo"}))
    assert not _accepts(compiled, _call(req, "get_weather", {"city": ["Oslo"]}))


def test_no_guarantee_no_constraint():
    req = _adjusted("qwen3", tools=TOOLS)
    assert req.structured_outputs is None


@pytest.mark.parametrize("name", [n for n in S.BUNDLED if n not in TAGGED][:3])
def test_untaggable_template_refuses_a_guarantee_clearly(name):
    from vllm.exceptions import VLLMValidationError

    with pytest.raises(VLLMValidationError, match="cannot be constrained"):
        _adjusted(name, tools=TOOLS, tool_choice="required")


def _with_sample_calls(name):
    return any(s.get("tools") and (s.get("expected") or {}).get("tool_calls") for s in S.samples(name))


@pytest.mark.parametrize("name", [n for n in TAGGED if _with_sample_calls(n)])
def test_samples_calls_accepted(name):
    """The calls in the template's samples (with their tools), as the required tag writes them."""
    checked = 0
    for sample in S.samples(name):
        calls = (sample.get("expected") or {}).get("tool_calls") or []
        if not sample.get("tools") or not calls:
            continue
        req = _adjusted(name, tools=sample["tools"], tool_choice="required")
        compiled = _compiled(req)
        text = "".join(_call(req, c["function"]["name"], c["function"]["arguments"]) for c in calls)
        assert _accepts(compiled, text), (sample["id"], text)
        checked += 1
    assert checked
