"""The general step's choice among a state's delimiters when a buffer holds
several matches (SPEC step 3), against the reference.

`StreamParser._scan` looks at the watched delimiters in their listed order
and keeps the best match so far; one found after the best is skipped, and
the delimiters listed after it must still be looked at: one of them may
match at the best's start with a longer match (it wins), or hold a partial
match that starts before it (nothing is committed yet). Literal delimiters
are searched only up to the best start, so a match after it comes from a
pattern; the cases here put such a pattern between the best and a
delimiter that decides. The mutation run found this unpinned (mutant
`runtime.stream.xǁStreamParserǁ_scan__mutmut_131`: `continue` -> `break`);
part of mutmut's selection (pyproject.toml).
"""

from __future__ import annotations

import pytest

from differential import assert_same_behaviour

LONGER_AT_THE_SAME_START = {
    "start_anchor": "<s>",
    "fields": {
        "e": {"open": "<t>", "close": "</e>"},
        "k": {"open_pattern": r"<u\d+>", "close": "</k>"},
        "j": {"open_pattern": r"<t>\d+", "close": "</j>"},
        "content": {},
    },
}

PARTIAL_BEFORE_THE_BEST = {
    "start_anchor": "<s>",
    "fields": {
        "e": {"open_pattern": r"<t\d+>", "close": "</e>"},
        "k": {"open_pattern": r"<u\d+>", "close": "</k>"},
        "j": {"open_pattern": r"<x[^>]*>", "close": "</j>"},
        "content": {},
    },
}

CASES = [
    (LONGER_AT_THE_SAME_START, "<t>1 <u2> rest</j>"),
    (LONGER_AT_THE_SAME_START, "a<t>1 <u2> rest</j>"),
    (LONGER_AT_THE_SAME_START, "<t>12 <u3></k>"),
    (PARTIAL_BEFORE_THE_BEST, "<x yy <t1> <u2> zz"),
    (PARTIAL_BEFORE_THE_BEST, "<x y<t1>q<u2>></j>"),
]


@pytest.mark.parametrize("template, text", CASES, ids=[f"{i}" for i in range(len(CASES))])
def test_delimiters_listed_after_a_later_match_still_decide(template, text):
    from compiler import compile_template

    module = compile_template(template, name="scan_order")
    for chunks in ([text], list(text), [text[:3], text[3:]]):
        assert_same_behaviour(template, module, "", chunks)
