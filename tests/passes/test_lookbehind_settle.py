"""compiler/passes/lookbehind_settle.py and runtime `Settled`: the smaller patterns
a long text searches with once its look-behind branches are settled. They
must find what the original pattern finds, complete and partial, span and
groups, whenever `Settled.choose` picks one; checked on the `regex` module
itself and on the parsers against the reference."""

from __future__ import annotations

import functools
import os

import pytest
import regex
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from benchmarks.shapes import NotApplicable, mixed_stream, template_names
from compiler.ir import RegexDelimiter
from compiler.passes.lookbehind_settle import Settled, settled_of
from compiler.regex.syntax import parse
from conftest import load_generated
from differential import assert_same_behaviour, assert_same_whole
from runtime import core
from calls_vocabulary import _vocabulary

EXAMPLES = int(os.environ.get("DIFF_EXAMPLES", "120"))

module_of = functools.cache(load_generated)


def _delimiter(pattern: str) -> RegexDelimiter:
    return RegexDelimiter("p", pattern, (), -1, ast=parse(pattern))


def _settled_delimiters():
    """(template, field, runtime Pattern) for every delimiter with a Settled."""
    out = []
    for name in template_names():
        for field in module_of(name).FIELDS:
            for delim in (field.open, field.close):
                if delim is not None and getattr(delim, "settled", None) is not None:
                    out.append((name, field.name, delim))
    return out


SETTLED = _settled_delimiters()


def test_the_bundled_look_behind_alternations_are_settled():
    assert sorted((name, field) for name, field, _ in SETTLED) == [
        ("apertus", "tool_calls"),
        ("lfm2", "tool_calls"),
        ("llama4_pythonic", "tool_calls"),
        ("olmo3", "tool_calls"),
    ]


def test_llama4_open_settles_both_branches():
    pattern = (
        r"(?:^\s*\[|\s*<\|python_start\|>\s*\[|(?<=^\s*\[.*\))\s*,"
        r"|(?<=<\|python_start\|>\s*\[(?:(?!<\|python_end\|>).)*\))\s*,)\s*(?P<name>[A-Za-z_][\w.]*)\("
    )
    assert settled_of(_delimiter(pattern)) == Settled(
        dead=r"(?:^\s*\[|\s*<\|python_start\|>\s*\[)\s*(?P<name>[A-Za-z_][\w.]*)\(",
        alive=r"(?:^\s*\[|\s*<\|python_start\|>\s*\[|(?<=\))\s*,)\s*(?P<name>[A-Za-z_][\w.]*)\(",
        anchored=r"\A(?:\s*\[)",
        tail=1,
        # `\s*` gives characters back by a forward search for the literal: a
        # whitespace character before `[` may make a partial match.
        absent=(("<|python_start|>", r"\s\["),),
    )


@pytest.mark.parametrize(
    "pattern, settled",
    [
        # A literal head, no one-character repeat after it: no probe.
        (r"(?:a|(?<=<s>(?:(?!</s>).)*\}),)x", Settled("ax", None, None, 0, (("<s>", None),))),
        # Two characters of tail: `(?<=T)` reads both. One branch left: no group.
        (r"(?:a|(?<=^\[.*\)\]),)x", Settled("ax", r"(?:a|(?<=\)\]),)x", r"\A(?:\[)", 2, ())),
    ],
)
def test_settled_rules(pattern, settled):
    assert settled_of(_delimiter(pattern)) == settled


@pytest.mark.parametrize(
    "pattern",
    [
        r"(?:a|(?<=^\[.*\)),)x(?<=x)",  # another look-behind after the alternation still walks
        r"(?:(?<=^\[.*\)),)x",  # nothing would be left of the dead pattern
        r"(?:a|(?<=^ab\s*\[.*\)),)x",  # `\s*` searches for `ab` forwards inside the anchored look-behind
        r"(?:a|(?<=^\[.*\)+),)x",  # a tail of no fixed width
        r"(?:a|(?<=<s>(?:(?!</s>).)*>),)x",  # the tempered look-ahead could read up to the end at `>`
        r"(?:a|(?<=<s>(?:(?!</s>).)*(\))),)x",  # a group in a dropped branch
        r"a(?<=^\[.*\))",  # no leading alternation
    ],
)
def test_unsettled_patterns(pattern):
    assert settled_of(_delimiter(pattern)) is None


@pytest.mark.parametrize("name, field, delim", SETTLED, ids=[f"{n}-{f}" for n, f, _ in SETTLED])
def test_settled_patterns_are_searched_by_their_trigger_strings(name, field, delim):
    """Each smaller pattern has trigger strings, so the runtime runs the
    regex only where one occurs: a plain regex search of a long text in
    partial mode tries every position of each whitespace run again (the
    `regex` module), which made apertus's whole texts 1.7x while the dead
    pattern was emitted without them."""
    for pattern in (delim.settled.dead, delim.settled.alive):
        if pattern is not None:
            assert pattern.triggers, pattern


def _outcome(match):
    return None if match is None else (match.span(), match.partial, match.groupdict())


@functools.cache
def _pieces(name: str):
    try:
        _prefix, calls, pieces = _vocabulary(name)
    except NotApplicable:  # pragma: no cover - every settled template has calls
        calls, pieces = [], []
    edges = ["[", "]", ")", "}", "(", ",", " ,", " ", "\n", "\t", "x", "a", "f(", "f(a=1)", "[f(a=1)", ") ,", "\n["]
    edges += [
        " [",
        "\t[",
        "\n, g(",
        "<|python_start|>",
        "<|python_end|>",
        "<|py",
        "<function_calls>",
        "</function_calls>",
    ]
    edges += ["<|tools_prefix|>", "<|tools_suffix|>", "<|tool_call_start|>", "<|tool_call_end|>", '{"name": "f"', "},"]
    return list(dict.fromkeys(calls + pieces + edges))


@pytest.mark.parametrize("name, field, delim", SETTLED, ids=[f"{n}-{f}" for n, f, _ in SETTLED])
@settings(max_examples=EXAMPLES * 4, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_a_chosen_pattern_searches_as_the_original(name, field, delim, data):
    """On any text and read position where `choose` picks a smaller pattern,
    the `regex` module finds the same with it as with the original, partial
    or not; so does the runtime's trigger-driven search of it (which may
    leave out an empty partial match at the very end)."""
    text = "".join(data.draw(st.lists(st.sampled_from(_pieces(name)), max_size=12)))
    pos = data.draw(st.integers(0, len(text)))
    chosen = delim.settled.choose(text, pos, 0, {})
    if chosen is None:
        return
    for partial in (True, False):
        expected = _outcome(delim.compiled.search(text, pos, partial=partial))
        assert _outcome(chosen.compiled.search(text, pos, partial=partial)) == expected, (text, pos, partial)
        found = _outcome(chosen.search(text, pos, partial))
        if found is None and expected is not None and expected[0] == (len(text), len(text)):
            continue  # an empty partial match at the end holds nothing back (Pattern.search)
        if found is not None and found[1]:
            expected = expected and expected[:2]  # a partial match's groups are never read (it does not commit)
            found = found[:2]
        assert found == expected, (text, pos, partial)


def _long_text(draw, name, size):
    pieces = _pieces(name)
    words = ["the", " plan", " (see", " notes)", " and", " then", ",", " more", ".\n", " [1]", " x)", " ,", "\n\n"]
    parts = draw(st.lists(st.sampled_from(pieces + words), min_size=1, max_size=20))
    text = "".join(parts)
    filler = "".join(draw(st.lists(st.sampled_from(words), min_size=8, max_size=8)))
    while len(text) < size:
        text += filler
    tail = "".join(draw(st.lists(st.sampled_from(pieces + words), max_size=6)))
    return text + tail


@pytest.mark.parametrize("name", sorted({n for n, _, _ in SETTLED}))
@settings(
    max_examples=EXAMPLES // 2, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large]
)
@given(data=st.data())
def test_long_texts_with_settled_branches_match_reference(name, data):
    """Texts past LONG_TEXT, where the parser searches with the settled
    patterns: with a call first or not, the heads and probes present or
    not, against the reference, whole and in two chunks."""
    module = module_of(name)
    prefix, calls, _ = _vocabulary(name)
    text = data.draw(st.sampled_from(["", *calls])) + _long_text(data.draw, name, core.LONG_TEXT + 200)
    prefix = data.draw(st.sampled_from([prefix, ""]))
    from benchmarks.shapes import load_template

    template = load_template(name)
    assert_same_whole(template, module, prefix, text)
    cut = data.draw(st.integers(0, len(text)))
    assert_same_behaviour(template, module, prefix, [text[:cut], text[cut:]])


def test_the_benchmark_whole_text_searches_the_settled_pattern(monkeypatch):
    """llama4_pythonic's whole text (a call, then 70,000 characters of prose
    with `)` and no `,`): each long search of the open runs the alive
    pattern, which has trigger strings, never the original, whose two
    look-behinds walk back to the start at every `)` (1.8 s in all, as
    long as the reference takes)."""
    module = module_of("llama4_pythonic")
    stream = mixed_stream("llama4_pythonic", 20000)
    open_delim = module.FIELDS[0].open
    searched = []
    original = core.Pattern.search

    def recording(self, buf, pos, partial):
        if len(buf) - pos > core.LONG_TEXT:
            searched.append(self)
        return original(self, buf, pos, partial)

    monkeypatch.setattr(core.Pattern, "search", recording)
    message = module.parse_response(stream.text, prefix=stream.prefix)
    assert message["tool_calls"] and len(message["content"]) > 60000
    assert open_delim.settled.alive in searched
    # Only the first search, from the start (the head's end is not behind
    # it yet), runs the original: it stops at the call there.
    assert searched.count(open_delim) == 1


def test_a_stream_that_keeps_all_of_its_text_searches_the_settled_pattern(monkeypatch):
    """The same text streamed token by token: it starts with `[`, so the
    anchored look-behind is alive and no ContextCut may drop any of it; the
    searches after the first run the alive pattern over that growing
    buffer, not the original (whose walks made the stream quadratic: 25x
    the time per token from 8k to 128k tokens)."""
    module = module_of("llama4_pythonic")
    stream = mixed_stream("llama4_pythonic", 3000, seed=5)
    open_delim = module.FIELDS[0].open
    searched = []
    original = core.Pattern.search

    def recording(self, buf, pos, partial):
        searched.append((self, len(buf)))
        return original(self, buf, pos, partial)

    monkeypatch.setattr(core.Pattern, "search", recording)
    parser = module.ResponseParser(stream.prefix)
    for token in stream.tokens:
        parser.feed(token)
    message, _ = parser.finalize()
    assert message["tool_calls"] and stream.text.startswith("[")
    long_searches = [delim for delim, size in searched if size > 2000]
    assert long_searches.count(open_delim.settled.alive) > 10
    assert open_delim not in long_searches
