"""No quadratic path: on long streams the parser holds back only what a
pending delimiter needs, keeps region bodies as lists of pieces, and every
search looks only at the unconsumed tail; per stream shape, each input
character is examined a bounded number of times. Checked by inspecting
parser state and counting what the scanning steps are given, not by timing."""

from __future__ import annotations

import pytest

from benchmarks.shapes import SHAPES, NotApplicable, mixed_stream, shape_stream, template_names
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

    def find(self, buf, pos, base, memo, *rest):
        searched.append(len(buf) - pos)
        return original_find(self, buf, pos, base, memo, *rest)

    def search(self, buf, pos, partial, *rest):
        searched.append(len(buf) - pos)
        return original_search(self, buf, pos, partial, *rest)

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


@pytest.mark.parametrize("name", ["qwen3", "deepseek_v31"])
def test_held_whitespace_run_is_not_copied_per_token(name):
    """The held run's pieces are joined only when they are routed: joining
    them for every arriving newline copied the whole run at every token
    (quadratic; 23 us per token at 8,000 in deepseek_v31's reasoning)."""
    import sys

    module = load_generated(name)
    parser = module.ResponseParser(build(name, 50).prefix)
    parser.feed("Some text.")
    joined = []

    def profile(frame, event, arg):
        if event == "c_call" and getattr(arg, "__name__", "") == "join" and isinstance(getattr(arg, "__self__", None), str):
            joined.append(1)

    sys.setprofile(profile)
    try:
        for _ in range(2000):
            parser.feed("\n")
    finally:
        sys.setprofile(None)
    assert len(joined) <= 20, f"{len(joined)} joins while 2000 newlines were held"
    parser.feed("Done.")
    parser.finalize()


# Characters examined per input character, at most, per stream shape (every
# template): a token is looked up once; a scanner pass reads the tail once per
# watched trigger string; a delimiter search reads the unconsumed text. The
# bounds hold the measured worst template with room (calls: a handful of
# delimiter searches over each short call; prefixes: a held prefix is read
# again with the next token).
EXAMINED_BOUND = {
    "prose": 6,
    "reasoning": 3,
    "content_space": 7,
    "content_newline": 7,
    "reasoning_space": 4,
    "reasoning_newline": 3,
    "code": 9,  # olmo3: its newline trigger sends every newline token to the scanner and the search
    "lone_lt": 10,
    "prefixes": 18,
    "calls": 18,
    "long_argument": 4,
    "mixed": 5,
}


def _count_examined(monkeypatch):
    """Patch the scanning steps to add what each one reads to a counter."""
    counter = [0]

    def counting(cls, name, size):
        original = getattr(cls, name)

        def wrapper(*args):
            counter[0] += size(*args)
            return original(*args)

        monkeypatch.setattr(cls, name, wrapper)

    counting(core.Scanner, "hold", lambda self, tail: len(tail) * (len(self.strings) + 1))
    counting(core.Literals, "find", lambda self, buf, pos, base, memo, *bounds: len(buf) - pos)
    counting(core.Horizon, "first", lambda self, buf, pos, base, memo: (len(buf) - pos) * len(self.searches))
    counting(core.Literals, "partial_start", lambda self, buf, pos: min(len(buf) - pos, self.longest))
    counting(core.Pattern, "search", lambda self, buf, pos, partial, *bounds: len(buf) - pos)
    counting(core.StreamParser, "_feed_new_token", lambda self, hot, text, held: len(text) + len(held))
    counting(core.StreamParser, "_feed_lead_end", lambda self, hot, text, held: len(text))
    return counter


@pytest.mark.parametrize("shape", list(EXAMINED_BOUND))
def test_each_character_examined_a_bounded_number_of_times(shape, monkeypatch):
    counter = _count_examined(monkeypatch)
    worst = (0.0, "")
    for name in template_names():
        module = load_generated(name)
        try:
            stream = mixed_stream(name, 3000) if shape == "mixed" else shape_stream(name, shape, 3000, module)
        except NotApplicable:
            continue
        parser = module.ResponseParser(stream.prefix)
        counter[0] = 0
        chars = 0
        for token in stream.tokens:
            counter[0] += len(token)  # the common path's lookup of the token
            chars += len(token)
            parser.feed(token)
        parser.finalize()
        worst = max(worst, (counter[0] / chars, name))
    assert worst[0] <= EXAMINED_BOUND[shape], f"{shape}: {worst[1]} examines {worst[0]:.2f} characters per input character"


def test_long_held_prefix_is_read_a_bounded_number_of_times(monkeypatch):
    """A delimiter arriving one character per token, 2,000 times: each token
    reads the held prefix again, which a delimiter's length bounds."""
    counter = _count_examined(monkeypatch)
    module = load_generated("qwen3")
    parser = module.ResponseParser("")
    parser.feed("Some content.")
    chars = 0
    for _ in range(2000):
        for char in "<|im_end":
            counter[0] += 1
            chars += 1
            parser.feed(char)
        parser.feed(" x")
        chars += 2
    parser.finalize()
    assert counter[0] / chars <= 4 * len("<|im_end|>")


@pytest.mark.parametrize("name", ["qwen3", "qwen3_5", "deepseek_r1", "kimi_k2", "cohere_command", "seed_oss", "smollm3"])
def test_preopened_reasoning_skips_whitespace_runs(name, monkeypatch):
    """A prompt that pre-opens thinking, then reasoning tokens ending in
    whitespace: the reasoning close has a look-ahead alternative (reasoning
    ends at a tool call), read per alternative (compiler/passes/branches.py),
    so the state's scanner holds each trailing run without the general step."""
    module = load_generated(name)
    reasoning = next(field for field in module.FIELDS if field.name == "reasoning_content")
    opener = reasoning.open.literals[0]
    calls = []
    original = core.StreamParser._process

    def process(self, events, eos):
        calls.append(self._state)
        return original(self, events, eos)

    monkeypatch.setattr(core.StreamParser, "_process", process)
    parser = module.ResponseParser("")
    parser.feed(opener)
    before = len(calls)
    for index in range(4000):
        parser.feed("word " if index % 2 else "more\n")
    assert module.FIELDS[parser._state].name == "reasoning_content", "still in the reasoning region"
    assert len(calls) - before <= 8, f"{len(calls) - before} general steps for 4000 whitespace-ending tokens"
    parser.finalize()


# Templates whose look-behinds are unbounded but confined by a barrier
# (compiler/passes/lookbehind_reach.py): the text before the barrier goes.
CUT_TEMPLATES = ["apertus", "lfm2", "olmo3", "llama4_pythonic"]


@pytest.mark.parametrize("name", CUT_TEMPLATES)
def test_unbounded_lookbehind_keeps_a_bounded_context(name):
    """On many small calls, the buffer of a template with unbounded
    look-behinds (CONTEXT -1) holds the last barrier and what follows it,
    not all of the text; each barrier search starts where the last one
    stopped, so every character is searched for barriers a bounded number
    of times. Inspected from parser state."""
    module = load_generated(name)
    assert module.ResponseParser.CONTEXT == -1 and module.ResponseParser.CUT is not None
    stream = shape_stream(name, "calls", 3000, module)
    parser = module.ResponseParser(stream.prefix)
    longest_call = max(map(len, stream.tokens)) * 3
    before = max(rule[2] for rule in parser.CUT.barriers)
    bound = 2 * longest_call + before + longest_delimiter(module)
    scanned = list(parser._barrier_scanned)
    searched = 0
    chars = 0
    for token in stream.tokens:
        parser.feed(token)
        chars += len(token)
        assert len(parser._buf) <= bound + len(held(parser)), f"kept {len(parser._buf)} characters"
        if parser._cut_stale:  # after replayed steps the bookkeeping is a number (see StreamParser._step)
            parser.CUT.restore(parser)
        now = parser._barrier_scanned
        assert all(new >= old for new, old in zip(now, scanned)), "a barrier search went back"
        searched += sum(new - old for new, old in zip(now, scanned))
        scanned = list(now)
    assert parser._base > chars // 2  # most of the text is gone
    assert searched <= chars * len(parser.CUT.barriers)
    parser.finalize()
