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


def _parser(name, template=None):
    tok = S.tokenizer_for(name, template)
    reasoning = "compiled_template" if "reasoning_content" in (template or S.template(name))["fields"] else None
    cls = S.parser_class("compiled_template", reasoning, tok)
    return cls, tok


def _adjusted(name, template=None, **options):
    cls, tok = _parser(name, template)
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


def _with_sample_calls(name):
    return any(s.get("tools") and (s.get("expected") or {}).get("tool_calls") for s in S.samples(name))


def _ebnf_parses(name):
    import xgrammar as xgr

    try:
        xgr.Grammar.from_ebnf(grammar(name, TOOLS, format="ebnf"))
        return True
    except Exception:
        return False


UNTAGGED = [n for n in S.BUNDLED if n not in TAGGED]
GRAMMAR = [n for n in UNTAGGED if _ebnf_parses(n)]


def test_untagged_templates_get_grammars():
    assert len(GRAMMAR) >= 8, GRAMMAR


def test_unconstrainable_template_refuses_a_guarantee_clearly():
    """A template with neither a structural tag nor a grammar xgrammar reads: every
    bundled one has one of the two, so a template whose calls no grammar can say
    (arguments the format cannot bound) stands in."""
    from vllm.exceptions import VLLMValidationError

    assert [n for n in UNTAGGED if n not in GRAMMAR] == []
    name = "qwen3"
    template = json.loads(json.dumps(S.template(name)))
    template["fields"]["tool_calls"]["content"] = "text"  # a call body no grammar can make a call of
    with pytest.raises(VLLMValidationError, match="cannot be constrained.*no structural tag.*no grammar"):
        _adjusted(name, tools=TOOLS, tool_choice="required", template=template)
    assert _adjusted(name, tools=TOOLS, template=template).structured_outputs is None  # auto: unconstrained


def _grammar_of(req):
    import xgrammar as xgr
    from vllm.sampling_params import SamplingParams
    from vllm.v1.structured_output.backend_xgrammar import validate_xgrammar_grammar

    assert req.structured_outputs is not None and req.structured_outputs.grammar
    assert req._grammar_from_parser and req.resolve_reasoning_ended(None, []) is True  # from the first token
    validate_xgrammar_grammar(SamplingParams(structured_outputs=req.structured_outputs))
    return xgr.Grammar.from_ebnf(req.structured_outputs.grammar)


def _adjusted_for(name, sample, **options):
    """The request adjusted after the prompt is known (vLLM's renderer sets it first)."""
    cls, tok = _parser(name)
    parser = cls(tok, options.get("tools"))
    parser.set_prompt_token_ids(tok.encode(sample.get("prefix", ""), add_special_tokens=False))
    return parser.adjust_request(S.request(**options))


def _grammar_checks(name):
    """Required, named and single calls with the whole output's grammar on the samples with
    calls: text alone is rejected; where the sample's calls keep to the schema (some samples
    write an integer as a string, which the grammar rightly refuses) the output is accepted,
    by the named grammar only for one call of that tool, by the single-call one for one call.
    Returns how many samples were accepted."""
    accepted = 0
    for sample in S.samples(name):
        calls = (sample.get("expected") or {}).get("tool_calls") or []
        if not sample.get("tools") or not calls:
            continue
        req = _adjusted_for(name, sample, tools=sample["tools"], tool_choice="required")
        compiled = _grammar_of(req)
        assert not _accepts(compiled, "Just text.")
        if _accepts(compiled, sample["output"]):
            accepted += 1
            first = calls[0]["function"]["name"]
            named = _adjusted_for(
                name, sample, tools=sample["tools"], tool_choice={"type": "function", "function": {"name": first}}
            )
            names = {c["function"]["name"] for c in calls}
            assert _accepts(_grammar_of(named), sample["output"]) == (names == {first} and len(calls) == 1)
            single = _adjusted_for(name, sample, tools=sample["tools"], parallel_tool_calls=False)
            assert _accepts(_grammar_of(single), sample["output"]) == (len(calls) == 1)
    return accepted


GRAMMAR_WITH_CALLS = [n for n in GRAMMAR if _with_sample_calls(n)]


@pytest.mark.parametrize("name", GRAMMAR_WITH_CALLS)
def test_grammar_for_untagged_templates(name):
    _grammar_checks(name)


def test_grammars_accept_samples_calls():
    accepting = [n for n in GRAMMAR_WITH_CALLS if _grammar_checks(n)]
    assert len(accepting) >= len(GRAMMAR_WITH_CALLS) // 2, accepting


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
