"""compiler.regex.analysis.closing_literals: every match of the pattern
consumes one of the literals it names (the streaming parser skips the search
for a complete match in a text that holds none of them), on random patterns
and texts, on the templates' delimiters, and on hand-picked shapes."""

from __future__ import annotations

import regex
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from compiler.regex import parse, to_source
from compiler.regex.analysis import closing_literals
from compiler.regex.nodes import Regex
from regex_strategies import patterns, texts


def _matches(compiled, text):
    """Every complete match, from every start position."""
    for start in range(len(text) + 1):
        found = compiled.match(text, start)
        if found is not None:
            yield found.group()


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(patterns(), st.lists(texts, min_size=1, max_size=6))
def test_every_match_consumes_a_closing_literal(node, samples):
    ends = closing_literals(Regex(node))
    if not ends:
        return
    compiled = regex.compile(to_source(Regex(node)), regex.DOTALL)
    for text in samples:
        # texts built around the literals, so that matches happen
        for sample in (text, ends[0] + text, text + ends[-1], text + ends[0] + text):
            for matched in _matches(compiled, sample):
                assert any(end in matched for end in ends), (to_source(Regex(node)), sample, matched, ends)


def test_shapes():
    cases = {
        "\\s*(?:<\\|start\\|>assistant\\s*)?(?:\\w+\\s*)?<\\|message\\|>": ("<|message|>",),
        "<\\|call\\|>(?:(?=\\s*<\\|start\\|>)|\\s*\\Z)": ("<|call|>",),
        "</tool_call>\\s*": ("</tool_call>",),
        "(?:a|bc)+\\s*": ("a", "bc"),
        "(?:ab)?c": ("c",),
        "x(?i:AB)": ("x",),  # a case-insensitive run is not a literal
        "ab(?=cd)": ("ab",),  # nor is a look-ahead's
        "<\\|end\\|>|(?=\\s*<\\|start\\|>)": (),  # a branch consumes nothing
        "\\w+": (),
        "(?:a)*b*": (),
    }
    for source, expected in cases.items():
        assert closing_literals(parse(source)) == expected, source
