"""The differential leg for Go: the inputs hypothesis builds for every shape
(tests/support/shapes.py, the same strategies as test_differential.py) run through
the generated Go parsers, in batches (one Go process per batch), and are
compared with the reference interpreter: every event list, the message and
the exception class."""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from compiler.frontend import source as sources
from compiler.backends.go import render
from compiler.conformance.go import build_harness, run_cases
from compiler.errors import TemplateError
from compiler.pipeline import to_program
from compiler.conformance.vectors import run_reference
from differential import PORTS_DIVERGE, compared_keys, same
from shapes import SHAPES
from differential import cases

BATCHES = int(os.environ.get("DIFF_GO_BATCHES", "4"))
BATCH_SIZE = int(os.environ.get("DIFF_GO_BATCH_SIZE", "20"))
KEYS = ("initial_events", "feeds", "final_events", "message", "error")


def _go_accepts(shape) -> bool:
    try:
        render(to_program(sources.from_dict(shape.template, shape.name)))
        return True
    except TemplateError:
        return False


# Shapes whose template uses regex syntax outside the project's grammar (the
# Python backend still runs those on the `regex` module; Go refuses them at
# build time, with the JSON path: see test_refused_shapes_are_only_these).
GO_SHAPES = [shape for shape in SHAPES if _go_accepts(shape)]
CHECKED = [shape for shape in GO_SHAPES if shape.name not in PORTS_DIVERGE]
REFUSED: dict[str, str] = {}  # none since (?m) joined the regex grammar


def test_refused_shapes_are_only_these():
    assert sorted({s.name for s in SHAPES} - {s.name for s in GO_SHAPES}) == sorted(REFUSED)


@pytest.fixture(scope="module")
def shape_harness(tmp_path_factory):
    """One Go build with a parser for every shape's template."""
    built = {shape.name: sources.from_dict(shape.template, shape.name) for shape in GO_SHAPES}
    return build_harness(built, tmp_path_factory.mktemp("go-shapes"))


@pytest.mark.parametrize("shape", CHECKED, ids=[s.name for s in CHECKED])
@settings(max_examples=BATCHES, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_go_matches_reference(shape, shape_harness, data):
    batch = data.draw(st.lists(cases(shape), min_size=1, max_size=BATCH_SIZE))
    requests = [
        {"id": str(i), "template": shape.name, "prefix": prefix, "chunks": chunks, "tools": tools}
        for i, (prefix, chunks, tools) in enumerate(batch)
    ]
    keys = compared_keys(shape.name, KEYS)
    for request, result in zip(requests, run_cases(shape_harness, requests)):
        expected = run_reference(shape.template, request["prefix"], request["chunks"], request["tools"])
        if not same({key: expected[key] for key in keys}, {key: result[key] for key in keys}):
            detail = "\n".join(
                f"  {key}: reference={expected[key]!r}\n          go       ={result[key]!r}"
                for key in keys
                if not same(expected[key], result[key])
            )
            raise AssertionError(
                f"Go diverges from the reference\n  prefix={request['prefix']!r}\n  chunks={request['chunks']!r}\n"
                f"  tools={request['tools']!r}\n{detail}"
            )


@pytest.mark.parametrize("shape", CHECKED, ids=[s.name for s in CHECKED])
def test_go_blocks_whole_and_per_character(shape, shape_harness):
    """Every well-formed block, alone and all together, whole and per character, with and without tools."""
    texts = list(shape.blocks) + ["".join(shape.blocks)]
    requests = []
    for prefix in shape.prefixes:
        for text in texts:
            for tools in (None, shape.tools):
                for chunks in ([text], list(text)):
                    requests.append({"id": str(len(requests)), "template": shape.name, "prefix": prefix, "chunks": chunks, "tools": tools})
    failures = []
    keys = compared_keys(shape.name, KEYS)
    for request, result in zip(requests, run_cases(shape_harness, requests)):
        expected = run_reference(shape.template, request["prefix"], request["chunks"], request["tools"])
        if not same({key: expected[key] for key in keys}, {key: result[key] for key in keys}):
            failures.append((request, {k: (expected[k], result[k]) for k in keys if not same(expected[k], result[k])}))
    assert failures == [], f"{len(failures)} divergence(s); first: {failures[0]}"
