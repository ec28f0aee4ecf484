"""The benchmark's stream shapes (benchmarks/shapes.py), short, for every
bundled template: the compiled parser against the reference on exactly the
tokens the benchmark feeds, so every fast path it measures is checked."""

from __future__ import annotations

import pytest

from benchmarks.shapes import SHAPES, NotApplicable, load_template, mixed_stream, shape_stream, template_names
from conftest import load_generated
from differential import assert_same_behaviour, assert_same_whole

TOKENS = 150


def _applicable():
    """(template, shape) pairs the template has what the shape needs for (no
    reasoning field, one tool-call block per turn: see `python -m benchmarks`)."""
    pairs = []
    for name in template_names():
        for shape in SHAPES:
            try:
                shape_stream(name, shape.name, 4, load_generated(name))
            except NotApplicable:
                continue
            pairs.append((name, shape.name))
    return pairs


def test_most_shapes_apply_to_every_template():
    """A template's samples must give the benchmark something to measure."""
    applicable = _applicable()
    for name in template_names():
        mine = [shape for template, shape in applicable if template == name]
        assert len(mine) >= len(SHAPES) // 2, f"{name}: only {mine} apply (add samples with content and tool calls)"


@pytest.mark.parametrize("name,shape", _applicable())
def test_stream_shape_matches_reference(name, shape):
    module = load_generated(name)
    stream = shape_stream(name, shape, TOKENS, module, seed=1)
    template = load_template(name)
    assert_same_behaviour(template, module, stream.prefix, stream.tokens)
    # Again, now that the state tables have met these tokens.
    assert_same_behaviour(template, module, stream.prefix, stream.tokens)
    # The tokens two at a time, so held text meets new text mid-token.
    pairs = ["".join(stream.tokens[i : i + 2]) for i in range(0, len(stream.tokens), 2)]
    assert_same_behaviour(template, module, stream.prefix, pairs)


@pytest.mark.parametrize("name", template_names())
def test_mixed_stream_matches_reference(name):
    module = load_generated(name)
    stream = mixed_stream(name, 400, seed=2)
    template = load_template(name)
    assert_same_behaviour(template, module, stream.prefix, stream.tokens)
    assert_same_behaviour(template, module, stream.prefix, [stream.text])


@pytest.mark.parametrize("name", template_names())
def test_long_whole_text_matches_reference(name):
    """A text far longer than LONG_TEXT, whole and in four pieces: the
    whole-text paths (several trigger strings in one pass, the scanner
    skipped for long tails) against the reference."""
    from runtime.core import LONG_TEXT

    module = load_generated(name)
    stream = mixed_stream(name, 3000, seed=3)
    assert len(stream.text) > 2 * LONG_TEXT
    template = load_template(name)
    assert_same_behaviour(template, module, stream.prefix, [stream.text])
    assert_same_whole(template, module, stream.prefix, stream.text)
    quarter = len(stream.text) // 4
    pieces = [stream.text[i : i + quarter] for i in range(0, len(stream.text), quarter)]
    assert_same_behaviour(template, module, stream.prefix, pieces)
