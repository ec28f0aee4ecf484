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
    # A call's opening marker also ends reasoning (models start calls without closing it).
    assert fields["reasoning_content"]["close_pattern"] == r"\s*</think>|(?=\s*<tool_call>)"
    calls = fields["tool_calls"]
    assert calls["content"] == "json"
    assert calls["transform"] == {
        "type": "function",
        "function": {"name": "{content.name}", "arguments": "{content.arguments}"},
    }
    # The end of turn the render shows, and the eos token the source names; what follows them is not the message.
    assert fields["content"]["close_pattern"] == r"\s*(?:<\|im_end\|>|</s>)[\s\S]*"
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
    # The call's close stays in the body, which must end with it; inside it, one tag pair per argument.
    assert calls["content_args"]["tag_pattern"] == r"(?P<value>.*)</(?P<key>call)>\s*$"
    inner = calls["content_args"]["value_parser"]["args"]["tag_pattern"]
    assert inner == r"<arg\ (?P<key>.+?)>(?P<value>.*?)</arg>(?=\s*(?:<arg\s*|$))"
    assert "reasoning_content" not in fields
    assert any(f.part == "reasoning" for f in result.inferred.findings)
    assert result.complete, result.check.lines()


def test_name_json_without_generation_prompt_and_unusual_markers():
    result = infer_source(_source(ct.NAME_JSON, eos="<EOS>"))
    template = result.inferred.template
    assert template["start_anchor"] == "◁/user▷"
    calls = template["fields"]["tool_calls"]
    assert calls["open_pattern"].startswith(r"\s*【call】(?P<name>")
    assert template["fields"]["content"]["close_pattern"] == r"\s*<EOS>[\s\S]*"
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


CHATML_PREFIX = "<|im_start|>user\nq<|im_end|>\n<|im_start|>assistant\n"
CALL = '{"name": "f", "arguments": {"x": 1}}'
F = [{"type": "function", "function": {"name": "f", "arguments": {"x": 1}}}]


def test_outputs_a_render_does_not_show():
    """Rules for what models write beyond the renders: calls in unclosed reasoning, a close inside an argument,
    text after calls, what follows the end of turn."""
    module = compile_template(infer_source(_source(ct.CHATML)).inferred.template)

    def parse(text):
        return module.parse_response(text, prefix=CHATML_PREFIX)

    assert parse(f"<think>\nhm\n<tool_call>\n{CALL}\n</tool_call><|im_end|>") == {
        "role": "assistant",
        "reasoning_content": "hm",
        "tool_calls": F,
    }
    inside = '{"name": "f", "arguments": {"x": "</tool_call> y"}}'
    assert parse(f"<tool_call>\n{inside}\n</tool_call><|im_end|>")["tool_calls"][0]["function"]["arguments"] == {
        "x": "</tool_call> y"
    }
    assert parse(f"<tool_call>\n{CALL}\n</tool_call>\nDone.<|im_end|>") == {
        "role": "assistant",
        "tool_calls": F,
        "content": "Done.",
    }
    assert parse("Hi!<|im_end|>\n<|endoftext|>") == {"role": "assistant", "content": "Hi!"}


def test_xml_call_cut_off_before_its_close_raises():
    import pytest

    module = compile_template(infer_source(_source(ct.XML_PARAMS)).inferred.template)
    prefix = "[user]q[end]\n[assistant]"
    whole = "\n<call name=f>\n<arg x>1</arg>\n</call>[end]"
    assert module.parse_response(whole, prefix=prefix)["tool_calls"][0]["function"] == {
        "name": "f",
        "arguments": {"x": "1"},
    }
    with pytest.raises(ValueError):
        module.parse_response("\n<call name=f>\n<arg x>1</a", prefix=prefix)


# The generation prompt opens <think>; the history keeps only what follows </think> in the content.
PREOPENED = """{%- for m in messages -%}
{%- if m.role == 'user' %}<|User|>{{ m.content }}{% else %}<|Assistant|>
{%- set c = m.content %}{% if '</think>' in c %}{% set c = c.split('</think>')[-1] %}{% endif %}{{ c }}<|end|>{% endif %}
{%- endfor -%}
{%- if add_generation_prompt %}<|Assistant|><think>\n{% endif %}"""

# Reasoning only as a thinking part of a content list.
THINKING_PARTS = """{%- for m in messages -%}
<{{ m.role }}>{%- if m.content is string %}{{ m.content }}{% else %}{% for p in m.content %}
{%- if p.type == 'thinking' %}[T]{{ p.thinking }}[/T]{% else %}{{ p.text }}{% endif %}{% endfor %}{% endif %}</s>
{% endfor -%}
{%- if add_generation_prompt %}<assistant>{% endif %}"""


def test_reasoning_the_prompt_opens_and_the_history_drops():
    result = infer_source(_source(PREOPENED))
    fields = result.inferred.template["fields"]
    assert fields["reasoning_content"]["open_pattern"] == r"\s*<think>"
    assert fields["reasoning_content"]["close_pattern"] == r"\s*</think>"
    module = compile_template(result.inferred.template)
    message = module.parse_response("hm\n</think>\n\nok<|end|>", prefix="<|User|>q<|Assistant|><think>\n")
    assert message == {"role": "assistant", "reasoning_content": "hm", "content": "ok"}


def test_reasoning_as_a_thinking_part():
    fields = infer_source(_source(THINKING_PARTS)).inferred.template["fields"]
    assert fields["reasoning_content"]["open_pattern"] == r"\s*\[T\]"
    assert fields["reasoning_content"]["close_pattern"] == r"\s*\[/T\]"


# Reasoning (a plan) rendered only in turns with calls; an empty plan pair otherwise precedes the calls.
BESIDE_CALLS = """{%- for m in messages -%}
<|{{ m.role }}|>
{%- if m.tool_calls %}<plan>{{ m.reasoning_content or '' }}</plan><act>{{ m.tool_calls | map(attribute='function')
| list | tojson }}</act>{% else %}{{ m.content }}{% endif %}<|end|>
{% endfor -%}
{%- if add_generation_prompt %}<|assistant|>{% endif %}"""


def test_reasoning_rendered_only_beside_calls():
    result = infer_source(_source(BESIDE_CALLS))
    fields = result.inferred.template["fields"]
    assert fields["reasoning_content"]["open_pattern"] == r"\s*<plan>"
    assert fields["tool_calls"]["open_pattern"] == r"\s*<act>"
    module = compile_template(result.inferred.template)
    message = module.parse_response(
        '<plan>Look it up.</plan><act>[{"name": "f", "arguments": {"x": 1}}]</act><|end|>', prefix="<|assistant|>"
    )
    assert message == {"role": "assistant", "reasoning_content": "Look it up.", "tool_calls": F}
