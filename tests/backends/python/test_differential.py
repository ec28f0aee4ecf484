"""Compiled parsers against the reference interpreter, on generated outputs
and chunkings: every event list, the message and the exception class."""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from differential import assert_same_behaviour, assert_same_whole, cases
from shapes import SHAPES

EXAMPLES = int(os.environ.get("DIFF_EXAMPLES", "120"))


@pytest.mark.parametrize("shape", SHAPES, ids=[s.name for s in SHAPES])
@settings(
    max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large]
)
@given(data=st.data())
def test_matches_reference(shape, compiled, data):
    prefix, chunks, tools = data.draw(cases(shape))
    assert_same_behaviour(shape.template, compiled(shape), prefix, chunks, tools)


@pytest.mark.parametrize("shape", SHAPES, ids=[s.name for s in SHAPES])
def test_blocks_whole_and_per_character(shape, compiled):
    """Every well-formed block, alone and all together, whole and per character."""
    module = compiled(shape)
    texts = list(shape.blocks) + ["".join(shape.blocks)]
    for prefix in shape.prefixes:
        for text in texts:
            for tools in (None, shape.tools):
                assert_same_behaviour(shape.template, module, prefix, [text], tools)
                assert_same_behaviour(shape.template, module, prefix, list(text), tools)


LONG_EXAMPLES = max(4, EXAMPLES // 6)


@st.composite
def long_outputs(draw, shape):
    """Blocks and vocabulary between fillers longer than LONG_TEXT, so the
    whole-text search (each state's Horizon: its strings found in one go,
    the literals bounded by a pattern's match) runs from many states and
    read positions, with strings that occur once, often or nowhere."""
    from runtime.core import LONG_TEXT

    vocab = shape.vocabulary()
    piece = st.one_of(st.sampled_from(shape.blocks), st.sampled_from(vocab))
    words = st.sampled_from(["word ", "a < b ", "x\n", "  ", "é ", "🙂 "])
    parts = []
    for _ in range(draw(st.integers(1, 4))):
        parts.extend(draw(st.lists(piece, max_size=4)))
        if draw(st.booleans()):
            filler = draw(words) * (LONG_TEXT // 2 + draw(st.integers(0, 64)))
            parts.append(filler[: LONG_TEXT + draw(st.integers(1, 200))])
    return "".join(parts)


@pytest.mark.parametrize("shape", SHAPES, ids=[s.name for s in SHAPES])
@settings(
    max_examples=LONG_EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large]
)
@given(data=st.data())
def test_long_texts_match_reference(shape, compiled, data):
    text = data.draw(long_outputs(shape))
    prefix = data.draw(st.sampled_from(shape.prefixes))
    tools = data.draw(st.sampled_from([None, shape.tools])) if shape.tools else None
    cut = data.draw(st.integers(0, len(text)))
    for chunks in ([text], [text[:cut], text[cut:]]):
        assert_same_behaviour(shape.template, compiled(shape), prefix, chunks, tools)
    assert_same_whole(shape.template, compiled(shape), prefix, text, tools)
