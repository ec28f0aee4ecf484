"""The recovery mode's Go leg: the recovery differential inputs
(tests/support/recovery_cases.py) for every shape through the generated Go
parsers with WithRecover(), in batches, against vLLM 0.33's interpreter."""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from compiler.conformance.go import build_harness, run_cases
from compiler.frontend import source as sources
from differential import same
from recovery_cases import NO_ORACLE, ORACLE, oracle_trace, recovery_cases
from shapes import SHAPES

pytestmark = pytest.mark.skipif(ORACLE is None, reason=NO_ORACLE)
BATCHES = max(2, int(os.environ.get("DIFF_GO_BATCHES", "4")) // 2)
BATCH_SIZE = 20
KEYS = ("initial_events", "feeds", "final_events", "message", "error")


@pytest.fixture(scope="module")
def shape_harness(tmp_path_factory):
    built = {shape.name: sources.from_dict(shape.template, shape.name) for shape in SHAPES}
    return build_harness(built, tmp_path_factory.mktemp("go-recovery"))


@pytest.mark.parametrize("shape", SHAPES, ids=[s.name for s in SHAPES])
@settings(max_examples=BATCHES, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_go_recovery_matches_vllm(shape, shape_harness, data):
    batch = data.draw(st.lists(recovery_cases(shape), min_size=1, max_size=BATCH_SIZE))
    requests = [
        {"id": str(i), "template": shape.name, "prefix": p, "chunks": c, "tools": t, "recover": True}
        for i, (p, c, t) in enumerate(batch)
    ]
    for request, result in zip(requests, run_cases(shape_harness, requests)):
        expected = oracle_trace(shape.template, request["prefix"], request["chunks"], request["tools"])
        differing = [key for key in KEYS if not same(expected[key], result[key])]
        assert differing == [], f"{request!r}\n" + "\n".join(
            f"  {key}: vllm={expected[key]!r}\n        go  ={result[key]!r}" for key in differing
        )
