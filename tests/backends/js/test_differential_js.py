"""The differential tests' JavaScript leg: the same generated inputs as
test_differential.py (hypothesis, from each shape's blocks, delimiter
fragments and multi-byte text, with prefixes, tools and chunkings), run
through the generated JavaScript parser and compared with the reference
interpreter. Cases go in batches, one Node process per batch
(`compiler.conformance.js`)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from compiler.frontend import source as sources
from compiler.backends import js as js_backend
from compiler.errors import TemplateError
from compiler.conformance import run
from compiler.pipeline import to_program
from compiler.conformance.vectors import run_reference
from shapes import SHAPES
from differential import cases
from js_support import same_js

from differential import PORTS_DIVERGE, compared_keys

BATCHES = int(os.environ.get("DIFF_JS_BATCHES", "3"))
BATCH_SIZE = 25


def _js_refusal(shape) -> TemplateError | None:
    try:
        js_backend.render(to_program(sources.from_dict(shape.template, shape.name)))
    except TemplateError as error:
        return error
    return None


# Shapes whose patterns the JavaScript backend refuses at build time (syntax
# outside the project's regex grammar): none since (?m) joined the grammar.
REFUSED = {shape.name for shape in SHAPES if _js_refusal(shape) is not None}
RUNNABLE = [shape for shape in SHAPES if shape.name not in REFUSED | PORTS_DIVERGE]


def test_refused_shapes_fail_at_build_time_with_a_json_path():
    assert REFUSED == set()
    shape = next(s for s in SHAPES if s.name == "edge_patterns")
    template = json.loads(json.dumps(shape.template))
    template["start_anchor_pattern"] = r"(ASSISTANT:)\1?"  # a back-reference: outside the grammar
    with pytest.raises(TemplateError) as refused:
        js_backend.render(to_program(sources.from_dict(template, "backref")))
    assert [problem.path for problem in refused.value.problems] == ["start_anchor_pattern"]


@pytest.fixture(scope="module")
def template_files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("shapes")
    paths = {}
    for shape in SHAPES:
        path = Path(folder) / f"{shape.name}.json"
        path.write_text(json.dumps(shape.template, ensure_ascii=False), encoding="utf-8")
        paths[shape.name] = path
    return paths


@pytest.mark.parametrize("shape", RUNNABLE, ids=[s.name for s in RUNNABLE])
@settings(max_examples=BATCHES, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_js_matches_reference(shape, template_files, data):
    batch = data.draw(st.lists(cases(shape), min_size=BATCH_SIZE, max_size=BATCH_SIZE))
    inputs = [
        {"id": str(index), "prefix": prefix, "chunks": chunks, "tools": tools}
        for index, (prefix, chunks, tools) in enumerate(batch)
    ]
    results = run("js", template_files[shape.name], inputs)
    for case, result in zip(inputs, results):
        expected = run_reference(shape.template, case["prefix"], case["chunks"], case["tools"])
        expected = json.loads(json.dumps(expected, ensure_ascii=False))
        keys = compared_keys(shape.name, expected)
        expected, result = {key: expected[key] for key in keys}, {key: result[key] for key in keys}
        assert same_js(result, expected), (
            f"JavaScript parser diverges from the reference\n  prefix={case['prefix']!r}\n  chunks={case['chunks']!r}\n"
            f"  tools={case['tools']!r}\n"
            + "\n".join(
                f"  {key}: reference={expected[key]!r}\n          js       ={result[key]!r}"
                for key in expected
                if not same_js({key: result[key]}, {key: expected[key]})
            )
        )


LAZY_SHAPES = ["lazy_reasoning", "deepseek_v31_lazy", "lazy_bounded", "lazy_optional", "lazy_groups", "lazy_opening"]


@pytest.mark.parametrize("name", LAZY_SHAPES)
def test_js_lazy_opens_per_character(name, template_files):
    """Templates whose opens have lazy repeats (issue 37), every block alone
    and all together, whole and fed one character at a time: what is held
    back, and the call at which an error is raised, follow the `regex`
    module's partial matches for the lazy repeat (compiler/regex/lazy_partial.py)."""
    shape = next(s for s in SHAPES if s.name == name)
    texts = list(shape.blocks) + ["".join(shape.blocks)]
    inputs = [
        {"id": str(index), "prefix": prefix, "chunks": chunks, "tools": shape.tools}
        for index, (prefix, chunks) in enumerate(
            (prefix, chunks) for prefix in shape.prefixes for text in texts for chunks in ([text], list(text))
        )
    ]
    results = run("js", template_files[shape.name], inputs)
    failures = []
    for case, result in zip(inputs, results):
        expected = json.loads(json.dumps(run_reference(shape.template, case["prefix"], case["chunks"], case["tools"]), ensure_ascii=False))
        keys = compared_keys(shape.name, expected)
        if not same_js({k: result[k] for k in keys}, {k: expected[k] for k in keys}):
            failures.append((case["prefix"], case["chunks"]))
    assert failures == [], f"{len(failures)} divergence(s); first: {failures[0]}"
