"""infer on small chat templates written for it: what each probe pair gives, and the round trip."""

from __future__ import annotations

import json


import chat_templates as ct
from compiler.infer import infer_source, roundtrip
from compiler.infer.load import ChatSource
from compiler.infer.core import infer_template
from compiler.pipeline import compile_template


def _source(text, bos="<s>", eos="</s>"):
    return ChatSource(text, "test", bos, eos, True, None)


def test_chatml_reasoning_and_json_calls():
    result = infer_source(_source(ct.CHATML))
    template = result.inferred.template
    assert template["start_anchor"] == "<|im_start|>assistant\n"
    fields = template["fields"]
    assert list(fields) == ["reasoning_content", "tool_calls", "content"]
    assert fields["reasoning_content"]["open_pattern"] == r"\s*<think>"
    assert fields["reasoning_content"]["close_pattern"] == r"\s*</think>"
    calls = fields["tool_calls"]
    assert calls["content"] == "json"
    assert calls["transform"] == {
        "type": "function",
        "function": {"name": "{content.name}", "arguments": "{content.arguments}"},
    }
    # The end of turn the render shows, and the eos token the source names.
    assert fields["content"]["close_pattern"] == r"\s*(?:<\|im_end\|>|</s>)"
    assert result.complete, result.check.lines()
    module = compile_template(template)
    message = module.parse_response(
        "<think>\nhm\n</think>\n\nok\n<tool_call>\n" '{"name": "f", "arguments": {"x": 1}}\n</tool_call><|im_end|>',
        prefix="<|im_start|>user\nq<|im_end|>\n<|im_start|>assistant\n",
    )
    assert message == {
        "role": "assistant",
        "reasoning_content": "hm",
        "content": "ok",
        "tool_calls": [{"type": "function", "function": {"name": "f", "arguments": {"x": 1}}}],
    }


def test_xml_parameters_with_name_in_the_marker():
    result = infer_source(_source(ct.XML_PARAMS))
    fields = result.inferred.template["fields"]
    assert result.inferred.template["start_anchor"] == "[assistant]"
    calls = fields["tool_calls"]
    assert calls["content"] == "xml-inline"
    assert "(?P<name>" in calls["open_pattern"]
    assert calls["content_args"]["tag_pattern"] == "<arg\\ (?P<key>.+?)>(?P<value>.*?)</arg>"
    assert "reasoning_content" not in fields
    assert any(f.part == "reasoning" for f in result.inferred.findings)
    assert result.complete, result.check.lines()


def test_name_json_without_generation_prompt_and_unusual_markers():
    result = infer_source(_source(ct.NAME_JSON, eos="<EOS>"))
    template = result.inferred.template
    assert template["start_anchor"] == "◁/user▷"
    calls = template["fields"]["tool_calls"]
    assert calls["open_pattern"].startswith(r"\s*【call】(?P<name>")
    assert template["fields"]["content"]["close_pattern"] == r"\s*<EOS>"
    assert result.complete, result.check.lines()


def test_thinking_switch_gives_the_prompt_tail(render_with):
    inferred = infer_template(render_with(ct.CHATML))
    # With enable_thinking=False the prompt opens and closes reasoning: the anchor stops before it.
    assert inferred.template["start_anchor"] == "<|im_start|>assistant\n"


def test_roundtrip_reports_failing_probes(render_with):
    renderer = render_with(ct.CHATML)
    good = infer_template(renderer).template
    bad = json.loads(json.dumps(good))
    bad["fields"]["tool_calls"]["close_pattern"] = r"\s*</tool>"
    report = roundtrip(bad, renderer)
    assert not report.complete
    failing = {r.name for r in report.failed}
    assert {"typed_arguments", "three_calls"} <= failing
    assert "FAIL three_calls" in "\n".join(report.lines())
    assert roundtrip(good, renderer).complete


def test_roundtrip_names_a_template_that_does_not_compile(render_with):
    report = roundtrip({"fields": {}}, render_with(ct.CHATML))
    assert report.error and "does not compile" in report.error


def test_ignores_tool_calls_is_a_finding():
    result = infer_source(_source(ct.IGNORES_TOOLS))
    assert "tool_calls" not in result.inferred.template["fields"]
    finding = next(f for f in result.inferred.findings if f.part == "tool calls")
    assert "ignores tool calls" in finding.reason
    assert finding.renders  # the renders it compared
    assert not result.complete


def test_python_calls_in_a_section():
    result = infer_source(_source(ct.PYTHONIC))
    calls = result.inferred.template["fields"]["tool_calls"]
    assert result.inferred.parts["tool_calls"].startswith("format python-call")
    assert calls["content"] == "xml-inline"
    assert calls["content_args"]["value_parser"]["args"]["string_delims"] == [["'", "'"]]
    assert result.complete, result.check.lines()


def test_json_dialect_arguments():
    result = infer_source(_source(ct.DIALECT))
    calls = result.inferred.template["fields"]["tool_calls"]
    assert calls["content_args"] == {"unquoted_keys": True, "string_delims": [["<|q|>", "<|q|>"]]}
    assert result.complete, result.check.lines()
