"""Pattern.search (trigger-directed) gives what the regex module's own
partial search gives, on random patterns of the shapes templates use."""

from __future__ import annotations

import os

import regex
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from compiler.passes.fast_path import fast_path_of
from compiler.backends.python.module import _delimiter_code  # noqa: F401 - the emitted form is exercised elsewhere
from compiler.ir import RegexDelimiter
from compiler.regex import parse
from runtime.core import Lead, Pattern

LEADS = ["", r"\s*", r"\s+", r"\n*", " ?", r"\s{0,2}", r"\n*\s*", r"[ \t]*", r"\s*?"]
GUARDS = ["", r"(?<=\})", r"(?<![a-z])", r"(?=<)"]
RESTS = [
    "<tool_call>",
    "<a>|<b>",
    r"<\|im_end\|>|<\|endoftext\|>",
    "(?:<x>)?<y>",
    r"<t(?P<n>\w+)>",
    r"</c>(?:(?=\s*(?:<d>|<e>))|\s*\Z)",
    r"<p>\s*<q>",
    "(?:<|>)z",
    "\n<n>",
    r"<\|end\|>",
]
ALPHABET = [
    " ",
    "\n",
    "\t",
    "<",
    ">",
    "a",
    "b",
    "t",
    "x",
    "y",
    "z",
    "}",
    "/",
    "c",
    "d",
    "p",
    "q",
    "é",
    "\u3000",
    "<tool_call>",
    "<a>",
    "</c>",
    "<p>",
    "<|end|>",
    "<t",
    "<tool_",
    "</",
    "<|",
    "<|en",
    "<p",
]


def build(source: str) -> Pattern:
    hint = fast_path_of(RegexDelimiter("x", source, (), 1, ast=parse(source)))
    if hint is None:
        return Pattern(source)
    leads = {lead: Lead(lead.source, lead.ascii) for lead in hint.leads}
    return Pattern(
        source,
        triggers=hint.triggers,
        leads=tuple(leads.values()),
        first_lead=leads[hint.hold_lead] if hint.hold_lead is not None else None,
        exact=hint.exact,
        simple=hint.simple,
    )


def normalise(match, size):
    if match is None or (match.partial and match.start() == match.end() == size):
        return None
    # Captures of partial matches are never used (partial matches do not commit).
    return (match.span(), bool(match.partial), None if match.partial else match.groupdict())


@settings(
    max_examples=int(os.environ.get("PATTERN_EXAMPLES", "3000")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(
    st.sampled_from(GUARDS),
    st.sampled_from(LEADS),
    st.sampled_from(RESTS),
    st.lists(st.sampled_from(ALPHABET), max_size=14),
    st.data(),
)
def test_search_matches_regex_partial_search(guard, lead, rest, pieces, data):
    source = guard + lead + (f"(?:{rest})" if "|" in rest else rest)
    pattern = build(source)
    text = "".join(pieces)
    pos = data.draw(st.integers(0, len(text)))
    compiled = regex.compile(source, regex.DOTALL)
    for partial in (True, False):
        expected = normalise(compiled.search(text, pos, partial=partial), len(text))
        assert normalise(pattern.search(text, pos, partial), len(text)) == expected, (source, text, pos, partial)


def test_hints_exist_for_the_common_shapes():
    assert build(r"\s*<tool_call>").triggers == ("<tool_call>",)
    assert build(r"\s*<tool_call>").first_lead is not None
    assert build(r"(?<=\})\s*</tool_call>").first_lead is None  # a skipped look-behind may fail
    assert build(r"(?:^|<think>)").triggers is None  # can match empty
    assert build(r"\s*?<a>").triggers is None  # lazy: the regex module reports odd partial matches


@settings(
    max_examples=int(os.environ.get("PATTERN_EXAMPLES", "3000")) // 5,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(
    st.sampled_from(GUARDS),
    st.sampled_from(LEADS),
    st.sampled_from([rest for rest in RESTS if "|" in rest]),
    st.lists(st.sampled_from(ALPHABET), max_size=14),
    st.data(),
)
def test_search_over_long_text_matches_regex_partial_search(guard, lead, rest, pieces, data):
    """Over more than LONG_TEXT characters, several trigger strings are
    found in one pass of their alternation (Pattern.finder)."""
    from runtime.core import LONG_TEXT

    source = guard + lead + f"(?:{rest})"
    pattern = build(source)
    cut = data.draw(st.integers(0, len(pieces)))
    text = "".join(pieces[:cut]) + "ab" * (LONG_TEXT // 2 + 1) + "".join(pieces[cut:])
    pos = data.draw(st.sampled_from([0, len("".join(pieces[:cut]))]))
    compiled = regex.compile(source, regex.DOTALL)
    for partial in (True, False):
        expected = normalise(compiled.search(text, pos, partial=partial), len(text))
        assert normalise(pattern.search(text, pos, partial), len(text)) == expected, (source, text, pos, partial)


@settings(
    max_examples=int(os.environ.get("PATTERN_EXAMPLES", "3000")) // 5,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(
    st.sampled_from(GUARDS),
    st.sampled_from(LEADS),
    st.sampled_from([rest for rest in RESTS if "|" in rest]),
    st.lists(st.tuples(st.sampled_from(ALPHABET), st.integers(0, 900)), min_size=1, max_size=14),
    st.data(),
)
def test_search_over_long_text_with_triggers_throughout(guard, lead, rest, pieces, data):
    """Trigger strings spread over a long text: without a common start,
    each string's next occurrence is remembered for the search (`ahead`),
    so one that occurs rarely is not read to the end after each other."""
    from runtime.core import LONG_TEXT

    source = guard + lead + f"(?:{rest})"
    pattern = build(source)
    text = "".join(piece + "ab" * gap for piece, gap in pieces)
    text += "ab" * max(0, (LONG_TEXT - len(text)) // 2 + 1) + data.draw(st.sampled_from(ALPHABET))
    pos = data.draw(st.integers(0, len(text) - LONG_TEXT - 1))
    compiled = regex.compile(source, regex.DOTALL)
    for partial in (True, False):
        expected = normalise(compiled.search(text, pos, partial=partial), len(text))
        assert normalise(pattern.search(text, pos, partial), len(text)) == expected, (source, text, pos, partial)


def test_triggers_with_a_common_start_get_one_finder():
    assert build(r"\s*(?:<\|im_end\|>|<\|endoftext\|>)").finder is not None
    assert build(r"\s*(?:<a>|<b>)").finder is None  # `<` alone: one bounded str.find per string
    assert build(r"\s*<tool_call>").finder is None


def test_long_text_finder_on_every_shape():
    """Each trigger string of each several-trigger shape, before and after a
    long filler (str.find per string, or one pass of the alternation)."""
    from runtime.core import LONG_TEXT

    filler = "ab" * (LONG_TEXT // 2 + 1)
    heads = ["x<b>", " \n<a>y", "<|endoftext|>", "z <|im_end|>", ">z", "<z", "}<a>", "<", "</c>"]
    for guard in GUARDS:
        for lead in LEADS:
            for rest in (rest for rest in RESTS if "|" in rest):
                source = guard + lead + f"(?:{rest})"
                pattern = build(source)
                compiled = regex.compile(source, regex.DOTALL)
                for head in heads:
                    for text in (head + filler, filler + head, head + filler + head):
                        for partial in (True, False):
                            expected = normalise(compiled.search(text, 0, partial=partial), len(text))
                            assert normalise(pattern.search(text, 0, partial), len(text)) == expected, (source, head)


def test_long_text_trigger_starting_inside_the_best_one():
    """`bcd` starts inside `ab` (at `abcd`): while `ab` is the best start so
    far, `bcd` is looked for only up to it, and what is known absent must
    end where a `bcd` starting after `ab`'s start could begin; `ab` fails
    there (no `x` after it), so the match is the `bcd`."""
    from runtime.core import LONG_TEXT

    source = "ab(?=x)|bcd"
    pattern = Pattern(source, triggers=("ab", "bcd"))
    compiled = regex.compile(source, regex.DOTALL)
    for text in ("y" * LONG_TEXT + "abcd" + "y" * 10, "ab" + "y" * LONG_TEXT + "abcd", "y" * (LONG_TEXT + 5) + "abcab"):
        for partial in (True, False):
            expected = normalise(compiled.search(text, 0, partial=partial), len(text))
            assert normalise(pattern.search(text, 0, partial), len(text)) == expected, (text[-12:], partial)
