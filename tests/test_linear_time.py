"""No quadratic path: on long streams the parser holds back only what a
pending delimiter needs, keeps region bodies as lists of pieces, and every
search looks only at the unconsumed tail. Checked by inspecting parser state,
not by timing."""

from __future__ import annotations

import pytest

from benchmarks.streams import build, tokenize
from conftest import load_generated
from runtime import core

TEMPLATES = ["qwen3", "qwen3_5", "gpt_oss", "gemma4", "deepseek_v31"]


def held(parser) -> str:
    return parser._buf[parser._pos :] + "".join(parser._pieces)


def longest_delimiter(module) -> int:
    longest = 0
    for field in module.FIELDS:
        for delim in (field.open, field.close):
            if delim is None:
                continue
            strings = delim.literals if delim.literals is not None else (delim.triggers or ())
            longest = max([longest, *map(len, strings)])
    return longest


@pytest.mark.parametrize("name", TEMPLATES)
def test_state_stays_bounded_on_a_long_stream(name, monkeypatch):
    module = load_generated(name)
    stream = build(name, 30_000)
    tokens = tokenize(stream.text, stream.specials, seed=7)
    searched = []
    original_find, original_search = core.Literals.find, core.Pattern.search

    def find(self, buf, pos, base, memo):
        searched.append(len(buf) - pos)
        return original_find(self, buf, pos, base, memo)

    def search(self, buf, pos, partial):
        searched.append(len(buf) - pos)
        return original_search(self, buf, pos, partial)

    monkeypatch.setattr(core.Literals, "find", find)
    monkeypatch.setattr(core.Pattern, "search", search)
    parser = module.ResponseParser(stream.prefix)
    # A pending delimiter: literals and trigger strings, plus what a regex
    # delimiter matches around them (whitespace, a function name in a header).
    bound = longest_delimiter(module) + 128
    context = max(parser.CONTEXT, 0)
    worst_held = 0
    for token in tokens:
        searched.clear()
        parser.feed(token)
        pending = held(parser)
        worst_held = max(worst_held, len(pending))
        assert len(pending) <= bound, f"held back {len(pending)} characters: {pending[:80]!r}"
        # The buffer is the held text plus at most the context delimiters read behind it.
        assert len(parser._buf) <= context + len(pending) + len(token)
        # Searches look at the unconsumed tail only: what was held plus this token.
        assert all(span <= bound + len(token) for span in searched), searched
        assert isinstance(parser._body, list)
    message, _ = parser.finalize()
    assert message["role"] == "assistant"


@pytest.mark.parametrize("name", ["qwen3", "qwen3_5", "deepseek_v31"])
def test_long_whitespace_run_is_held_without_rescanning(name, monkeypatch):
    """8,000 newlines that may still start a `\\s*<tool_call>`: held as pieces,
    and no search runs again over them while they arrive."""
    module = load_generated(name)
    calls = []
    original = core.StreamParser._process

    def process(self, events, eos):
        calls.append(len(self._buf) - self._pos)
        return original(self, events, eos)

    monkeypatch.setattr(core.StreamParser, "_process", process)
    parser = module.ResponseParser(build(name, 50).prefix)
    parser.feed("Some content.")
    for _ in range(8000):
        parser.feed("\n")
    assert len(calls) <= 3, f"{len(calls)} full processing steps for 8000 newlines"
    parser.feed("Done.")
    parser.finalize()
