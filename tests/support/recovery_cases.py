"""Hypothesis inputs for the recovery mode's differential legs (Python, JS,
Go): a shape's blocks and delimiter fragments mixed with blocks made
malformed (cut off, single-quoted, badly opened) and bare bad bodies."""

from __future__ import annotations

from hypothesis import strategies as st

from compiler.conformance import vllm_oracle
from compiler.conformance.vectors import trace
from differential import chunkings

ORACLE = vllm_oracle.load()  # vLLM 0.33's interpreter, or None when not found
NO_ORACLE = "vLLM's interpreter not found (compiler/conformance/vllm_oracle.py)"
BAD_BODIES = ('{"a": }', "{bad}", "{'a': 1}", "12x", "[1, 2] and text", "}", '{"name": 1}', "", " ", "\x01", "é😀{")


@st.composite
def broken_block(draw, shape):
    """A block cut off, single-quoted, or with its JSON opened badly; or a bad body."""
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
    """(prefix, chunks, tools)."""
    piece = st.one_of(
        st.sampled_from(shape.blocks), broken_block(shape), broken_block(shape), st.sampled_from(shape.vocabulary())
    )
    text = "".join(draw(st.lists(piece, max_size=8)))
    prefix = draw(st.sampled_from(shape.prefixes))
    if draw(st.booleans()):
        prefix += draw(broken_block(shape))
    tools = draw(st.sampled_from([None, shape.tools])) if shape.tools else None
    return prefix, draw(chunkings(text)), tools


def oracle_trace(template, prefix, chunks, tools, error_type=None) -> dict:
    """vLLM's run, as vectors record it (errors by class name unless `error_type` is given)."""
    make = lambda: ORACLE.ResponseParser(template, prefix=prefix, tools=tools)  # noqa: E731
    return trace(make, chunks) if error_type is None else trace(make, chunks, error_type=error_type)
