"""The front end accepts and rejects exactly what the reference loader does,
and names the JSON path of every problem."""

from __future__ import annotations

import copy
import json
import subprocess
import sys

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from transformers.utils.chat_parsing.response_templates import load_response_template

from compiler import TemplateError
from compiler.frontend.check import check
from compiler.frontend.source import from_dict

BASE = {
    "version": 1,
    "defaults": {"role": "assistant"},
    "start_anchor": "<|im_start|>assistant\n",
    "fields": {
        "reasoning_content": {"open": "<think>", "close": "</think>"},
        "tool_calls": {
            "open": "<tool_call>",
            "close": "</tool_call>",
            "repeats": True,
            "content": "json",
            "transform": {"type": "function", "function": "{content}"},
        },
        "content": {"close": "<|im_end|>"},
    },
}


def edit(change):
    template = copy.deepcopy(BASE)
    change(template)
    return template


def field(name, **values):
    def change(template):
        spec = template["fields"][name]
        for key, value in values.items():
            if value is DELETE:
                spec.pop(key, None)
            else:
                spec[key] = value

    return change


DELETE = object()

INVALID = [
    ("not an object", [1, 2], "(template)"),
    ("version 2", edit(lambda t: t.update(version=2)), "version"),
    ("version null", edit(lambda t: t.update(version=None)), "version"),
    ("unknown top-level key", edit(lambda t: t.update(extra=1)), "(template): unknown keys ['extra']"),
    ("defaults not an object", edit(lambda t: t.update(defaults=[])), "defaults"),
    ("fields missing", edit(lambda t: t.pop("fields")), "fields"),
    ("fields empty", edit(lambda t: t.update(fields={})), "fields"),
    ("fields a list", edit(lambda t: t.update(fields=[])), "fields"),
    ("field not an object", edit(lambda t: t["fields"].update(content="x")), "fields.content"),
    ("unknown field key", edit(field("content", colour="red")), "fields.content: unknown keys ['colour']"),
    ("unknown content parser", edit(field("content", content="yaml")), "fields.content.content"),
    ("unhashable content parser", edit(field("content", content=["text"])), "fields.content.content"),
    ("open and open_pattern", edit(field("reasoning_content", open_pattern="<t>")), "fields.reasoning_content: cannot"),
    ("close and close_pattern", edit(field("reasoning_content", close_pattern="</t>")), "fields.reasoning_content: cannot"),
    ("empty literal list", edit(field("reasoning_content", open=[])), "fields.reasoning_content.open"),
    ("non-string literal", edit(field("reasoning_content", open=["<t>", 3])), "fields.reasoning_content.open[1]"),
    ("empty literal", edit(field("reasoning_content", close=["</t>", ""])), "fields.reasoning_content.close"),
    ("literal of wrong type", edit(field("reasoning_content", open=5)), "fields.reasoning_content.open"),
    (
        "invalid open regex",
        edit(field("tool_calls", open=DELETE, open_pattern="(<tool_call>")),
        "fields.tool_calls.open_pattern: invalid regex",
    ),
    ("regex not a string", edit(field("tool_calls", open=DELETE, open_pattern=7)), "fields.tool_calls.open_pattern"),
    (
        "invalid close regex",
        edit(field("content", close=DELETE, close_pattern="[a-")),
        "fields.content.close_pattern: invalid regex",
    ),
    ("join not a string", edit(field("tool_calls", join=1)), "fields.tool_calls.join"),
    ("join without repeats", edit(field("reasoning_content", join="\n")), "fields.reasoning_content.join"),
    ("transform_each not a bool", edit(field("tool_calls", transform_each="yes")), "fields.tool_calls.transform_each"),
    ("transform_each without transform", edit(field("content", transform_each=True)), "fields.content.transform_each"),
    (
        "placeholder mixed with text",
        edit(field("tool_calls", transform={"function": {"name": "call {name}"}})),
        "fields.tool_calls.transform.function.name",
    ),
    (
        "placeholder mixed with text in a list",
        edit(field("tool_calls", transform=["{content}", "x{content}"])),
        "fields.tool_calls.transform[1]",
    ),
    (
        "named group without transform",
        edit(field("reasoning_content", open=DELETE, open_pattern="<think (?P<mode>\\w+)>")),
        "fields.reasoning_content.open_pattern: declares named group(s) ['mode']",
    ),
    (
        "named group in close without transform",
        edit(field("content", close=DELETE, close_pattern="(?P<end><\\|im_end\\|>)")),
        "fields.content.close_pattern: declares named group(s) ['end']",
    ),
    ("two implicit fields", edit(field("reasoning_content", open=DELETE)), "fields: at most one field"),
    ("no start anchor", edit(lambda t: t.pop("start_anchor")), "(template): needs 'start_anchor'"),
    ("both start anchors", edit(lambda t: t.update(start_anchor_pattern="x")), "(template): cannot have both"),
    ("empty start anchor list", edit(lambda t: t.update(start_anchor=[])), "start_anchor"),
    ("empty start anchor", edit(lambda t: t.update(start_anchor="")), "start_anchor"),
    (
        "invalid start anchor regex",
        edit(lambda t: (t.pop("start_anchor"), t.update(start_anchor_pattern="(?P<"))),
        "start_anchor_pattern: invalid regex",
    ),
    ("field name needing quotes", edit(lambda t: t["fields"].update({"my field": {"open": 3}})), "fields['my field'].open"),
]


@pytest.mark.parametrize("template,path", [(t, p) for _, t, p in INVALID], ids=[n for n, _, _ in INVALID])
def test_invalid_template_is_rejected_with_its_path(template, path):
    with pytest.raises(Exception):
        load_response_template(copy.deepcopy(template))  # the reference rejects it too
    with pytest.raises(TemplateError) as caught:
        check(from_dict(template))
    assert path in str(caught.value)


def test_all_problems_are_reported_together():
    template = edit(
        lambda t: (
            t.update(version=3),
            t["fields"]["content"].update(content="yaml"),
            t["fields"]["tool_calls"].update(open_pattern="("),
        )
    )
    with pytest.raises(TemplateError) as caught:
        check(from_dict(template))
    paths = [problem.path for problem in caught.value.problems]
    assert set(paths) == {"version", "fields.tool_calls", "fields.content.content"}


ODD_BUT_ACCEPTED = [
    edit(lambda t: t.update(version=True)),  # True == 1
    edit(lambda t: t.update(version=1.0)),
    edit(field("tool_calls", repeats="yes", join=", ", transform=DELETE, content="text")),
    edit(field("content", content_args=["not", "a", "dict"])),  # fails at parse time, not load time
    edit(field("content", optional=0)),
    edit(field("tool_calls", transform=None)),
    edit(lambda t: t.update(start_anchor=["a", "a", "ab"])),
    edit(field("reasoning_content", open=DELETE, open_pattern="<think(?: mode=(?P<mode>\\w+))?>", transform="{content}")),
]


@pytest.mark.parametrize("template", ODD_BUT_ACCEPTED)
def test_odd_templates_the_reference_accepts_compile(template):
    load_response_template(copy.deepcopy(template))
    check(from_dict(template))


# Random templates: acceptance must match the reference's loader exactly.
_values = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-1, 2),
    st.sampled_from(["", "<t>", "(", "(?P<n>x)", "{content}", "a{content}", "text", "json", "x"]),
    st.lists(st.sampled_from(["", "<a>", "<ab>", 1]), max_size=3),
    st.just({}),
)
_field = st.dictionaries(
    st.sampled_from(
        ["open", "open_pattern", "close", "close_pattern", "content", "content_args", "repeats", "join", "optional",
         "transform", "transform_each", "bogus"]
    ),
    _values,
    max_size=5,
)
_template = st.fixed_dictionaries(
    {"fields": st.dictionaries(st.sampled_from(["a", "b", "c"]), st.one_of(_field, _values), max_size=3)},
    optional={
        "version": _values,
        "defaults": st.one_of(st.just({"role": "assistant"}), _values),
        "start_anchor": _values,
        "start_anchor_pattern": _values,
        "extra": _values,
    },
)


@settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_template)
def test_acceptance_matches_reference(template):
    try:
        load_response_template(copy.deepcopy(template))
        reference_accepts = True
    except Exception:  # noqa: BLE001 - any exception is a rejection
        reference_accepts = False
    try:
        check(from_dict(template))
        accepts = True
    except TemplateError:
        accepts = False
    assert accepts == reference_accepts, json.dumps(template, default=str)


def test_cli_reports_problems_without_traceback(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(edit(field("tool_calls", open=DELETE, open_pattern="(<tool_call>"))))
    result = subprocess.run(
        [sys.executable, "-m", "compiler", "build", str(bad), "-o", str(tmp_path)],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 2
    assert "fields.tool_calls.open_pattern: invalid regex" in result.stderr
    assert "Traceback" not in result.stderr
    assert not (tmp_path / "bad.py").exists()
