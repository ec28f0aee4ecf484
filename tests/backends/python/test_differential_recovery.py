"""The recovery mode (`recover=True`) against its oracle, vLLM 0.33's
interpreter, on generated outputs: each shape's blocks and delimiter
fragments mixed with blocks made malformed (cut off, single-quoted, bodies
that fail every content parser) and bare bad bodies, in every chunking.
Skipped when vLLM's interpreter is not found (compiler/conformance/vllm_oracle.py);
the committed recovery vectors run without it."""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from compiler.conformance.vectors import trace
from differential import same
from recovery_cases import NO_ORACLE, ORACLE, oracle_trace, recovery_cases
from shapes import SHAPES

pytestmark = pytest.mark.skipif(ORACLE is None, reason=NO_ORACLE)
EXAMPLES = max(10, int(os.environ.get("DIFF_EXAMPLES", "120")) // 4)


@pytest.mark.parametrize("shape", SHAPES, ids=[s.name for s in SHAPES])
@settings(
    max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large]
)
@given(data=st.data())
def test_recovery_matches_vllm(shape, compiled, data):
    prefix, chunks, tools = data.draw(recovery_cases(shape))
    module = compiled(shape)
    expected = oracle_trace(shape.template, prefix, chunks, tools, error_type=type)
    actual = trace(lambda: module.ResponseParser(prefix, tools=tools, recover=True), chunks, error_type=type)
    differing = [key for key in expected if not same(expected[key], actual[key])]
    assert differing == [], f"prefix={prefix!r} chunks={chunks!r} tools={tools!r}\n" + "\n".join(
        f"  {key}: vllm={expected[key]!r}\n        ours={actual[key]!r}" for key in differing
    )
