"""The Python backend's per-alternative search hints (compiler/passes/branches.py)
against the reference: delimiters whose alternatives start with a look-behind,
a look-ahead or an anchor, streamed in the token shapes the fast paths take
(tokens ending in whitespace, lone `<`, delimiter prefixes), whole and cut.

Python only: the JavaScript and Go backends do not read these hints."""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from differential import assert_same_behaviour
from shapes import Shape
from differential import cases

EXAMPLES = int(os.environ.get("DIFF_EXAMPLES", "120"))

# Reasoning closed by a literal, at a call (look-ahead only), or between
# two opens (look-behind then look-ahead); calls opened at the start of the
# text (`^`), after `;` (look-behind) or by a literal; closed after `}`
# (look-behind) or before a line of prose (look-ahead after the brace).
BRANCHES = {
    "version": 1,
    "start_anchor": "<|assistant|>",
    "fields": {
        "reasoning_content": {
            "open": "<think>",
            "close_pattern": r"</think>|(?=\s*<call>\s*\{)|(?<=<think>)\s*(?=<think>)|(?<=\.)\s*(?=Answer:)",
        },
        "tool_calls": {
            "open_pattern": r"(?:^|(?<=;))\s*\{\s*\"name\":|\s*<call>",
            "close_pattern": r"(?<=\})\s*</call>|(?<=\})\s*;(?=\s*\{)|\s*\}(?=[ \t]*\n\s*[A-Za-z])",
            "repeats": True,
        },
        "content": {"close_pattern": r"\s*(?:<end>|<eos>)\s*"},
    },
}

WHITESPACE_TOKENS = [
    "word ",
    "word\n",
    ".\n",
    ":\n",
    "\n    ",
    "\n\n",
    " ",
    "\t",
    "<",
    "</",
    "<c",
    "<th",
    "; ",
    "} ",
    "}\n",
]

SHAPES = [
    Shape(
        "branches",
        BRANCHES,
        blocks=[
            "<think>\nI should call. \n\n</think>\n",
            "<think> plan \n",
            '<call>{"a": 1}</call>',
            ' \n<call> {"b": 2} \n</call>\n',
            '{"name": "f"} ;{"name": "g"}',
            '{"name": "f" }\n  Then prose.',
            "<think>\n<think>again</think>",
            "So. Answer: yes",
            "Done. <end>",
            "<eos> ",
        ],
        noise=WHITESPACE_TOKENS,
        prefixes=["", "<|assistant|>", "<|assistant|><think>\n", "<|user|>hi<|assistant|><think>\nbefore. "],
    ),
]


# A call opened by a newline after `)` (olmo3's pythonic calls): the trigger
# `\n` is a lead character of the content close, so the implicit state's
# scanner must never skip a whitespace run holding it.
NEWLINE_TRIGGER = {
    "version": 1,
    "start_anchor": "<|assistant|>",
    "fields": {
        "tool_calls": {
            "open_pattern": r"(?:\s*<calls>|(?<=\))[ \t]*\n)\s*(?P<name>[a-z]+)\(",
            "close_pattern": r"\)(?=[ \t]*\n\s*[a-z]+\()|\)\s*</calls>",
            "repeats": True,
            "transform": {"name": "{name}", "arguments": "{content}"},
        },
        "content": {"close_pattern": r"\s*<end>\s*"},
    },
}

SHAPES.append(
    Shape(
        "newline_trigger",
        NEWLINE_TRIGGER,
        blocks=[
            "Use f(x)\n  g(",
            "y)\n",
            "<calls>f(a)\n g(b)</calls>",
            "text \n\n",
            "a)\n\n  b(c) ",
            " <end>",
            "x) \t\nword",
        ],
        noise=WHITESPACE_TOKENS + [")", ")\n", " \n", "\n\n", "f(", "word\n  "],
        prefixes=["", "<|assistant|>", "<|user|>hi<|assistant|>call f(1)"],
    )
)


# Closes read by their look-behind (glm47's `(?<=...</tool_call>)`,
# magistral's `(?<=\})\s*\Z`): no trigger string follows the look-behind,
# so the scanner answers only when the character before the tail and the
# tail itself hold none of the look-behinds' last characters (`>`, `}`).
BEHIND = {
    "version": 1,
    "start_anchor": "<|assistant|>",
    "fields": {
        "reasoning_content": {"open": "<think>", "close_pattern": r"</think>|(?<=\.)(?=\s*<tool>)"},
        "tool_calls": {
            "open_pattern": r"\s*<tool>(?P<name>[a-z]+)>",
            "close_pattern": r"(?<=</args>)|(?<=\})(?=[ \t]*\n\s*[^\s<])|(?<=\})\s*\Z",
            "repeats": True,
            "transform": {"name": "{name}", "arguments": "{content}"},
        },
        "content": {"close_pattern": r"\s*<end>\s*|(?<=\])\s*\Z"},
    },
}

SHAPES.append(
    Shape(
        "behind",
        BEHIND,
        blocks=[
            "<think>plan.</think>",
            "<think>Call it. <tool>f>a=1</args>",
            '<tool>g>{"a": 1}',
            '<tool>g>{"b": {"c": 2}}\nThen prose.',
            "<tool>h>x</ar",
            "gs> after",
            "} \n",
            "text <end>",
            "}",
            "[1] ",
            "]",
        ],
        noise=WHITESPACE_TOKENS + ["}", ">", "]", "] ", "</args>", "</ar", "gs>", "}\n", "\nx", "} \n", " word", "."],
        prefixes=["", "<|assistant|>", "<|assistant|><tool>f>{", "<|assistant|><tool>f>a</args"],
    )
)

# Opens after `)` read by look-behinds from inside which the `regex` module
# reports partial matches that end in no trigger string (llama4_pythonic's
# open): one anchored at the text's start, one whose `\s*` gives characters
# back by searching forwards for `<py>` (compiler/regex/lookbehind_partial.py).
# The scanner sends text after a `)` to the search (Pattern.behind).
INSIDE = {
    "version": 1,
    "start_anchor": "<|assistant|>",
    "fields": {
        "tool_calls": {
            "open_pattern": r"(?:^\s*\[|\s*<py>\s*\[|(?<=^\s*\[.*\))\s*,|(?<=<py>\s*\[(?:(?!</py>).)*\))\s*,)"
            r"\s*(?P<name>[a-z]+)\(",
            "close_pattern": r"\)(?=\s*,\s*[a-z]+\()|\)\s*\]\s*</py>|\)\s*\]\s*\Z",
            "repeats": True,
            "transform": {"name": "{name}", "arguments": "{content}"},
        },
        "content": {"close_pattern": r"\s*<end>\s*"},
    },
}

SHAPES.append(
    Shape(
        "inside",
        INSIDE,
        blocks=[
            "[f(a), g(b)]",
            "Use f(x)\ng(",
            "<py>[f(x)]</py>",
            "<py> [f(a), g(",
            "b)]</py> then",
            "x) , y(",
            "text (note) , more",
            " <end>",
            "[f(a)]<end>r(c)\n]<end>",
            "r(c=1)\n]",
        ],
        noise=WHITESPACE_TOKENS
        + [")", ")\n", ") ", ",", " ,", "(", "[", "]", "\n]", "\ng(", "f(", "<py>", "</py>", "<p", "<end>"],
        prefixes=["", "<|assistant|>", "<|assistant|>[", "<|assistant|><py>[f(x"],
    )
)

# A reasoning open that only the text's start may hold (as granite's
# `^\s*(?:Here is|Here's) my thought process:`): at the start its trigger
# prefixes (`H`, `Here i`) and a whitespace run are partial matches; once
# anything is consumed the alternative is dead, and the scanner asked from
# then on (Scanner.later) routes them as plain text.
AT_START = {
    "version": 1,
    "start_anchor": "<|assistant|>",
    "fields": {
        "reasoning_content": {
            "open_pattern": r"^(?:\s*Here is|\s*Here's) my plan:|\s*<think>",
            "close_pattern": r"</think>|(?:Here is|Here's) my answer:",
        },
        "content": {"close_pattern": r"\s*<end>\s*"},
    },
}

SHAPES.append(
    Shape(
        "at_start",
        AT_START,
        blocks=[
            "Here is my plan: think. Here is my answer: yes",
            "  Here's my plan:",
            "He",
            "Here i",
            "s my plan: later",
            "Here's my answer: no <end>",
            "<think>a</think>",
            " Here is my plan: again",
        ],
        noise=WHITESPACE_TOKENS + ["H", "He", "Here", "Here i", "Here's", " my", " plan:", "Her", "\n  "],
        prefixes=["", "<|assistant|>", "<|assistant|>  ", "<|assistant|>Here i", "<|assistant|>Hi. "],
    )
)


# The same where the text's start is all the implicit state watches for
# (`\A`): once anything is consumed, no delimiter can match there.
START_ONLY = {
    "version": 1,
    "start_anchor": "<|assistant|>",
    "fields": {
        "reasoning_content": {"open_pattern": r"\A\s*<think>", "close": "</think>"},
        "content": {},
    },
}

SHAPES.append(
    Shape(
        "start_only",
        START_ONLY,
        blocks=["<think>a</think>b <think>c", " \n<think>", "<th", "ink>x", "y <think>z"],
        noise=WHITESPACE_TOKENS + ["<think>", "<t", "ink>", "</think>", "</th"],
        prefixes=["", "<|assistant|>", "<|assistant|> ", "<|assistant|><th", "<|assistant|>Hi "],
    )
)


def test_inside_shape_scans_after_its_look_behind_character(compiled):
    """The implicit state of the inside shape is scanned, but not right
    after the look-behinds' last character (StreamParser.BEHIND): it had no
    fast path while such look-behinds made the delimiter keep the plain search."""
    parser = compiled(SHAPES[3]).ResponseParser
    assert -1 in parser.SCANNED and parser.BEHIND[-1] == ")"


def test_behind_shape_is_scanned(compiled):
    """The look-behind closes give the tool-call state a scan that waits
    while the read position follows one of their characters."""
    parser = compiled(SHAPES[2]).ResponseParser
    close = parser.FIELDS[1].close
    assert close.behind == ">}" and close.triggers is None
    assert 1 in parser.SCANNED and parser.BEHIND[1] == ">}"
    # `(?<=\.)(?=\s*<tool>)` still gives a trigger string (its look-ahead's)
    assert 0 not in parser.BEHIND


def test_behind_stream_takes_the_fast_path(compiled):
    """Argument tokens after a look-behind close's last character are routed
    on the fast path once a token without it follows."""
    module = compiled(SHAPES[2])
    parser = module.ResponseParser("<|assistant|>")
    parser.feed("<tool>f>")
    assert parser._ready < 0 or parser._ready >= 1000  # right after `>`: only the search can tell
    parser.feed("a")
    parser.feed("b")
    assert parser._ready == 1
    parser.feed("}")
    assert parser._ready != 1
    parser.feed(" ")
    parser.feed("x")
    message, _ = parser.finalize()
    assert message["tool_calls"] == [{"name": "f", "arguments": "ab} x"}]


def test_newline_trigger_shape_searches_a_newline(compiled):
    """In the newline-trigger shape a newline is a trigger string that is a
    lead character too: text holding one is searched, never held as a run."""
    module = compiled(SHAPES[1])
    parser = module.ResponseParser
    assert -1 in parser.SCANNED and -1 not in parser.HOLD_LEAD


def _program(shape):
    from compiler.frontend import source as sources
    from compiler.pipeline import to_program

    return to_program(sources.from_dict(shape.template, name=shape.name))


def test_every_delimiter_gets_branch_hints(compiled):
    """The shape exercises the hints: each regex delimiter is read branch by
    branch, and every state is scanned (compiler/passes/scan_plan.py)."""
    parser = compiled(SHAPES[0]).ResponseParser
    for field in parser.FIELDS:
        for delim in (field.open, field.close):
            if delim is not None and delim.literals is None:
                assert delim.triggers is not None, delim.pattern
    for field in _program(SHAPES[0]).fields:
        if field.name != "content":
            for delim in (field.open, field.close):
                if delim is not None and not hasattr(delim, "literals"):
                    assert delim.branches is not None, delim.pattern
    assert set(parser.SCANNED) == set(parser.WATCH)


def test_at_start_alternative_is_left_to_the_search_at_the_start(compiled):
    """An alternative that matches only where the text starts (`^`) is left
    out of the implicit state's scan, which is therefore not asked before
    anything is consumed; from then on `Here i` is text like any other."""
    module = compiled(SHAPES[4])
    parser_class = module.ResponseParser
    branches = _program(SHAPES[4]).fields[0].open.branches.branches
    assert [b.at_start for b in branches[:2]] == [True, True]  # `^` before the group: both of its branches
    assert -1 in parser_class.AT_START
    scan = parser_class.SCANS[-1]
    parser = parser_class("<|assistant|>")
    assert scan("Here i", parser, 1) == (len("Here i"), False)  # as past the start
    assert parser.feed("Here i") == []  # held: the text's start may still open reasoning
    parser.feed("dea")
    events = parser.feed("Here i")  # plain text now
    assert events == [{"type": "region_chunk", "field": "content", "text": "Here i", "dirty": False}]
    message, _ = parser.finalize()
    assert message == {"content": "Here ideaHere i"}
    parser = parser_class("<|assistant|>")
    assert parser.feed("Hi <th") == [
        {"type": "region_open", "field": "content"},
        {"type": "region_chunk", "field": "content", "text": "Hi", "dirty": False},
    ]
    # a state whose delimiters have no such alternative is asked from the start
    assert not compiled(SHAPES[1]).ResponseParser.AT_START


@pytest.mark.parametrize("shape", SHAPES, ids=[s.name for s in SHAPES])
@settings(
    max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large]
)
@given(data=st.data())
def test_branches_match_reference(shape, compiled, data):
    prefix, chunks, tools = data.draw(cases(shape))
    assert_same_behaviour(shape.template, compiled(shape), prefix, chunks, tools)


@pytest.mark.parametrize("shape", SHAPES, ids=[s.name for s in SHAPES])
def test_branches_blocks_whole_and_per_character(shape, compiled):
    module = compiled(shape)
    texts = list(shape.blocks) + ["".join(shape.blocks)]
    for prefix in shape.prefixes:
        for text in texts:
            assert_same_behaviour(shape.template, module, prefix, [text])
            assert_same_behaviour(shape.template, module, prefix, list(text))
