"""`python -m compiler coverage`: spans of an output that reach neither the
message nor a delimiter. Every bundled sample (any template with a samples
file, so new templates are covered when they land) has no unexplained loss."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from compiler.diagnostics.loss import explain, load_explanations, trace, unexplained
from compiler.frontend.source import bundled
from samples import ROOT, SAMPLES_DIR, load_samples, template_of

NAMES = [path.stem for path in bundled() if (SAMPLES_DIR / f"{path.stem}.json").is_file()]
CASES = [(name, s) for name in NAMES for s in load_samples(name) if "expected_error" not in s]


@pytest.mark.parametrize("name,sample", CASES, ids=[f"{n}/{s['id']}" for n, s in CASES])
def test_bundled_sample_has_no_unexplained_loss(name, sample):
    losses = explain(trace(template_of(name), sample["output"], prefix=sample["prefix"], tools=sample.get("tools")), name)
    assert [loss.as_dict() for loss in unexplained(losses)] == []


def test_null_sink_text_is_reported_with_offsets():
    # gpt-oss has no implicit field: text outside a channel header is dropped.
    output = "stray<|channel|>final<|message|>Hi<|return|>"
    losses = trace(template_of("gpt_oss"), output)
    assert [(l.start, l.end, l.text, l.kind) for l in losses] == [(0, 5, "stray", "null-sink")]


def test_overwritten_region_is_reported():
    template = {"fields": {"reasoning_content": {"open": "<think>", "close": "</think>"}, "content": {}}, "start_anchor": "X"}
    output = "<think>first</think><think>second</think>answer"
    losses = trace(template, output)
    assert [(l.start, l.end, l.text, l.kind, l.field) for l in losses] == [(7, 12, "first", "overwritten", "reasoning_content")]


def test_text_an_xml_parser_skips_is_reported():
    output = "<tool_call>get_weather\nnoise<arg_key>city</arg_key><arg_value>Paris</arg_value></tool_call>"
    losses = trace(template_of("glm45"), output)
    assert [(l.start, l.end, l.text, l.kind) for l in losses] == [(23, 28, "noise", "unparsed")]
    assert output[23:28] == "noise"


def test_whitespace_and_prefix_are_never_loss():
    template = {"fields": {"content": {"open": "<a>", "close": "</a>"}}, "start_anchor": "X"}
    assert trace(template, "  \n<a>x</a>\n\n", prefix="Xzz") == []


def test_explanations_mark_expected_loss():
    output = '<|start|>assistant to=browser.search<|channel|>commentary<|message|>{"q": "x"}<|call|><|start|>assistant<|channel|>final<|message|>ok<|return|>'
    losses = explain(trace(template_of("gpt_oss"), output), "gpt_oss")
    assert losses and unexplained(losses) == []
    assert all("built-in" in l.reason for l in losses)
    assert explain(trace(template_of("gpt_oss"), "stray<|channel|>final<|message|>Hi"), "gpt_oss")[0].reason is None


def test_every_explanation_names_a_bundled_template_and_compiles():
    import re

    names = {p.stem for p in bundled()}
    for template, rules in load_explanations().items():
        assert template in names
        for rule in rules:
            assert rule["kind"] in ("null-sink", "overwritten", "unparsed", "unused") and rule["reason"]
            re.compile(rule["text"])


def test_cli_reports_each_line(tmp_path):
    lines = [
        {"id": "a", "output": "stray<|channel|>final<|message|>Hi<|return|>"},
        {"id": "b", "output": "<|channel|>final<|message|>Hi<|return|>"},
    ]
    path = tmp_path / "outputs.jsonl"
    path.write_text("\n".join(json.dumps(l) for l in lines) + "\n")
    run = subprocess.run(
        [sys.executable, "-m", "compiler", "coverage", "gpt_oss", "--input", str(path)],
        cwd=ROOT, capture_output=True, text=True,
    )
    assert run.returncode == 1, run.stderr
    got = [json.loads(l) for l in run.stdout.splitlines()]
    assert got[0] == {"line": 1, "id": "a", "loss": [{"start": 0, "end": 5, "text": "stray", "kind": "null-sink", "field": None}]}
    assert got[1] == {"line": 2, "id": "b", "loss": []}
    clean = subprocess.run(
        [sys.executable, "-m", "compiler", "coverage", "qwen3", "--text", "<think>a</think>b"],
        cwd=ROOT, capture_output=True, text=True,
    )
    assert clean.returncode == 0 and json.loads(clean.stdout) == []
