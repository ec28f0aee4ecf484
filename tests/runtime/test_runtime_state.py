"""The Python driver's own bookkeeping, which the vectors can only see by
chance: the buffer's absolute offset and contents, and the `captures`
property between regions.

`StreamParser._base` (the absolute offset of `_buf`) keys the memo of
literal searches and of regex searches; a wrong offset or a wrong kept
context shows in events only when a stale memo entry happens to be read.
So the invariant is checked directly, after every call, on every vector
case: the text from `_base` on is exactly the buffer, then (on the common
path, see `_materialize`) the body pieces routed since `_hot_from`, then the
held pieces; and the table of remembered steps stays bounded. Part of mutmut's selection (pyproject.toml, docs/mutation.md).
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
    routed = "".join(parser._body[parser._hot_from :]) if parser._stale else ""
    return parser._buf + routed + "".join(parser._pieces)


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
        # A bounded look-behind keeps at most CONTEXT consumed characters
        # (_note_held and _materialize trim; _append relies on it).
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
    for name, module in modules.items():
        _check_step_table(name, module.ResponseParser)


def _check_step_table(name, cls) -> None:
    """The remembered general steps (`StreamParser._step`) are bounded: a
    key holds at most STEP_LIMIT unconsumed characters (longer rests take
    the step unremembered), and a template with an unbounded look-behind
    (CONTEXT -1, whose buffer keeps all of the text up to its last cut, see
    ContextCut) remembers only buffers of at most STEP_LIMIT characters in
    all, so remembering costs a bounded hash per step and bounded memory."""
    table = cls.__dict__.get("_STEP_TABLE") or {}
    scanners = cls._scanners()
    for key, known in table.items():
        if cls.CONTEXT < 0 and scanners[key[0]] is None:
            # a state without a scanner remembers only steps that open or close
            opens_or_closes = any(op[0] != core.ROUTE_OP for op in known[0])
            assert opens_or_closes, f"{name}: a remembered scannerless step that only routes"
        pos, buf = key[3], key[4]
        assert len(buf) - pos <= core.STEP_LIMIT, f"{name}: a remembered step of {len(buf) - pos} characters"
        if cls.CONTEXT < 0:
            assert len(buf) <= core.STEP_LIMIT, f"{name}: a remembered step on a buffer of {len(buf)} characters"
        else:
            assert pos <= cls.CONTEXT, f"{name}: a remembered step on an untrimmed buffer"


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


@pytest.mark.parametrize("name", ["apertus", "glm47", "hermes2_pro", "lfm2", "llama4_pythonic", "olmo3", "qwen3"])
def test_repeated_calls_replay_from_the_chain(name, monkeypatch):
    """On many small calls, once a call's steps are remembered, every token
    the common path does not take replays the step remembered after the
    last one (its chain, see StreamParser._feed_general): no step is looked
    up or taken, and with a ContextCut no cut is run, the cut being part of
    the replayed step. Inspected from the driver's calls, not timed."""
    module = load_generated(name)
    stream = shape_stream(name, "calls", 600, module)
    assert len(stream.tokens) > 560
    parser = module.ResponseParser(stream.prefix)
    for token in stream.tokens[:300]:
        parser.feed(token)
    taken = []
    for owner, method in ((core.StreamParser, "_step"), (core.ContextCut, "cut"), (core.StreamParser, "_append")):
        original = getattr(owner, method)
        monkeypatch.setattr(
            owner, method, lambda self, *args, _f=original, _m=method: taken.append(_m) or _f(self, *args)
        )
    replayed = []
    original_replay = core.StreamParser._replay
    monkeypatch.setattr(
        core.StreamParser,
        "_replay",
        lambda self, events, known: replayed.append(1) or original_replay(self, events, known),
    )
    for token in stream.tokens[300:540]:
        parser.feed(token)
    assert taken == [] and len(replayed) >= 240 // 4, (taken[:5], len(replayed))


@pytest.mark.parametrize(
    "chunks, mode, in_lead",
    [(["<think>"], "_hot", False), (["<think>abc \n"], "_lead_hot", False), (["\n\n"], None, True)],
)
def test_a_replayed_step_leaves_what_the_step_left(chunks, mode, in_lead):
    """A remembered step records what `_note_held` decided after it: the
    common path it opened (all tokens routed: `_hot`; a trailing run of the
    hold lead held: `_lead_hot`) or, before any region text, whether the
    held text is all hold lead (`_held_in_lead`: the next lead token joins
    it without a step); a replay sets the same, so the next token takes the
    same path after a replay as after the first time."""
    cls = load_generated("qwen3").ResponseParser
    for _ in range(2):  # the first records the step, the second replays it
        parser = cls("")
        for chunk in chunks:
            parser.feed(chunk)
        for attribute in ("_hot", "_lead_hot"):
            assert (getattr(parser, attribute) is not None) == (attribute == mode)
        assert parser._held_in_lead is in_lead


@pytest.mark.parametrize("name", ["apertus", "glm47", "lfm2", "llama4_pythonic", "olmo3"])
def test_a_step_that_takes_its_cut_is_keyed_by_the_bookkeeping(name, monkeypatch):
    """A step that takes its ContextCut with it (`_uncut` set by `_append`)
    is keyed with the number of the cut's bookkeeping (`_cut_id`): that
    number names exactly the bookkeeping the parser holds (a key with no
    number, or a stale one, would replay a cut made from other positions)."""
    module = load_generated(name)
    original = core.StreamParser._step
    checked = []

    def step(self, events, scanner):
        if self._uncut >= 0:
            number = self._cut_id
            assert type(number) is int
            if not self._cut_stale:  # the lists are the bookkeeping: number them afresh
                self._cut_id = None
                assert self.CUT.state_id(self) == number
            checked.append(number)
        return original(self, events, scanner)

    monkeypatch.setattr(core.StreamParser, "_step", step)
    # the tokens, then the same with a long chunk among them: its cut is
    # taken by _append (the buffer is longer than STEP_LIMIT), and the
    # steps after it must number the bookkeeping that cut left
    for prefix, tokens, with_long_chunk in _cut_streams(name, module, seed=7, joined=(50, 150)):
        for chunks in (tokens, with_long_chunk):
            parser = module.ResponseParser(prefix)
            for chunk in chunks:
                parser.feed(chunk)
            parser.finalize()
    assert len(checked) > 10


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


def test_scan_keys_hold_what_the_state_reads_behind():
    """A remembered scan (`StreamParser._scan_remembered`) is keyed on the
    context its own state's delimiters read behind the read position
    (SCAN_CONTEXT), not on the template's CONTEXT: deepseek_v32 keeps 95
    characters for its tool-call close's look-behind, but its implicit
    state's scans of delimiter prefixes are keyed on one, so they repeat."""
    module = load_generated("deepseek_v32")
    cls = module.ResponseParser
    assert cls.CONTEXT == 95 and cls.SCAN_CONTEXT == {-1: 1, 0: 1}
    stream = shape_stream("deepseek_v32", "prefixes", 400, module)
    parser = cls(stream.prefix)
    for token in stream.tokens:
        parser.feed(token)
    keys = [key for key in cls.__dict__["_SCAN_TABLE"] if key[0] == -1]
    assert keys and all(key[3] <= 1 for key in keys)


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
    original_step = core.StreamParser._step

    def checked(rule, self, size=None):
        before = (self._base, self._pos, _anchored_state(self))
        text = texts[id(self)][: self._base + (len(self._buf) if size is None else size)]
        searches = []
        self._buf = _SearchedText(self._buf, searches)
        original(rule, self, size)
        if type(self._buf) is _SearchedText:
            self._buf = str.__str__(self._buf)
        expected = _cut_by_the_rule(self.CUT, text, *before)
        calls.append(before[0] != self._base)
        if (self._base, self._anchored_state) != expected:
            wrong.append((type(self).__module__, before, len(text), (self._base, self._anchored_state), expected))
        wrong.extend(_searched_twice(before[0], searches, searched_to[id(self)]))

    def checked_step(self, events, scanner):
        # A step that took its cut with it (`_uncut`), replayed or not, ends
        # on the cut the rule says (CONTEXT -1: nothing else moves _base).
        uncut = self._uncut
        before = (self._base, self._pos, _anchored_state(self))
        text = texts[id(self)][: self._base + uncut]
        original_step(self, events, scanner)
        if uncut >= 0:
            expected = _cut_by_the_rule(self.CUT, text, *before)
            calls.append(before[0] != self._base)
            if (self._base, _anchored_state(self)) != expected:
                wrong.append(("step", type(self).__module__, before, len(text), self._base, expected))

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
    monkeypatch.setattr(core.StreamParser, "_step", checked_step)
    return parse, calls, wrong


def _anchored_state(parser):
    """`_anchored_state`, also after replayed steps (which keep the cut's
    bookkeeping as its number until the next `ContextCut.cut`)."""
    if parser._cut_stale:
        return parser._cut_states[parser._cut_id][-1]
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
def test_context_cut_is_where_the_rule_says_after_replays(name, monkeypatch):
    """The cut check on the benchmark's stream shapes, each parsed twice (the
    second time its steps replay their cuts, leaving the bookkeeping as a
    number, see `ContextCut.restore`), then with a long chunk among the
    tokens: that chunk's cut, taken by _append from the restored
    bookkeeping, and every cut after it, must be where the rule says."""
    parse, calls, wrong = _checked_cuts(monkeypatch)
    module = load_generated(name)
    cls = module.ResponseParser
    for prefix, tokens, with_long_chunk in _cut_streams(name, module, seed=11, joined=(120, 220)):
        for chunks in (tokens, tokens, with_long_chunk):
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
def test_whole_text_searched_without_its_context(prefix, head):
    """A whole text starting in a state whose delimiters read nothing behind
    the read position is searched without the context before it
    (`_feed_whole`); a transition closer to its start than CONTEXT brings the
    context back, so `(?<=ab)X` still sees the prefix's `ab`."""
    from compiler import compile_template
    from differential import assert_same_whole

    module = compile_template(CONTEXT_TEMPLATE, name="context_drop")
    assert module.ResponseParser.BLIND == frozenset({-1}) and module.ResponseParser.CONTEXT == 3
    text = head + "words and more words " * 60 + "</r> tail"
    assert len(text) > core.SETTLE_LIMIT
    assert_same_whole(CONTEXT_TEMPLATE, module, prefix, text)
    parser = module.ResponseParser(prefix)
    context = parser._buf
    parser._feed_whole(text)
    assert parser._lost == (context or None) and parser._pos == 0  # unsearched until finalize
    parser.finalize()
    with pytest.raises(RuntimeError, match="already finalized"):
        parser._feed_whole(text)
    # searched without the context when there was one; regained or let go
    # at the first transition (the look-ahead open, at the first X)
    assert parser._lost == (context if context and "X" not in text else None)


class _CountedSearch:
    """A Horizon search that runs the real str.find, Anchor or pass and
    counts the characters it read: from its start to what it found, or to
    its limit."""

    def __init__(self, key, counter, anchor):
        self.key, self.counter, self.anchor = key, counter, anchor

    def search(self, buf, start, limit):
        if self.anchor is not None:
            found = self.anchor.find(buf, start, limit)
            match = None if found < 0 else _Found(found)
        elif type(self.key) is str:
            found = buf.find(self.key, start, limit)
            match = None if found < 0 else _Found(found)
        else:
            match = self.key.search(buf, start, limit)
        self.counter[0] += max(0, (limit if match is None else match.start() + 1) - start)
        return match


class _Found:
    def __init__(self, at):
        self.at = at

    def start(self):
        return self.at


@pytest.mark.parametrize("name", ["cohere_command", "deepseek_r1", "qwen3", "gpt_oss", "seed_oss"])
def test_a_whole_text_is_read_about_once_per_state(name, monkeypatch):
    """parse_response on a long text: each state's Horizon reads the text
    from the read position to the next transition (its finds remembered per
    parser, each bounded by the best found so far), so its searches read
    each character about once per state, however many transitions there
    are; the delimiters then search from where it stopped."""
    from benchmarks.shapes import mixed_stream

    module = load_generated(name)
    cls = module.ResponseParser
    stream = mixed_stream(name, 3000, seed=3)
    text = stream.text
    counter = [0]
    horizons = {}
    for state, horizon in cls._horizons().items():
        if horizon is not None:
            counted = core.Horizon.__new__(core.Horizon)
            counted.watch = horizon.watch
            counted.searches = tuple(
                (_CountedSearch(key, counter, anchor), width, shortest, None)
                for key, width, shortest, anchor in horizon.searches
            )
            horizons[state] = counted
    assert horizons, "every one of these templates has a state with several trigger strings"
    monkeypatch.setattr(cls, "_HORIZONS", {**cls._horizons(), **horizons})
    transitions = []
    original_open, original_close = core.StreamParser._open, core.StreamParser._close
    monkeypatch.setattr(core.StreamParser, "_open", lambda self, *a: transitions.append(1) or original_open(self, *a))
    monkeypatch.setattr(core.StreamParser, "_close", lambda self, *a: transitions.append(1) or original_close(self, *a))
    expected = module.ResponseParser(stream.prefix)
    expected.feed(text)  # the streaming path, without any Horizon: the same message
    message = module.parse_response(text, prefix=stream.prefix)
    assert message == expected.finalize()[0]
    groups = max(len(h.searches) for h in horizons.values())
    assert len(transitions) >= 4
    assert 0 < counter[0] <= 2 * groups * len(text), (counter[0], len(text), groups, len(transitions))


def test_a_token_routed_whole_with_its_trigger_character_becomes_plain():
    """phi4_mini watches `functools[` in its implicit state, so ` first`
    holds a trigger character. Met once with nothing held, the scanner
    routes it whole; being no trigger string, no prefix of one at its end
    and no lead at its end, it then takes the common path's one lookup like
    any plain token (`Scanner.learns_triggered`). A state whose alternatives
    read the character before the tail (llama4_pythonic's `)`), or whose
    strings start with a lead character (olmo3's `\\n`), keeps asking the
    scanner: there the answer depends on what came before."""
    module = load_generated("phi4_mini")
    parser = module.ResponseParser("")
    scanner = parser._scanner_of[-1]
    assert "f" in scanner.firsts and scanner.learns_triggered
    for token in ["Hello", " first", " of", " all", " first", " functools", "[", "x"]:
        parser.feed(token)
    assert " first" in scanner.plain and scanner.trigger_holds.get(" first") == len(" first")
    assert " functools" not in scanner.plain  # a prefix of `functools[` at its end: held
    streamed = module.ResponseParser("")
    streamed.feed("Hello")  # opens the region
    for token in [" first", " first"]:
        assert streamed.feed(token) == [{"type": "region_chunk", "field": "content", "text": token, "dirty": False}]
    assert streamed.finalize()[0] == {"role": "assistant", "content": "Hello first first"}
    assert not load_generated("llama4_pythonic").ResponseParser("")._scanner_of[-1].learns_triggered
    assert not load_generated("olmo3").ResponseParser("")._scanner_of[-1].learns_triggered


STRIP_TEMPLATE = {
    "version": 1,
    "start_anchor": "<s>",
    "fields": {
        "reasoning_content": {"open": "<think>", "close": "</think>", "content": "text"},
        "content": {"close": "<end>", "content": "text"},
        "notes": {"open": "<raw>", "close": "</raw>", "content": "text", "content_args": {"strip": False}},
    },
}


# the same without a content field: text outside the regions goes nowhere
NULL_SINK_TEMPLATE = {
    **STRIP_TEMPLATE,
    "fields": {name: field for name, field in STRIP_TEMPLATE["fields"].items() if name != "content"},
}


@pytest.mark.parametrize("edge", ["", " ", "\n\n", " \t\u3000\x1c", "\u2028 "])
@pytest.mark.parametrize("inner", ["words and more words " * 60, " " * 1500, "x" + " \n" * 700 + "y"])
def test_a_whole_text_slices_a_stripped_region_once(edge, inner):
    """parse_response routes a long region that closes right after its body
    without the whitespace its close strips (`_route_closing`): the value is
    the routed slice itself, not a strip of it; so does a last region that
    no delimiter closes (the whole text is searched as the end of the
    stream). A whitespace-only body, a region that does not strip (`notes`)
    and a stream keep the raw text."""
    from compiler import compile_template
    from differential import assert_same_behaviour, assert_same_whole

    module = compile_template(STRIP_TEMPLATE, name="strip_once")
    sinkless = compile_template(NULL_SINK_TEMPLATE, name="strip_once_sinkless")
    for text in (
        f"<think>{edge}{inner}{edge}</think>{edge}{inner}{edge}<end>",
        f"{edge}{inner}{edge}",
        f"<raw>{edge}{inner}{edge}</raw>",
        f"{edge}{inner}{edge}<end>",
    ):
        assert len(text) > core.SETTLE_LIMIT
        # a prefix that leaves text in the region: the body is not the slice alone
        for prefix in ("<s>", "<s>x", "<s><think>ab"):
            assert_same_whole(STRIP_TEMPLATE, module, prefix, text)
        assert_same_whole(NULL_SINK_TEMPLATE, sinkless, "<s>", text)
        assert_same_whole(NULL_SINK_TEMPLATE, sinkless, "<s>", f"{text}<think>x</think>")
        routed = []
        parser = module.ResponseParser("<s>")
        real_route = parser._route
        parser._route = lambda events, piece: routed.append(piece) or real_route(events, piece)
        parser._feed_whole(text)
        message = parser.finalize()[0]
        values = [message[field] for field in ("reasoning_content", "content", "notes") if field in message]
        stripped = inner.strip()
        if text.startswith("<raw>"):  # a region that keeps its whitespace
            assert routed == [f"{edge}{inner}{edge}"]
        elif stripped:
            assert routed == [stripped] * len(values)
            assert all(any(value is piece for piece in routed) for value in values)
        else:  # nothing but whitespace: routed as it is, the close strips it to nothing
            assert all(piece.isspace() for piece in routed)
        streamed = module.ResponseParser("<s>")
        streamed.feed(text)
        assert not streamed._whole  # a stream's events carry the raw text
        assert_same_behaviour(STRIP_TEMPLATE, module, "<s>", [text])


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
