"""Run the reference interpreter and a compiled parser on the same inputs and
record everything observable: initial events, the events of each feed, the
final message and events, and the exception class at the call that raised."""

from __future__ import annotations

import math

from hypothesis import strategies as st

from transformers.utils.chat_parsing import ResponseParser as ReferenceParser

from compiler.conformance.vectors import trace


def reference_trace(template, prefix, chunks, tools=None) -> dict:
    return trace(lambda: ReferenceParser(template, prefix=prefix, tools=tools), chunks, error_type=type)


def compiled_trace(module, prefix, chunks, tools=None) -> dict:
    return trace(lambda: module.ResponseParser(prefix, tools=tools), chunks, error_type=type)


def same(a, b) -> bool:
    """Equality as Python values, with types: 1 != 1.0 != True; NaN equals NaN."""
    if type(a) is not type(b):
        return False
    if isinstance(a, float):
        return a == b or (math.isnan(a) and math.isnan(b))
    if isinstance(a, dict):
        return list(a) == list(b) and all(same(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    return a == b


def assert_same_behaviour(template, module, prefix, chunks, tools=None):
    expected = reference_trace(template, prefix, chunks, tools)
    actual = compiled_trace(module, prefix, chunks, tools)
    if not same(expected, actual):
        detail = "\n".join(
            f"  {key}: reference={expected[key]!r}\n          compiled ={actual[key]!r}"
            for key in expected
            if not same(expected[key], actual[key])
        )
        raise AssertionError(
            f"compiled parser diverges from the reference\n  prefix={prefix!r}\n  chunks={chunks!r}\n  tools={tools!r}\n"
            f"{detail}"
        )


def _whole_outcome(parse):
    try:
        return ("message", parse())
    except Exception as error:  # noqa: BLE001 - compared by class
        return ("error", type(error))


def assert_same_whole(template, module, prefix, text, tools=None):
    """`parse_response` on a whole text (its own path: a text longer than
    SETTLE_LIMIT goes straight to the search, perhaps without its context)
    against the reference's: the message, or the exception class."""
    from transformers.utils.chat_parsing import parse_response

    expected = _whole_outcome(lambda: parse_response(text, template, prefix=prefix, tools=tools))
    actual = _whole_outcome(lambda: module.parse_response(text, prefix=prefix, tools=tools))
    if not same(expected, actual):
        raise AssertionError(
            f"compiled parse_response diverges from the reference\n  prefix={prefix!r}\n  text={text!r}\n"
            f"  tools={tools!r}\n  reference={expected!r}\n  compiled ={actual!r}"
        )


# Templates on which a port may cut chunks differently from the reference while
# the message and the exception class must still agree. Empty: the ports
# reproduce the regex module's partial matches inside look-behinds (glm47,
# qwen3_5, seed_oss and llama4_pythonic met them; see
# compiler/regex/lookbehind_partial.py), so every leg compares everything.
CHUNK_BOUNDARY_ONLY: set[str] = set()

# Templates the ports' differential legs do not run. Empty.
PORTS_DIVERGE: set[str] = set()


def compared_keys(shape_name: str, keys):
    """The result keys a port's differential leg compares for this shape."""
    return (
        tuple(key for key in keys if key in ("message", "error")) if shape_name in CHUNK_BOUNDARY_ONLY else tuple(keys)
    )


# Hypothesis strategies: outputs composed of a shape's blocks, chunkings of them,
# and whole cases (prefix, chunks, tools) that every differential leg shares.


@st.composite
def outputs(draw, shape):
    vocab = shape.vocabulary()
    piece = st.one_of(st.sampled_from(shape.blocks), st.sampled_from(shape.blocks), st.sampled_from(vocab))
    return "".join(draw(st.lists(piece, max_size=10)))


@st.composite
def chunkings(draw, text):
    how = draw(st.sampled_from(["whole", "chars", "cuts", "cuts", "cuts"]))
    if how == "whole":
        return [text]
    if how == "chars":
        return list(text)
    cuts = sorted(set(draw(st.lists(st.integers(0, len(text)), max_size=max(1, len(text))))))
    bounds = [0] + cuts + [len(text)]
    chunks = [text[a:b] for a, b in zip(bounds, bounds[1:])]
    return chunks  # may hold empty chunks: feed("") is legal too


@st.composite
def cases(draw, shape):
    text = draw(outputs(shape))
    prefix = draw(st.sampled_from(shape.prefixes))
    if draw(st.booleans()):
        prefix += draw(outputs(shape))
    chunks = draw(chunkings(text))
    tools = draw(st.sampled_from([None, shape.tools])) if shape.tools else None
    return prefix, chunks, tools
