"""Many small tool calls against the reference, for every bundled template:
the pieces of the template's own calls (benchmarks/shapes.py finds them in
its samples) cut at several places and drawn in any order, with broken
bodies and stray text among them.

One class meets the same steps again and again here, from fresh parsers,
with and without tools, and must take them exactly each time, including a
close whose value fails after the same step succeeded before."""

from __future__ import annotations

import functools
import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from benchmarks.shapes import NotApplicable, _call_parts, load_template, template_names
from conftest import load_generated
from calls_vocabulary import TOOLS, _vocabulary
from differential import assert_same_behaviour, same

EXAMPLES = int(os.environ.get("DIFF_EXAMPLES", "120"))

# One module per template for the whole run, as in a server (its class
# keeps what it made of the prompts' tails).
module_of = functools.cache(load_generated)


def _applicable():
    names = []
    for name in template_names():
        try:
            _vocabulary(name)
        except NotApplicable:
            continue
        names.append(name)
    return names


@pytest.mark.parametrize("name", _applicable())
@settings(
    max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large]
)
@given(data=st.data())
def test_calls_pieces_match_reference(name, data):
    prefix, calls, pieces = _vocabulary(name)
    token = st.one_of(st.sampled_from(calls), st.sampled_from(pieces))
    chunks = data.draw(st.lists(token, min_size=1, max_size=24))
    tools = data.draw(st.sampled_from([None, TOOLS]))
    assert_same_behaviour(load_template(name), module_of(name), prefix, chunks, tools)


@pytest.mark.parametrize("name", _applicable())
def test_repeated_calls_then_a_broken_one(name):
    """The same calls many times, then a call whose
    body stops halfway, closed as the others: the close must fail
    as the reference does, at the same feed."""
    prefix, _calls, _pieces = _vocabulary(name)
    module, template = module_of(name), load_template(name)
    for _sample, _before, opened, body, closed, after in _call_parts(name, every=True)[:2]:
        unit = [opened, body, closed]
        broken = [opened, body[: len(body) // 2], closed] if body else []
        for tools in (None, TOOLS):
            assert_same_behaviour(template, module, prefix, unit * 6 + broken + unit + [after], tools)
            assert_same_behaviour(template, module, prefix, unit * 3 + [after], tools)


KEYS = ["city", "a_b", "k1", "café", "ı", "e\u0301", "x\u200dy", "٣", '"q"', "<escape>k<escape>", ""]
VALUES = ["1", "true", '"Paris"', '<|"|>Paris<|"|>', "<escape>Zürich<escape>", "'x'", "[1, 2]", "{a:1}", "\x01"]


@st.composite
def json_bodies(draw):
    """Objects whose keys and values are in the dialects' forms (unquoted,
    non-ASCII word characters, custom string delimiters), or any mix of their pieces."""
    if draw(st.booleans()):
        pairs = draw(st.lists(st.tuples(st.sampled_from(KEYS), st.sampled_from(VALUES)), max_size=4))
        sep = draw(st.sampled_from([",", ", "]))
        return "{" + sep.join(f"{key}:{value}" for key, value in pairs) + "}"
    return "".join(draw(st.lists(st.sampled_from(KEYS + VALUES + ["{", "}", ",", ":", " "]), max_size=12)))


DIALECTS = [
    {},
    {"unquoted_keys": True},
    {"string_delims": [['<|"|>', '<|"|>']], "unquoted_keys": True},
    {"string_delims": [["<escape>", "<escape>"]], "unquoted_keys": True, "allow_non_json": True},
    {"string_delims": [["<escape>", "<escape>"], ["'", "'"]]},
    {"string_delims": [["", ""]], "unquoted_keys": True},
    {"string_delims": [["<escape>", ""]]},
]


@settings(max_examples=EXAMPLES * 4, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=json_bodies(), args=st.sampled_from(DIALECTS))
def test_json_dialects_match_reference(text, args):
    """The json content parser (run at every call's close), on bodies in its
    dialects: ASCII bodies take the standard `re` module for unquoted keys,
    others (and empty string delimiters) the `regex` module, as the reference."""
    from transformers.utils.chat_parsing.content_parsers import parse_content as reference

    from runtime.core import parse_content

    def outcome(parse):
        try:
            return ("value", parse(text, "json", args))
        except Exception as error:  # noqa: BLE001 - compared by class
            return ("error", type(error).__name__)

    expected, actual = outcome(reference), outcome(parse_content)
    assert same(expected, actual), (text, args, expected, actual)
