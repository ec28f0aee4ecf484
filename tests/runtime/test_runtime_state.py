"""The Python driver's own bookkeeping, which the vectors can only see by
chance: the buffer's absolute offset and contents, and the `captures`
property between regions.

`StreamParser._base` (the absolute offset of `_buf`) is what a ContextCut
and the settled patterns read, and a wrong kept context shows in events
only when a look-behind happens to read it. So the invariant is checked
directly, after every call, on every vector case: the text from `_base` on
is exactly the buffer, then the body pieces the fast path routed since
`_mark`, then the held text `_held`. Part of mutmut's selection
(pyproject.toml, docs/testing.md).
"""

from __future__ import annotations

import json
import random

import pytest

from compiler.conformance.vectors import VECTORS_DIR, read_json_lines
from conftest import load_generated
from runtime import core
from benchmarks.shapes import NotApplicable, shape_stream
from vector_modules import module_for


def _unconsumed(parser) -> str:
    """The text from `_base` on, as the parser holds it."""
    return parser._buf + "".join(parser._body[parser._mark :]) + parser._held


def _kept(parser, text: str) -> str:
    """The text from `_base` on; after a cut with a dead anchored head, its
    first character is the head's sentinel (see ContextCut)."""
    kept = text[parser._base :]
    cut = parser.CUT
    if cut is not None and cut.anchored is not None and parser._base > 0:
        kept = cut.sentinel + kept[1:]
    return kept


def _prefix_text(cls, prefix: str) -> str:
    """The part of the prefix the parser keeps: after its last start anchor."""
    end = core.last_anchor_end(cls.START_ANCHOR, prefix) if prefix else None
    return (prefix if end is None else prefix[end:]) if prefix else ""


def _check_case(module, case) -> None:
    cls = module.ResponseParser
    prefix = case["prefix"]
    try:
        parser = cls(prefix, tools=case["tools"])
    except Exception:  # noqa: BLE001 - the vectors pin the error itself
        return
    text = _prefix_text(cls, prefix)
    where = f"{case['id']} after the prefix"
    assert _kept(parser, text) == _unconsumed(parser), where
    for index, chunk in enumerate(case["chunks"]):
        try:
            parser.feed(chunk)
        except Exception:  # noqa: BLE001
            return
        text += chunk
        assert _kept(parser, text) == _unconsumed(parser), f"{case['id']} after chunk {index}"
        # A bounded look-behind keeps at most CONTEXT consumed characters (_trim).
        assert cls.CONTEXT < 0 or parser._pos <= cls.CONTEXT, f"{case['id']} untrimmed after chunk {index}"


def test_buffer_is_the_text_from_its_offset_on_every_vector():
    per_file = [read_json_lines(path) for path in sorted(VECTORS_DIR.glob("*.jsonl"))]
    modules = {}
    for cases in per_file:
        for case in cases:
            name = case["template"]
            if name not in modules:
                modules[name] = module_for(name)
            _check_case(modules[name], case)


def test_captures_are_empty_outside_a_region_with_groups():
    module = load_generated("olmo3")
    parser = module.ResponseParser("<|im_start|>assistant\n")
    assert parser.captures == {}
    parser.feed("<function_calls>\nf(a=1")
    assert parser.captures == {"name": "f"}
    parser.feed(")\n</function_calls>")  # a regex close at the buffer's end is still pending
    parser.feed("done")
    assert parser.captures == {}
    assert json.dumps(parser.finalize()[0]["tool_calls"][0]["function"]["name"]) == '"f"'


@pytest.mark.parametrize("prefix", ["", "<|im_start|>assistant\n"])
def test_captures_start_empty(prefix):
    assert load_generated("olmo3").ResponseParser(prefix).captures == {}


def _cut_streams(name, module, seed, joined):
    """(prefix, tokens, the tokens with tokens[start:end] joined into one
    long chunk) for each stream shape the template has, of 300 tokens."""
    start, end = joined
    for shape in ("calls", "prose", "lone_lt", "prefixes", "code"):
        try:
            stream = shape_stream(name, shape, 300, module, seed=seed)
        except NotApplicable:
            continue
        tokens = stream.tokens
        yield stream.prefix, tokens, tokens[:start] + ["".join(tokens[start:end])] + tokens[end:]


def _cut_by_the_rule(rule, text, base, pos, state):
    """`(_base, _anchored_state)` after `ContextCut.cut`, from the ContextCut's
    rule applied to the whole text so far (`text`, up to the buffer's end)
    with plain searches: the incremental searches of `ContextCut.cut` (each
    character searched a bounded number of times) must cut exactly there."""
    if state is False:
        return base, state
    read = base + pos
    target = read - rule.near
    for barrier, after, before, head, lead in rule.barriers:
        limit = read - after - 1  # the last start a barrier or head may have
        last = text.rfind(barrier, 0, limit + len(barrier))
        if head is None:
            if last < 0:
                return base, state
            at = last - before
        else:
            first = text.find(head, max(last + 1 - len(head), 0) if last >= 0 else 0, limit + len(head))
            if first < 0:
                first = limit if lead is None else limit + 1
            if lead is not None:
                run = first
                while (
                    run > base
                    and first - run < core.LEAD_RUN_LIMIT
                    and core.regex_module().fullmatch(lead, text[run - 1])
                ):
                    run -= 1
                first = base if run == base or first - run >= core.LEAD_RUN_LIMIT else run
            at = max(first - before, last - before)
        target = min(target, at)
    for char, count, before in rule.counted:
        at = read  # the count-th last `char` before the read position
        for _ in range(count):
            at = text.rfind(char, 0, at)
            if at < 0:
                return base, state
        target = min(target, at - before)
    if target <= base:
        return base, state
    if rule.anchored is not None and state is None:
        found = core.regex_module().compile(rule.anchored, core.regex_module().DOTALL).match(text, partial=True)
        if found is not None:
            return base, (None if found.partial else False)
        state = True
    return target, state


class _SearchedText(str):
    """A buffer that notes the range of each `find` and `rfind` on it, as
    (method, string, start, end, found) with start and end as str clips them."""

    def __new__(cls, text, searches):
        self = super().__new__(cls, text)
        self.searches = searches
        return self

    def _noted(self, method, sub, start, end):
        found = getattr(str, method)(self, sub, start, end)
        self.searches.append((method, sub, *slice(start, end).indices(len(self))[:2], found))
        return found

    def find(self, sub, start=None, end=None):
        return self._noted("find", sub, start, end)

    def rfind(self, sub, start=None, end=None):
        return self._noted("rfind", sub, start, end)


def _searched_twice(base, searches, searched_to):
    """The searches of one `ContextCut.cut` call that break the bound of
    `_checked_cuts` (each with the reason); `searched_to` is the parser's
    absolute end of the last search per string, updated here."""
    wrong = []
    barrier_found_at = None
    call_floor = {}  # string -> its floor when this call began
    left_off = {}  # string -> where this call's last rfind for it found it
    for method, string, start, end, found in searches:
        start, end = base + start, base + end
        if end - start < len(string):
            wrong.append(("search shorter than its string", string, start, end))
        floor = call_floor.setdefault(string, searched_to.get(string, 0) - len(string) + 1)
        if method == "rfind" and string in left_off and end <= left_off[string]:
            pass  # a counted rule's next rfind goes on left of the last one's find: text not read yet
        else:
            floor = searched_to.get(string, 0) - len(string) + 1
        if method == "find" and barrier_found_at is not None:
            floor = min(floor, max(barrier_found_at + 1 - len(string), 0))  # the head again after a new barrier
        # rfind reads from the right: when it finds, it read nothing before what it found
        low = base + found if method == "rfind" and found >= 0 else start
        if low < floor:
            wrong.append(("searched again", string, start, end, floor))
        if method == "rfind" and found >= 0:
            barrier_found_at = base + found
            left_off[string] = base + found
        searched_to[string] = max(end, searched_to.get(string, 0))
    return wrong


def _checked_cuts(monkeypatch):
    """Patch `ContextCut.cut` to compare each call with `_cut_by_the_rule`;
    returns (parse, calls, wrong): `parse(cls, prefix, chunks, tools)` runs
    one stream (errors of the stream itself are ignored: the vectors pin
    them), `calls` one bool per call (whether it cut), `wrong` each call
    that cut elsewhere or searched text it had searched before (collected:
    a parser's caller may catch exceptions).

    The searches are watched through the buffer (`_SearchedText`): each
    search for a barrier or a head covers at least that string's length
    (a shorter range cannot hold it) and starts no earlier than the end of
    the last search for the same string less its length plus one (the only
    characters searched twice are those of a string that may straddle the
    two ranges), except that a head is searched for again from right after
    a barrier found in the same call. So each character is searched a
    bounded number of times, as `ContextCut.cut`'s docstring promises: a
    search restarted from the buffer's start would find the same barrier
    again and cut at the same place, unseen by the cut check alone."""
    texts = {}
    calls = []
    wrong = []
    searched_to = {}  # parser id -> {searched string: absolute end of its last search}
    original = core.ContextCut.cut

    def checked(rule, self):
        before = (self._base, self._pos, _anchored_state(self))
        text = texts[id(self)][: self._base + len(self._buf)]
        searches = []
        self._buf = _SearchedText(self._buf, searches)
        original(rule, self)
        if type(self._buf) is _SearchedText:
            self._buf = str.__str__(self._buf)
        expected = _cut_by_the_rule(self.CUT, text, *before)
        calls.append(before[0] != self._base)
        if (self._base, self._anchored_state) != expected:
            wrong.append((type(self).__module__, before, len(text), (self._base, self._anchored_state), expected))
        wrong.extend(_searched_twice(before[0], searches, searched_to[id(self)]))

    def parse(cls, prefix, chunks, tools=None):
        text = _prefix_text(cls, prefix)
        parser = cls.__new__(cls)
        texts[id(parser)] = text + "".join(chunks)
        searched_to[id(parser)] = {}  # a new parser (which may reuse an old one's id) searches from the start
        try:
            parser.__init__(prefix, tools=tools)
            for chunk in chunks:
                parser.feed(chunk)
            parser.finalize()
        except Exception:  # noqa: BLE001, S110 - the vectors pin the stream's own errors
            pass

    monkeypatch.setattr(core.ContextCut, "cut", checked)
    return parse, calls, wrong


def _anchored_state(parser):
    return parser._anchored_state


def test_context_cut_is_where_the_rule_says_on_every_vector(monkeypatch):
    """Every call of `ContextCut.cut` on every vector case of a template with a
    ContextCut cuts exactly where the rule, applied to the whole text, says
    (`_cut_by_the_rule`): not only no text a look-behind reads (which the
    vectors see), but none kept that it does not (which only speed sees)."""
    parse, calls, wrong = _checked_cuts(monkeypatch)
    modules = {}
    for path in sorted(VECTORS_DIR.glob("*.jsonl")):
        for case in read_json_lines(path):
            name = case["template"]
            if name not in modules:
                modules[name] = module_for(name)
            cls = modules[name].ResponseParser
            if cls.CUT is not None:
                parse(cls, case["prefix"], case["chunks"], case["tools"])
    assert not wrong, wrong[:5]
    assert sum(calls) > 50 and len(calls) > sum(calls), (len(calls), sum(calls))


@pytest.mark.parametrize("name", ["apertus", "glm47", "lfm2", "llama4_pythonic", "olmo3"])
def test_context_cut_is_where_the_rule_says_on_stream_shapes(name, monkeypatch):
    """The cut check on the benchmark's stream shapes, then with a long
    chunk among the tokens: that chunk's cut, and every cut after it, must
    be where the rule says."""
    parse, calls, wrong = _checked_cuts(monkeypatch)
    module = load_generated(name)
    cls = module.ResponseParser
    for prefix, tokens, with_long_chunk in _cut_streams(name, module, seed=11, joined=(120, 220)):
        for chunks in (tokens, with_long_chunk):
            parse(cls, prefix, chunks)
    assert not wrong, wrong[:5]
    assert sum(calls) > 0, (len(calls), sum(calls))  # (fewer once other tests filled the tables)


def _cut_pieces(rule, delimiters):
    """Text pieces that meet the cut's edges: each barrier and head whole and
    in parts, lead characters, the template's delimiters, words."""
    pieces = ["a", "word ", "x" * 40, "\n", " ", "  ", "[", "]", "<", ">", "|", "(", ")", ")\n", ",", "X", "Y", "XY"]
    for barrier, _after, _before, head, lead in rule.barriers:
        pieces += [barrier, barrier[:2], barrier[1:], barrier[:-1], barrier[-1]]
        if head is not None:
            pieces += [head, head[:-1], head[1:], head + head]
        if lead is not None:
            pieces += [" " * 3, "\t", "\n\n"]
    for char, _count, _before in rule.counted:
        pieces += [char, char * 2, char * 3, char + "x" * 20]
    if rule.sentinel is not None:
        pieces.append(rule.sentinel)
    return pieces + list(delimiters)


def test_context_cut_is_where_the_rule_says_on_streams_made_for_it(monkeypatch):
    """The same check on random streams of the cut's own pieces (barriers,
    heads and their parts split at every point), so that a barrier or head
    starts right at the end of the text already searched: the incremental
    searches' bookkeeping (`_barrier_scanned`, `_head_scanned`, the head
    searched again after a new barrier) has no slack the rule does not."""
    parse, calls, wrong = _checked_cuts(monkeypatch)
    rng = random.Random(20261201)
    prefixes_of = {}
    for path in sorted(VECTORS_DIR.glob("*.jsonl")):
        for case in read_json_lines(path):
            prefixes_of.setdefault(case["template"], set()).add(case["prefix"])
    streams = []
    for name, prefixes in sorted(prefixes_of.items()):
        cls = module_for(name).ResponseParser
        if cls.CUT is not None:
            delimiters = {
                text for watch in cls.WATCH.values() for _, _, delim in watch for text in delim.literals or ()
            }
            streams.append((cls, sorted(delimiters), sorted(prefixes)))
    assert len(streams) >= 5
    for cls, delimiters, prefixes in streams:
        pieces = _cut_pieces(cls.CUT, delimiters)
        for barrier, _after, _before, head, lead in cls.CUT.barriers:
            if lead is not None:  # a run of the lead class as long as LEAD_RUN_LIMIT, and either side of it
                for size in (core.LEAD_RUN_LIMIT - 1, core.LEAD_RUN_LIMIT, core.LEAD_RUN_LIMIT + 1):
                    text = "x" + barrier + "y" * 30 + " " * size + head + "z" * 150
                    parse(cls, "", [text[:200], *text[200:]])
        for _ in range(150):
            text = "".join(rng.choice(pieces) for _ in range(rng.randrange(5, 80)))
            chunks = []
            at = 0
            while at < len(text):
                size = rng.choice((1, 1, 2, 3, 5, 8, 13))
                chunks.append(text[at : at + size])
                at += size
            parse(cls, rng.choice(prefixes), chunks)
    assert not wrong, wrong[:5]
    assert sum(calls) > 200, (len(calls), sum(calls))


# The implicit state reads nothing behind (its open is a look-ahead), the
# field's close reads two characters behind: a whole text opening the field
# at its very start needs the prefix's last characters back.
CONTEXT_TEMPLATE = {
    "version": 1,
    "start_anchor": "<s>",
    "fields": {
        "reasoning_content": {"open_pattern": "(?=X)", "close_pattern": "(?<=ab)X|</r>", "content": "text"},
        "content": {"content": "text"},
    },
}


@pytest.mark.parametrize("prefix", ["", "<s>", "<s>ab", "<s>xab", "<s>b", "zzab"])
@pytest.mark.parametrize("head", ["X", "Xq", "q", "abX", "aX"])
def test_whole_text_sees_the_context_before_it(prefix, head):
    """A whole text, parsed whole or fed as one chunk, whose first
    transition comes right after the prefix: `(?<=ab)X` sees the prefix's
    `ab` (the context the buffer keeps before the read position)."""
    from compiler import compile_template
    from differential import assert_same_behaviour, assert_same_whole

    module = compile_template(CONTEXT_TEMPLATE, name="context_drop")
    assert module.ResponseParser.CONTEXT == 3
    text = head + "words and more words " * 60 + "</r> tail"
    assert_same_whole(CONTEXT_TEMPLATE, module, prefix, text)
    assert_same_behaviour(CONTEXT_TEMPLATE, module, prefix, [text])


NESTED_DEFAULTS_TEMPLATE = {
    "version": 1,
    "start_anchor": "<s>",
    "defaults": {"role": "assistant", "tool_calls": [], "meta": {"source": "model"}},
    "fields": {
        "tool_calls": {"open": "<call>", "close": "</call>", "repeats": True, "content": "json"},
        "content": {"content": "text"},
    },
}


def test_defaults_are_copied_per_parse():
    """A template's defaults are copied into each message: strings as they
    are, a list or an object deeply, so a repeated field appending to a
    default list changes neither the template nor the next message."""
    from compiler import compile_template
    from differential import assert_same_whole

    module = compile_template(NESTED_DEFAULTS_TEMPLATE, name="nested_defaults")
    text = 'Hi <call>{"a": 1}</call>'
    for _ in range(2):
        assert_same_whole(NESTED_DEFAULTS_TEMPLATE, module, "", text)
        assert module.parse_response(text, prefix="")["tool_calls"] == [{"a": 1}]
    assert module.ResponseParser.DEFAULTS == NESTED_DEFAULTS_TEMPLATE["defaults"]
