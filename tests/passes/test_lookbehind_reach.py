"""compiler/passes/lookbehind_reach.py: which unbounded look-behinds are confined,
and by what (a barrier string, or a dead anchored head)."""

from __future__ import annotations

import pytest

from compiler.frontend import source as sources
from compiler.passes.lookbehind_reach import (
    Barrier,
    CountedBarrier,
    barrier_of,
    context_cut,
    counted_barrier_of,
    dead_head_of,
)
from compiler.pipeline import to_program
from compiler.regex.nodes import Look, walk
from compiler.regex.syntax import parse


def lookbehind_body(pattern: str):
    return next(node for node in walk(parse(pattern).body) if isinstance(node, Look) and node.behind).body


@pytest.mark.parametrize(
    "pattern, expected",
    [
        # A literal, the tempered repeat, one character: reads at most the literal before the barrier.
        (r"(?<=<a>(?:(?!</a>).)*\})", Barrier("</a>", 1, 4, "<a>")),
        (r"(?<=<a>(?:(?!</a>).)*[)}]\s?)x", Barrier("</a>", 2, 4, "<a>")),
        # A one-character repeat left of the tempered one cannot cross the barrier's
        # first character; the head is then the character after it, with its class.
        (r"(?<=<s>\s*\[(?:(?!<e>).)*\))", Barrier("<e>", 1, 4, "[", "\\s")),
        (r"(?<=<s>[ab]*\[\[(?:(?!<e>).)*\))", Barrier("<e>", 1, 4)),  # two characters after the run: no head
        # ... unless it can match it: `[^x]*` takes `<`.
        (r"(?<=<s>[^x]*\[(?:(?!<e>).)*\))", None),
        # Not a tempered repeat: `\s*`, `.*`, a lazy one, a look-ahead that is not a literal.
        (r"(?<=<a>\s*</b>)", None),
        (r"(?<=<a>.*\})", None),
        (r"(?<=<a>(?:(?!</a>).)*?\})", None),
        (r"(?<=<a>(?:(?!\s).)*\})", None),
        # Unbounded to the right of the tempered repeat.
        (r"(?<=<a>(?:(?!</a>).)*\}\s*)", None),
    ],
)
def test_barrier_rules(pattern, expected):
    assert barrier_of(lookbehind_body(pattern)) == expected


def test_dead_head_rule():
    assert dead_head_of(lookbehind_body(r"(?<=^\s*\[.*\))")) == ("\\A(?:\\s*\\[)", "\x00")
    assert dead_head_of(lookbehind_body(r"(?<=^\s*.*\))")) is None  # a nullable head is never dead
    assert dead_head_of(lookbehind_body(r"(?<=\s*\[.*\))")) is None  # not anchored


@pytest.mark.parametrize(
    "pattern, expected",
    [
        # glm47's close: `<` at most twice in a match (once per branch, once in the tail).
        (r"(?<=(?:</arg_value>|<tool_call>\s*[^\s<]+)\s*</tool_call>)", CountedBarrier("<", 3, 13)),
        # The fewest wins: `b` at most once, `a` at most twice; the longest literal run is 2.
        (r"(?<=ab[^ab]*a)", CountedBarrier("b", 2, 3)),
        # A bounded repeat multiplies: `<` at most 3 times.
        (r"(?<=(?:<x){1,3}\s*)", CountedBarrier("<", 4, 3)),
        # Ties go to the first character in order.
        (r"(?<=a(?:b|c)\s*)", CountedBarrier("a", 2, 2)),
        # Every literal character can repeat without bound: `.*`, `\S*`, `[^x]*` take them.
        (r"(?<=<a>.*\})", None),
        (r"(?<=<a>\S*\})", None),
        (r"(?<=<[^x]*)", None),
        # Case-insensitive literals and look-arounds or anchors inside: refused.
        (r"(?i:(?<=<a>\s*))", None),
        (r"(?<=<a>\s*(?=b)c)", None),
        (r"(?<=\b<a>\s*)", None),
    ],
)
def test_counted_rules(pattern, expected):
    assert counted_barrier_of(lookbehind_body(pattern)) == expected


@pytest.mark.parametrize(
    "name, barriers, anchored, counted",
    [
        ("apertus", ("<|tools_suffix|>",), None, ()),
        ("lfm2", ("<|tool_call_end|>",), None, ()),
        ("olmo3", ("</function_calls>",), None, ()),
        ("llama4_pythonic", ("<|python_end|>",), "\\A(?:\\s*\\[)", ()),
        # `(?:</arg_value>|<tool_call>\s*[^\s<]+)\s*</tool_call>`: no barrier, `<` counted
        ("glm47", (), None, (CountedBarrier("<", 3, 13),)),
        ("qwen3", None, None, None),  # bounded look-behinds: no cut needed
    ],
)
def test_bundled_templates(name, barriers, anchored, counted):
    cut = context_cut(to_program(sources.read(name)))
    if barriers is None:
        assert cut is None
    else:
        assert tuple(rule.barrier for rule in cut.barriers) == barriers
        assert cut.anchored == anchored
        assert cut.counted == counted
