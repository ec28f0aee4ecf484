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

TEMPLATES = ["qwen3", "qwen3_5", "gpt_oss", "gemma4", "deepseek_v31"]


def held(parser) -> str:
    return parser._buf[parser._pos :] + parser._held


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
    cls = module.ResponseParser
    stream = build(name, 30_000)
    tokens = tokenize(stream.text, stream.specials, seed=7)
    searched = []
    original = cls._process

    def process(self, events, eos):
        searched.append(len(self._buf) - self._pos)
        return original(self, events, eos)

    monkeypatch.setattr(cls, "_process", process)
    parser = cls(stream.prefix)
    # A pending delimiter: literals and trigger strings, plus what a regex
    # delimiter matches around them (whitespace, a function name in a header).
    bound = longest_delimiter(module) + 128
    context = max(parser.CONTEXT, 0)
    for token in tokens:
        searched.clear()
        parser.feed(token)
        pending = held(parser)
        assert len(pending) <= bound, f"held back {len(pending)} characters: {pending[:80]!r}"
        # The buffer is the held text plus at most the context delimiters read behind it.
        assert len(parser._buf) <= context + len(pending) + len(token)
        # Searches look at the unconsumed tail only: what was held plus this token.
        assert all(span <= bound + len(token) for span in searched), searched
        assert isinstance(parser._body, list)
    message, _ = parser.finalize()
    assert message["role"] == "assistant"


def _count_steps(monkeypatch, cls, record):
    """Patch the parser class's general step to call `record(self)` first."""
    original = cls._process

    def process(self, events, eos):
        record(self)
        return original(self, events, eos)

    monkeypatch.setattr(cls, "_process", process)


@pytest.mark.parametrize("name", ["qwen3", "qwen3_5", "deepseek_v31"])
def test_long_whitespace_run_is_held_without_rescanning(name, monkeypatch):
    """8,000 newlines that may still start a `\\s*<tool_call>`: held (the
    held run grows in place), and no search runs again over them while they
    arrive."""
    module = load_generated(name)
    calls = []
    _count_steps(monkeypatch, module.ResponseParser, lambda self: calls.append(len(self._buf) - self._pos))
    parser = module.ResponseParser(build(name, 50).prefix)
    parser.feed("Some content.")
    for _ in range(8000):
        parser.feed("\n")
    assert len(calls) <= 3, f"{len(calls)} full processing steps for 8000 newlines"
    parser.feed("Done.")
    parser.finalize()


@pytest.mark.parametrize("name", ["qwen3", "deepseek_v31"])
def test_held_whitespace_run_is_not_copied_per_token(name):
    """The held run is not joined again for every arriving newline: that
    copied the whole run at every token (quadratic; 23 us per token at 8,000
    in deepseek_v31's reasoning)."""
    import sys

    module = load_generated(name)
    parser = module.ResponseParser(build(name, 50).prefix)
    parser.feed("Some text.")
    joined = []

    def profile(frame, event, arg):
        if (
            event == "c_call"
            and getattr(arg, "__name__", "") == "join"
            and isinstance(getattr(arg, "__self__", None), str)
        ):
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
# template): a token is looked at once on the fast path; a scan reads the
# held text and the token once per watched delimiter; a general step or a
# wait (StreamParser._waits) reads the unconsumed text once per watched
# delimiter. The bounds hold the measured worst template with room.
EXAMINED_BOUND = {
    "prose": 6,
    "reasoning": 6,
    "content_space": 12,  # olmo3: its newline trigger is a lead too, so a trailing space is searched
    "content_newline": 8,
    "reasoning_space": 6,
    "reasoning_newline": 6,
    "code": 12,
    "lone_lt": 12,
    "prefixes": 24,
    "calls": 24,
    "long_argument": 4,
    "mixed": 8,
}


def _count_examined(monkeypatch, module):
    """Patch the module's scans, general step and waits to add what each reads to a counter."""
    counter = [0]
    cls = module.ResponseParser

    def watched(parser):
        return len(cls.WATCH[parser._state]) + 1

    _count_steps(
        monkeypatch, cls, lambda self: counter.__setitem__(0, counter[0] + (len(self._buf) - self._pos) * watched(self))
    )
    original_waits = cls._waits

    def waits(self, text):
        counter[0] += (len(self._buf) - self._pos + len(self._held) + len(text)) * watched(self)
        return original_waits(self, text)

    monkeypatch.setattr(cls, "_waits", waits)
    scans = {}
    for state, scan in cls.SCANS.items():

        def counted(tail, parser, pos, _scan=scan):
            counter[0] += len(tail) * watched(parser)
            return _scan(tail, parser, pos)

        scans[state] = counted
        monkeypatch.setattr(module, scan.__name__, counted)
    monkeypatch.setattr(cls, "SCANS", scans)
    return counter


@pytest.mark.parametrize("shape", list(EXAMINED_BOUND))
def test_each_character_examined_a_bounded_number_of_times(shape, monkeypatch):
    worst = (0.0, "")
    for name in template_names():
        module = load_generated(name)
        counter = _count_examined(monkeypatch, module)
        try:
            stream = mixed_stream(name, 3000) if shape == "mixed" else shape_stream(name, shape, 3000, module)
        except NotApplicable:
            continue
        parser = module.ResponseParser(stream.prefix)
        counter[0] = 0
        chars = 0
        for token in stream.tokens:
            counter[0] += len(token)  # the fast path's look at the token
            chars += len(token)
            parser.feed(token)
        parser.finalize()
        worst = max(worst, (counter[0] / chars, name))
    assert (
        worst[0] <= EXAMINED_BOUND[shape]
    ), f"{shape}: {worst[1]} examines {worst[0]:.2f} characters per input character"


def test_long_held_prefix_is_read_a_bounded_number_of_times(monkeypatch):
    """A delimiter arriving one character per token, 2,000 times: each token
    reads the held prefix again, which a delimiter's length bounds."""
    module = load_generated("qwen3")
    counter = _count_examined(monkeypatch, module)
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


@pytest.mark.parametrize(
    "name", ["qwen3", "qwen3_5", "deepseek_r1", "kimi_k2", "cohere_command", "seed_oss", "smollm3"]
)
def test_preopened_reasoning_skips_whitespace_runs(name, monkeypatch):
    """A prompt that pre-opens thinking, then reasoning tokens ending in
    whitespace: the reasoning close has a look-ahead alternative (reasoning
    ends at a tool call), read per alternative (compiler/passes/branches.py),
    so the state's scan holds each trailing run without the general step."""
    module = load_generated(name)
    reasoning = next(field for field in module.FIELDS if field.name == "reasoning_content")
    opener = reasoning.open.literals[0]
    calls = []
    _count_steps(monkeypatch, module.ResponseParser, lambda self: calls.append(self._state))
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
        now = parser._barrier_scanned
        assert all(new >= old for new, old in zip(now, scanned)), "a barrier search went back"
        searched += sum(new - old for new, old in zip(now, scanned))
        scanned = list(now)
    assert parser._base > chars // 2  # most of the text is gone
    assert searched <= chars * len(parser.CUT.barriers)
    parser.finalize()
