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

from compiler.conformance import vllm_oracle
from compiler.conformance.vectors import trace
from differential import chunkings, same
from shapes import SHAPES

ORACLE = vllm_oracle.load()
pytestmark = pytest.mark.skipif(
    ORACLE is None, reason="vLLM's interpreter not found (compiler/conformance/vllm_oracle.py)"
)
EXAMPLES = max(10, int(os.environ.get("DIFF_EXAMPLES", "120")) // 4)
BAD_BODIES = ('{"a": }', "{bad}", "{'a': 1}", "12x", "[1, 2] and text", "}", '{"name": 1}', "", " ", "\x01")


@st.composite
def broken_block(draw, shape):
    """A block cut off, single-quoted, or with its JSON opened badly."""
    block = draw(st.sampled_from(shape.blocks))
    how = draw(st.sampled_from(["cut", "quotes", "brace", "bad"]))
    if how == "cut":
        return block[: draw(st.integers(0, len(block)))]
    if how == "quotes":
        return block.replace('"', "'")
    if how == "brace":
        return block.replace("{", "{bad ", 1)
    return draw(st.sampled_from(BAD_BODIES))


@st.composite
def recovery_cases(draw, shape):
    piece = st.one_of(
        st.sampled_from(shape.blocks), broken_block(shape), broken_block(shape), st.sampled_from(shape.vocabulary())
    )
    text = "".join(draw(st.lists(piece, max_size=8)))
    prefix = draw(st.sampled_from(shape.prefixes))
    if draw(st.booleans()):
        prefix += draw(broken_block(shape))
    tools = draw(st.sampled_from([None, shape.tools])) if shape.tools else None
    return prefix, draw(chunkings(text)), tools


@pytest.mark.parametrize("shape", SHAPES, ids=[s.name for s in SHAPES])
@settings(
    max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large]
)
@given(data=st.data())
def test_recovery_matches_vllm(shape, compiled, data):
    prefix, chunks, tools = data.draw(recovery_cases(shape))
    module = compiled(shape)
    expected = trace(lambda: ORACLE.ResponseParser(shape.template, prefix=prefix, tools=tools), chunks, error_type=type)
    actual = trace(lambda: module.ResponseParser(prefix, tools=tools, recover=True), chunks, error_type=type)
    differing = [key for key in expected if not same(expected[key], actual[key])]
    assert differing == [], f"prefix={prefix!r} chunks={chunks!r} tools={tools!r}\n" + "\n".join(
        f"  {key}: vllm={expected[key]!r}\n        ours={actual[key]!r}" for key in differing
    )
