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


def test_inside_shape_has_a_scanner(compiled):
    """The implicit state of the inside shape gets a scanner that knows the
    look-behinds' last character (it had none while such look-behinds made
    the delimiter keep the plain search)."""
    from runtime.core import Scanner

    parser = compiled(SHAPES[3]).ResponseParser
    scanner = Scanner.of_state(parser.WATCH[-1], parser.FAST.get(-1))
    assert scanner is not None and scanner.behind == ")"


def test_behind_shape_has_scanners(compiled):
    """The look-behind closes give the tool-call state a scanner that knows
    the characters its matches follow (runtime/core.py, Scanner.behind)."""
    from runtime.core import Scanner

    parser = compiled(SHAPES[2]).ResponseParser
    close = parser.FIELDS[1].close
    assert close.behind == ">}" and close.triggers is None
    scanner = Scanner.of_state(parser.WATCH[1], parser.FAST.get(1))
    assert scanner is not None and scanner.behind == ">}"
    # `(?<=\.)(?=\s*<tool>)` still gives a trigger string (its look-ahead's)
    assert Scanner.of_state(parser.WATCH[0], parser.FAST.get(0)).behind == ""


def test_behind_stream_takes_the_common_path(compiled):
    """Argument tokens after a look-behind close's last character are routed
    on the common path once a token without it follows."""
    module = compiled(SHAPES[2])
    parser = module.ResponseParser("<|assistant|>")
    parser.feed("<tool>f>")
    assert parser._hot is None  # right after `>`: only the search can tell
    parser.feed("a")
    parser.feed("b")
    assert parser._hot is not None
    parser.feed("}")
    assert parser._hot is None
    parser.feed(" ")
    parser.feed("x")
    message, _ = parser.finalize()
    assert message["tool_calls"] == [{"name": "f", "arguments": "ab} x"}]


def test_newline_trigger_shape_has_a_scanner(compiled):
    """The implicit state of the newline-trigger shape gets a scanner whose
    lead triggers hold the newline (runtime/core.py, Scanner.of_state)."""
    from runtime.core import Scanner

    parser = compiled(SHAPES[1]).ResponseParser
    scanner = Scanner.of_state(parser.WATCH[-1], parser.FAST.get(-1))
    assert scanner is not None and "\n" in scanner.lead_triggers


def test_every_delimiter_gets_branch_hints(compiled):
    """The shape exercises the hints: each regex delimiter is read branch by
    branch, and every state gets a scanner (runtime/core.py)."""
    from runtime.core import Scanner

    parser = compiled(SHAPES[0]).ResponseParser
    for field in parser.FIELDS:
        for delim in (field.open, field.close):
            if delim is not None and delim.literals is None:
                assert delim.triggers is not None, delim.pattern
                if field.name != "content":
                    assert delim.branches is not None, delim.pattern
    for state, watch in parser.WATCH.items():
        assert Scanner.of_state(watch, parser.FAST.get(state)) is not None, state


def test_at_start_scanner_drops_the_dead_alternative(compiled):
    """The implicit state's scanner keeps the `^` alternative's prefixes
    (held at the text's start); the one asked once anything is consumed
    has none of them, and the parser switches to it for good."""
    parser_class = compiled(SHAPES[4]).ResponseParser
    assert parser_class.FIELDS[0].open.at_start == (0, 1)  # `^` before the group: both of its branches
    scanner = parser_class._scanners()[-1]
    later = scanner.later
    assert later is not scanner and later.later is later
    assert "Here is my plan:" in scanner.strings and not any(s.startswith("Her") for s in later.strings)
    assert scanner.hold("Here i") == -1  # the full scanner leaves it to the search
    assert later.hold("Here i") == len("Here i") and later.hold("x <th") == 1
    for _ in range(2):  # the second time, the steps are remembered ones, replayed
        parser = parser_class("<|assistant|>")
        assert parser.feed("Here i") == []  # held: the text's start may still open reasoning
        parser.feed("dea")
        assert parser._scanner is later
        events = parser.feed("Here i")  # a plain token now, on the common path
        assert events == [{"type": "region_chunk", "field": "content", "text": "Here i", "dirty": False}]
        assert parser._hot is later.plain
        message, _ = parser.finalize()
        assert message == {"content": "Here ideaHere i"}
        # a step past the start that leaves text held (` <th`), not the common path open
        parser = parser_class("<|assistant|>")
        assert parser.feed("Hi <th") == [
            {"type": "region_open", "field": "content"},
            {"type": "region_chunk", "field": "content", "text": "Hi", "dirty": False},
        ]
        assert parser._hot is None and parser._scanner is later
    # `\A` too; with nothing else watched, every token is plain once past the start
    start_only = compiled(SHAPES[5]).ResponseParser._scanners()[-1]
    assert start_only.later is not start_only and start_only.later.strings == ()
    assert start_only.later.hold("a <th") == 5 and start_only.hold("a <th") == -1
    # a state whose delimiters have no such alternative asks one scanner
    plain_class = compiled(SHAPES[1]).ResponseParser
    assert all(s is None or s.later is s for s in plain_class._scanners().values())


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
