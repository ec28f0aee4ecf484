"""The plugin as vLLM loads it: found by vLLM's manager, every bundled template's samples
parsed (streamed token by token through vLLM's ChatStreamProcessor, and whole) to the
message the compiled parser alone gives."""

from __future__ import annotations

import json

import pytest
import support as S

PLUGIN = "compiler.integrations.vllm"


@pytest.fixture(scope="module", autouse=True)
def _plugin():
    from vllm.tool_parsers import ToolParserManager

    ToolParserManager.import_tool_parser(PLUGIN)


@pytest.mark.parametrize("name", S.BUNDLED)
def test_every_bundled_template(name):
    tok = S.tokenizer_for(name)
    has_reasoning = "reasoning_content" in S.template(name)["fields"]
    cls = S.parser_class("compiled_template", "compiled_template" if has_reasoning else None, tok)
    module = cls(tok).compiled.module
    checked = 0
    for sample, req_tools, tools in S.cases(name):
        prefix, output = sample.get("prefix", ""), sample["output"]
        expected = S.comparable(S.expected_message(module, prefix, output, tools))
        req = S.request(tools=req_tools)
        streamed = S.merged(S.stream(cls, tok, req, prefix, output))
        whole = S.message_of(S.whole(cls, tok, S.request(tools=req_tools), prefix, output))
        assert S.comparable(streamed) == expected, sample["id"]
        assert S.comparable({**whole, "tool_calls": [dict(c, id=None) for c in whole["tool_calls"]]}) == expected
        assert all(c["id"] for c in streamed["tool_calls"] + whole["tool_calls"]), "every call has an id"
        checked += 1
    assert checked


def test_the_checkout_is_tested():
    """The environment's installed copy of the package never shadows the checkout."""
    import compiler
    import runtime

    for module in (compiler, runtime):
        assert module.__file__.startswith(str(S.ROOT)), module.__file__


def test_special_tokens_are_single_tokens():
    tok = S.tokenizer_for("qwen3")
    for token in ("<think>", "</think>", "<tool_call>", "</tool_call>", "<|im_end|>"):
        assert len(tok.encode(token, add_special_tokens=False)) == 1, token


def test_adjust_request_keeps_special_tokens():
    tok = S.tokenizer_for("qwen3")
    cls = S.parser_class("compiled_template", "compiled_template", tok)
    req = cls(tok).adjust_request(S.request())
    assert req.skip_special_tokens is False and req.spaces_between_special_tokens is False


def test_loaded_from_a_file_path_by_vllm_import():
    """--tool-parser-plugin also takes a file: vLLM's import_plugin loads it by path."""
    from vllm.utils.import_utils import import_plugin
    import compiler.integrations.vllm.plugin as plugin

    assert import_plugin(plugin.__file__) is not None
    from vllm.reasoning import ReasoningParserManager
    from vllm.tool_parsers import ToolParserManager

    assert ToolParserManager.get_tool_parser("compiled_template_qwen3").template_spec == "qwen3"
    assert ReasoningParserManager.get_reasoning_parser("compiled_template").unified_parser_cls().__name__ == (
        "CompiledTemplateParser"
    )


def test_bundled_name_without_tokenizer_template():
    tok = S.tokenizer_for("hermes2_pro", attach=False)
    cls = S.parser_class("compiled_template_hermes2_pro", "compiled_template_hermes2_pro", tok)
    sample = next(s for s, _, _ in S.cases("hermes2_pro") if (s.get("expected") or {}).get("tool_calls"))
    got = S.message_of(S.whole(cls, tok, S.request(tools=S.tools_for(sample)), sample["prefix"], sample["output"]))
    assert got["tool_calls"]


def test_start_up_errors_name_the_cause():
    tok = S.tokenizer_for("qwen3", attach=False)
    with pytest.raises(TypeError, match="no response template"):
        S.parser_class("compiled_template", "compiled_template", tok)
    bad = S.tokenizer_for("qwen3", {"fields": {"content": {"content": "nope"}}, "start_anchor": "x"})
    with pytest.raises(TypeError, match=r"fields\.content\.content"):
        S.parser_class("compiled_template", "compiled_template", bad)
    tools_only = S.tokenizer_for("functiongemma")
    with pytest.raises(TypeError, match="no reasoning field"):
        S.parser_class("compiled_template", "compiled_template", tools_only)


def test_vllm_builtin_check_still_applies_to_its_own_parser():
    tok = S.tokenizer_for("qwen3")  # reasoning_content: refused by vLLM's own response_template parser
    with pytest.raises(TypeError, match="unsupported semantic fields"):
        S.parser_class("hf", "hf", tok)


def test_extra_fields_are_reported_at_start_up(caplog):
    template = S.template("qwen3")
    template["fields"] = {**template["fields"], "mood": {"open": "<mood>", "close": "</mood>"}}
    tok = S.tokenizer_for("qwen3", template)
    import logging

    logging.getLogger("compiler.integrations.vllm.parser").propagate = True
    with caplog.at_level(logging.WARNING):
        cls = S.parser_class("compiled_template", "compiled_template", tok)
    assert cls(tok).compiled.dropped == ["mood"]
    assert any("mood" in r.getMessage() and "not sent" in r.getMessage() for r in caplog.records)


def test_thinking_field_is_reasoning():
    template = S.template("qwen3")
    template["fields"] = {("thinking" if k == "reasoning_content" else k): v for k, v in template["fields"].items()}
    tok = S.tokenizer_for("qwen3", template)
    cls = S.parser_class("compiled_template", "compiled_template", tok)
    sample = S.samples("qwen3")[0]
    got = S.merged(S.stream(cls, tok, S.request(), sample["prefix"], sample["output"]))
    assert got["reasoning"] == sample["expected"]["reasoning_content"]


def test_reasoning_end_for_the_engine():
    """The structured-output engine asks the reasoning parser where reasoning ends."""
    tok = S.tokenizer_for("qwen3")
    from vllm.reasoning import ReasoningParserManager

    reasoner = ReasoningParserManager.get_reasoning_parser("compiled_template")(tok)
    prompt = "<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n"
    assert not reasoner.is_reasoning_end(tok.encode(prompt + "<think>\n"))
    assert reasoner.is_reasoning_end(tok.encode(prompt + "<think>\n\n</think>\n\n"))
    ids = tok.encode("<think>\nhmm\n</think>\n\nHello")
    ended = [reasoner.is_reasoning_end_streaming(ids[: i + 1], ids[i : i + 1]) for i in range(len(ids))]
    first = ended.index(True)
    # `</think>` is one of a regex close's alternatives: it commits once the next text settles it
    assert "</think>" in tok.decode(ids[:first]) and all(ended[first:])
