"""The recovery mode's JavaScript leg: the recovery differential inputs
(tests/support/recovery_cases.py) for every shape through the generated
JavaScript parser with `recover: true`, in batches, against vLLM 0.33's
interpreter."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from compiler.conformance import run
from js_support import same_js
from recovery_cases import NO_ORACLE, ORACLE, oracle_trace, recovery_cases
from shapes import SHAPES

pytestmark = pytest.mark.skipif(ORACLE is None, reason=NO_ORACLE)
BATCHES = max(2, int(os.environ.get("DIFF_JS_BATCHES", "3")) - 1)
BATCH_SIZE = 25
KEYS = ("initial_events", "feeds", "final_events", "message", "error")


@pytest.fixture(scope="module")
def template_files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("recovery-shapes")
    paths = {}
    for shape in SHAPES:
        path = Path(folder) / f"{shape.name}.json"
        path.write_text(json.dumps(shape.template, ensure_ascii=False), encoding="utf-8")
        paths[shape.name] = path
    return paths


@pytest.mark.parametrize("shape", SHAPES, ids=[s.name for s in SHAPES])
@settings(max_examples=BATCHES, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_js_recovery_matches_vllm(shape, template_files, data):
    batch = data.draw(st.lists(recovery_cases(shape), min_size=BATCH_SIZE, max_size=BATCH_SIZE))
    inputs = [
        {"id": str(i), "prefix": p, "chunks": c, "tools": t, "recover": True} for i, (p, c, t) in enumerate(batch)
    ]
    for case, result in zip(inputs, run("js", template_files[shape.name], inputs)):
        expected = oracle_trace(shape.template, case["prefix"], case["chunks"], case["tools"])
        differing = [key for key in KEYS if not same_js({key: result[key]}, {key: expected[key]})]
        assert differing == [], f"{case!r}\n" + "\n".join(
            f"  {key}: vllm={expected[key]!r}\n        js  ={result[key]!r}" for key in differing
        )
