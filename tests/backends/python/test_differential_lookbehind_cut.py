"""The templates whose look-behinds are unbounded but provably confined
(compiler/passes/lookbehind_reach.py) drop the text no look-behind can read any
more (`ContextCut`, `ContextCut.cut`), so their buffer stays short.
Checked against the reference on streams built to
meet the cut's edges: barriers whole and split, the look-behinds' last
characters right after a barrier, the anchored head at the start of the text
or not, and the sentinel character itself in the text."""

from __future__ import annotations

import functools
import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from benchmarks.shapes import NotApplicable, load_template, shape_stream, template_names
from conftest import load_generated
from differential import assert_same_behaviour
from calls_vocabulary import TOOLS, _vocabulary

EXAMPLES = int(os.environ.get("DIFF_EXAMPLES", "120"))

module_of = functools.cache(load_generated)


def _cut_templates(kind):
    names = []
    for name in template_names():
        cut = getattr(module_of(name).ResponseParser, "CUT", None)
        if cut is not None and getattr(cut, kind):
            names.append(name)
    return names


CUT_TEMPLATES = _cut_templates("barriers")
COUNTED_TEMPLATES = _cut_templates("counted")


def test_the_unbounded_templates_are_cut():
    """The four templates whose look-behinds are tempered repeats get a
    barrier cut; the GLM-style call close (glm45, glm47 and ling3 share it),
    whose `\\s*` alternation holds at most two `<`, a counted one."""
    assert set(CUT_TEMPLATES) >= {"apertus", "lfm2", "olmo3", "llama4_pythonic"}
    assert COUNTED_TEMPLATES == ["glm45", "glm47", "ling3"]


@functools.cache
def _pieces(name: str):
    cut = module_of(name).ResponseParser.CUT
    try:
        prefix, calls, pieces = _vocabulary(name)
    except NotApplicable:  # pragma: no cover - every cut template has calls
        prefix, calls, pieces = "", [], []
    edges = []
    for barrier, _after, _before, head, _lead in cut.barriers:
        for literal in (barrier, head) if head else (barrier,):
            edges += [literal, literal[:1], literal[1:], literal[: len(literal) // 2], literal[len(literal) // 2 :]]
    edges += [
        "}",
        ")",
        "]",
        "[",
        ",",
        " ,",
        "\n",
        " ",
        "\t",
        "x",
        "()",
        "[f(a=1)",
        "{}",
        cut.sentinel or "\x00",
        "\x00",
    ]
    edges += [")\n", " )\n", "Some words", " f(x)", "},"]  # a look-behind's last character, then its tail
    edges += [" [", "\n [", " \n", "<|python_start|> "]  # llama4_pythonic's head `\s*\[` after the cut
    return prefix, calls, list(dict.fromkeys(pieces + edges))


@pytest.mark.parametrize("name", CUT_TEMPLATES)
@settings(
    max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large]
)
@given(data=st.data())
def test_cut_streams_match_reference(name, data):
    _drawn_stream_matches_reference(name, data, _pieces(name), ["[", " \n"], 30)


def _drawn_stream_matches_reference(name, data, vocabulary, prefix_tails, max_chunks):
    """A stream drawn from the template's calls and the cut's pieces, after
    the sample prefix (bare, with each of `prefix_tails`, or none), with and
    without tools, against the reference."""
    prefix, calls, pieces = vocabulary
    token = st.one_of(st.sampled_from(calls), st.sampled_from(pieces), st.sampled_from(pieces))
    chunks = data.draw(st.lists(token, min_size=1, max_size=max_chunks))
    prefix = data.draw(st.sampled_from([prefix, ""] + [prefix + tail for tail in prefix_tails]))
    tools = data.draw(st.sampled_from([None, TOOLS]))
    assert_same_behaviour(load_template(name), module_of(name), prefix, chunks, tools)


@pytest.mark.parametrize("name", CUT_TEMPLATES)
@pytest.mark.parametrize("shape", ["content_newline", "code"])
def test_region_shapes_after_a_cut_match_reference(name, shape):
    """Content with the look-behinds' last characters (`)` then a newline,
    `}` then `,`) and no head before them: the text before the read
    position goes (the look-behind would find no head in it), then a head
    arrives and the text from it on is kept."""
    module = module_of(name)
    stream = shape_stream(name, shape, 300, module)
    head = module.ResponseParser.CUT.barriers[0][3] or "["
    tail = [")", "\n", " \n ", head, "f(", "x=1)", "\n", "g(", ")", ",", "}", " ,", "x"]
    assert_same_behaviour(load_template(name), module, stream.prefix, stream.tokens + tail)


@pytest.mark.parametrize("name", CUT_TEMPLATES)
def test_many_calls_after_a_cut_match_reference(name):
    """Enough calls for several cuts, then text that
    the look-behinds read right after the last barrier."""
    module = module_of(name)
    stream = shape_stream(name, "calls", 40, module)
    barrier = module.ResponseParser.CUT.barriers[0][0]
    tails = (
        ["}", " ,", "x"],
        [")", "\n", "f("],
        [")", " , get_weather(", "x"],
        ["}", ' , {"get_weather":', "x"],
        [barrier, ")", ","],
        [barrier, "}", ' ,{"f":', "x"],
        [barrier, ")", "\n", "f(", "x"],
        ["\x00", "[", ")", ", f(", "x"],
    )
    for tail in tails:
        assert_same_behaviour(load_template(name), module, stream.prefix, stream.tokens + tail)
    parser = module.ResponseParser(stream.prefix)
    for token in stream.tokens:
        parser.feed(token)
    assert parser._base > 0  # the cut happened


def test_llama4_head_alive_keeps_the_text():
    """llama4_pythonic's `(?<=^\\s*\\[.*\\))` is alive when the text starts
    with `[`: its look-behind reads back to the start, so nothing is cut
    (the calls run long, so cuts are tried all along)."""
    name = "llama4_pythonic"
    module = module_of(name)
    prefix = "<|header_start|>assistant<|header_end|>\n\n"
    chunks = (
        ["[get_weather(", 'city="Oslo"', "), ", "get_weather(", 'city="Paris"', ")]"]
        + ["<|python_start|>[f(", "a=1", ")]<|python_end|>"] * 12
        + ["[g(", "b=2), h(c=3)]"]
    )
    assert_same_behaviour(load_template(name), module, prefix, chunks)
    parser = module.ResponseParser(prefix)
    for chunk in chunks:
        parser.feed(chunk)
    assert parser._anchored_state is False and parser._base == 0


def test_llama4_dead_head_puts_the_sentinel():
    """When the text cannot start with `\\s*\\[`, the cut text starts with
    the sentinel, on which `^\\s*\\[` fails as on the real start."""
    module = module_of("llama4_pythonic")
    parser = module.ResponseParser("")
    for _ in range(5):
        for chunk in ("<|python_start|>[get_weather(", 'city="Oslo"', ")]<|python_end|>"):
            parser.feed(chunk)
    assert parser._anchored_state is True and parser._base > 0
    assert parser._buf[0] == module.ResponseParser.CUT.sentinel


@functools.cache
def _counted_pieces(name: str):
    """Calls, and pieces that put the counted character, the look-behind's
    literals and its class runs on either side of the cut."""
    prefix, calls, pieces = _vocabulary(name)
    edges = ["<", "<<", "< ", " <", "</", "<tool_call>", "</tool_call>", "</arg_value>", "<arg_value>", "<arg_key>"]
    edges += ["</arg_key>", "get_weather", "x", "a b", " ", "\n", "\t", "  \n", "</tool_", "call>", "<tool_call> f"]
    edges += ["</arg_value> ", "</arg_value>\n</tool_call>", "name\n </tool_call>", "<think>", "</think>"]
    return prefix, calls, list(dict.fromkeys(pieces + edges))


@pytest.mark.parametrize("name", COUNTED_TEMPLATES)
@settings(
    max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large]
)
@given(data=st.data())
def test_counted_cut_streams_match_reference(name, data):
    _drawn_stream_matches_reference(name, data, _counted_pieces(name), ["<", "<tool_call>f"], 40)


@pytest.mark.parametrize("name", COUNTED_TEMPLATES)
def test_many_calls_after_a_counted_cut_match_reference(name):
    """Enough calls for many cuts, then closes
    whose look-behind reads back across the last `<` characters: a name run,
    a whitespace run, the argument's close."""
    module = module_of(name)
    stream = shape_stream(name, "calls", 40, module)
    tails = (
        ["<tool_call>", "f", " \n ", "</tool_call>"],
        ["<tool_call>f", "<arg_key>a</arg_key><arg_value>1</arg_value>", "\n\n", "</tool_call>", "x"],
        ["<", "<", "<tool_call>", "g", "</tool_call>"],
        ["a<b<c", "</arg_value>", "</tool_call>"],
        ["<tool_call>f<arg_key>a</arg_key><arg_value>", "<<<", "</arg_value>", "</tool_call>"],
    )
    for tail in tails:
        assert_same_behaviour(load_template(name), module, stream.prefix, stream.tokens + tail)
    parser = module.ResponseParser(stream.prefix)
    for token in stream.tokens:
        parser.feed(token)
    assert parser._base > 0  # the cut happened
    assert len(parser._buf) < 200  # only the text from the third-last `<` on is kept
