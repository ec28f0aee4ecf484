"""The stream driver: `StreamParser`, which every generated parser subclasses.

What is particular to a template is generated code in its module: `feed`
with each state's fast path (text that can start no delimiter is routed
without a search), and `_process`, the reference's steps (SPEC steps 1-5)
with each state's searches written out. This class holds what they share:
the buffer and its trim to the context look-behinds read, the regions'
open, chunk and close events, the prefix and finalize. It learns nothing
at run time: no table outlives a parser. docs/runtime.md describes the
design.
"""

from copy import deepcopy

from runtime.values import _ATOMS, PREFIX_REQUIRED, close_region, finished_message, tool_parameters

FINALIZED = "ResponseParser already finalized"
NOT_READY = -9  # `_ready` when no fast path may run: text is held, or the parser is finalized
WAIT = 1000  # `_ready` is the state plus this while held text waits on a trigger string's prefix
LONG = 2000  # `_ready` is the state plus this while held text holds a whole trigger string (see _waits)
TAIL_LIMIT = 256  # prompt tails up to this long are kept (see _remember), TAILS_KEPT per class
TAILS_KEPT = 64
LONG_CONTEXT = 4096  # with unbounded look-behinds, a wait or scan that would read more text before it searches
SHORT = (
    64  # a pattern is searched by the regex alone in a buffer this short (its trigger strings first in a longer one)
)


class StreamParser:
    """Streaming response parser; subclasses supply the template's tables.

    Class attributes set by the generated module:
      FIELDS   tuple of Field
      IMPLICIT index of the implicit field, or None (the null sink)
      WATCH    state -> tuple of (kind, field index, delimiter); the state is
               the index of the open explicit field, or -1 for the implicit
               region / null sink (read by the recovery mode)
      START_ANCHOR  Literals or Pattern
      CONTEXT  characters kept before the read position for regex
               delimiters: 0 (none needed), k (look-behind width + 1), or
               -1 (all: unbounded look-behind)
      CUT      with CONTEXT -1, a ContextCut when the compiler bounds every
               unbounded look-behind's walk (else None: all text is kept)
      DEFAULTS the template's defaults
      SCANNED  the states whose held text the generated scan answers for
               (held outside the buffer, in `_held`); SCANS: state -> its scan
      HOLD_LEAD state -> the Lead a held run of which is a partial match
               from its start: the fast path may run after it
      AT_START the scanned states one of whose alternatives matches only
               where the text starts: not scanned before anything is consumed
      BEHIND   state -> the characters right after which one of its
               look-behind alternatives may match: its fast path waits
               until the character before the read position is none of them

    The buffer `_buf` is the text from absolute offset `_base` on: the
    consumed context before the read position `_pos`, the held text after
    it. The fast path routes text without touching it: what it routed is
    the region body's pieces from `_mark` on (`_sync` adds them to the
    context); the text the state's scan holds is `_held`. The fast path
    runs while `_ready` is the state (nothing held, or a run of the hold
    lead), the scan while it is the state + WAIT, and _waits first while
    it is the state + LONG (see _trim).
    """

    __slots__ = (
        "_base",
        "_body",
        "_buf",
        "_captures",
        "_current",
        "_finalized",
        "_mark",
        "_opened",
        "_output",
        "_pos",
        "_ready",
        "_held",
        "_state",
        "_tool_params",
        "initial_events",
        # a ContextCut's bookkeeping (runtime/cut.py)
        "_barrier_last",
        "_barrier_scanned",
        "_head_first",
        "_head_scanned",
        "_anchored_state",
        "_counted_seen",
        "_counted_scanned",
    )

    FIELDS = ()
    IMPLICIT = None
    WATCH = {}
    START_ANCHOR = None
    CONTEXT = 0
    CUT = None
    DEFAULTS = {}
    BEHIND = {}
    HOLD_LEAD = {}
    SCANNED = frozenset()
    SCANS = {}
    AT_START = frozenset()
    RECOVERING = None  # the class of recover=True parsers (runtime/recover.py), set by the generated module

    def __new__(cls, prefix=None, *, tools=None, recover=False, malformed="drop"):
        if recover:
            return cls.RECOVERING(cls, prefix, tools=tools, malformed=malformed)
        return object.__new__(cls)

    def __init__(self, prefix=None, *, tools=None, recover=False, malformed="drop"):
        if malformed != "drop":
            raise ValueError("malformed= applies only with recover=True")
        if prefix is None:
            raise ValueError(PREFIX_REQUIRED)
        self._tool_params = tool_parameters(tools) if tools else None
        self._buf = ""
        self._base = 0
        self._pos = 0
        self._held = ""
        self._mark = 0
        if self.CUT is not None:
            self.CUT.start(self)
        defaults = self.DEFAULTS
        # (a template's defaults are mostly strings: copying those needs no deepcopy, which costs 3 us)
        flat = all(type(value) in _ATOMS for value in defaults.values())
        self._output = dict(defaults) if flat else deepcopy(defaults)
        self._current = self.IMPLICIT
        self._state = -1
        self._captures = {}
        self._body = []
        self._opened = False
        self._finalized = False
        self.initial_events = []
        tail = self.prompt_tail(prefix) if prefix else ""
        if not tail:
            self._trim()
        elif not self._restore(tail):
            self._buf = tail
            self._process(self.initial_events, False)
            self._trim()
            self._remember(tail)

    # The prompt's tail is the chat template's generation prompt (`<think>\n`,
    # an empty reasoning block): the same for every request, so what the
    # parser makes of it is kept per class, for short tails whose results
    # are atoms. Never keyed by the model's output.
    _TAIL_SLOTS = ("_buf", "_base", "_pos", "_held", "_mark", "_state", "_current", "_opened", "_ready")

    def _remember(self, tail):
        tails = type(self).__dict__.get("_TAILS")
        if tails is None:
            tails = {}
            type(self)._TAILS = tails
        if len(tail) > TAIL_LIMIT or len(tails) >= TAILS_KEPT or self.CUT is not None:
            return
        added = {key: value for key, value in self._output.items() if self.DEFAULTS.get(key, tails) is not value}
        values = [*added.values(), *self._captures.values(), *(e.get("value") for e in self.initial_events)]
        if all(type(value) in _ATOMS for value in values):
            state = tuple(getattr(self, name) for name in self._TAIL_SLOTS)
            tails[tail] = (state, tuple(self._body), dict(self._captures), added, tuple(self.initial_events))

    def _restore(self, tail):
        """What the parser made of `tail` before, set again (False: not kept)."""
        known = type(self).__dict__.get("_TAILS", {}).get(tail)
        if known is None:
            return False
        state, body, captures, added, events = known
        for name, value in zip(self._TAIL_SLOTS, state):
            setattr(self, name, value)
        self._body = list(body)
        self._captures = dict(captures)
        self._output.update(added)
        self.initial_events = [dict(event) for event in events]
        return True

    @staticmethod
    def prompt_tail(prefix):
        """The prompt after the start anchor's last match (generated per template)."""
        raise NotImplementedError

    @property
    def captures(self):
        """The named groups of the open match of the region open now (a copy;
        empty in the implicit region or when the open had no groups)."""
        return dict(self._captures)

    def feed(self, text):
        """More output: the events it makes (generated modules add their fast paths)."""
        return self._slow(text)

    def _slow(self, text, waits=False):
        """`feed` when no fast path takes `text`: the general step, unless
        the held text with `text` is still a partial match (asked with
        `waits`, or when the buffer holds the held text; see _waits)."""
        if self._finalized:
            raise RuntimeError(FINALIZED)
        events = []
        if text and (waits or self._pos < len(self._buf)) and self._waits(text):
            return events
        self._sync(text)
        self._process(events, False)
        self._trim()
        return events

    def _waits(self, text):
        """Whether a watched delimiter still has a pending match at the read
        position once `text` joins the held text (a partial match the search
        would take, or a complete one the reference holds at the buffer's
        end): then the step routes nothing and commits nothing (every match
        starts there or later, and one there is not before the hold), so
        `text` is only held. One anchored match per delimiter, where the
        step would search them all: a long open
        (`<|tool_calls_section_begin|>...`) arriving in pieces waits so."""
        held = self._held
        pos = self._pos
        if self.CONTEXT < 0 and pos > LONG_CONTEXT:
            return False  # (all of a long text before it would be read: the step searches it once)
        if held:
            before = self._context_before(pos)
            tail = held + text
        else:
            buf = self._buf
            before = buf[:pos]
            tail = buf[pos:] + text
        for _kind, _index, delim in self.WATCH[self._state]:
            # (a partial match there is the one the search takes only when
            # the delimiter has no complete match further on)
            literals = delim.literals
            if literals is not None:
                if any(literal in tail for literal in literals):
                    continue
                if not any(literal.startswith(tail) for literal in literals):
                    continue
            else:
                compiled = delim.compiled
                whole = before + tail
                found = compiled.match(whole, len(before), partial=True)
                if found is None:
                    continue
                if found.partial:
                    ends = delim.ends
                    if (not ends or any(end in tail for end in ends)) and compiled.search(
                        whole, len(before)
                    ) is not None:
                        continue
                elif found.end() != len(whole):
                    continue
            if held:
                self._held = tail
                self._ready = self._state + LONG  # (no run of the hold lead the fast path may take)
            else:
                self._buf += text
            return True
        return False

    def finalize(self):
        """End of generation: return (message, final events)."""
        if self._finalized:
            raise RuntimeError(FINALIZED)
        events = []
        self._sync("")
        self._process(events, True)
        output = self._output
        missing = [field.name for field in self.FIELDS if not field.optional and field.name not in output]
        if missing:
            raise ValueError(f"Required response_template fields missing from parsed output: {missing}")
        self._output = finished_message(output, self.DEFAULTS)
        self._finalized = True
        self._ready = NOT_READY
        return self._output, events

    # -- buffer ------------------------------------------------------------

    def _sync(self, text):
        """The buffer catches up: the text the fast path routed since it was
        last read joins the context, then the held run and `text`."""
        body = self._body
        mark = self._mark
        buf = self._buf
        self._buf = ""  # `buf` is the string's only reference: `+=` extends it in place
        if len(body) > mark:
            context = self.CONTEXT
            if context < 0:
                buf += "".join(body[mark:]) if len(body) - mark > 1 else body[mark]
            else:
                # only the last `context` characters are read
                first = _last_pieces(body, mark, context)
                routed = "".join(body[first:])
                kept = (buf + routed)[-context:] if context else ""
                self._base += len(buf) + sum(map(len, body[mark:first])) + len(routed) - len(kept)
                buf = kept
            if self._current is None:
                body.clear()  # the null sink's pieces only carried context
            self._pos = len(buf)
        held = self._held
        if held:
            buf += held
            self._held = ""
        buf += text
        self._buf = buf
        self._mark = len(body)

    def _trim(self):
        """After a step: keep only the context before the read position, and
        open the fast path when nothing is held (and no look-behind
        alternative may match right after the character before the read
        position)."""
        context = self.CONTEXT
        pos = self._pos
        if context >= 0:
            if pos > context:
                self._buf = self._buf[pos - context :]
                self._base += pos - context
                self._pos = pos = context
        elif self.CUT is not None:
            self.CUT.cut(self)
            pos = self._pos
        self._mark = len(self._body)
        buf = self._buf
        state = self._state
        ready = NOT_READY
        behind = self.BEHIND.get(state)
        if behind is not None and (pos == 0 or buf[pos - 1] in behind):
            pass  # a look-behind alternative may match right after that character: searched
        elif state in self.AT_START and self._base + pos == 0:
            pass  # nothing consumed: the alternatives the scan leaves out may still match
        elif pos == len(buf):
            ready = state
        elif state in self.SCANNED:
            # held text, from now on asked of the state's scan with the next text
            held = buf[pos:]
            self._held = held
            self._buf = buf[:pos]
            lead = self.HOLD_LEAD.get(state)
            if lead is not None and lead.holds(held):
                ready = state
            elif len(held) > 1 and self.SCANS[state](held[:-1], self, pos)[0] < 0:
                # a whole trigger string before its last character: a long
                # delimiter that goes on, asked of _waits first (one that
                # ends in its trigger string is mostly committed next)
                ready = state + LONG
            else:
                ready = state + WAIT
        self._ready = ready

    def _hold(self, tail, at, ready):
        """The scan's answer: `tail` up to `at` is routed, the rest held."""
        self._held = tail[at:]
        self._ready = ready
        if not at:
            return []
        text = tail[:at]
        self._body.append(text)  # (the null sink's too: it carries the context)
        current = self._current
        if current is None:
            return []
        field = self.FIELDS[current]
        chunk = {"type": "region_chunk", "field": field.name, "text": text, "dirty": field.dirty}
        if not self._opened:
            self._opened = True
            return [{"type": "region_open", "field": field.name}, chunk]
        return [chunk]

    def _before(self, pos, size):
        """The last `size` characters of the text consumed before `pos` (fewer at the start)."""
        text = self._buf[pos - size if pos > size else 0 : pos]
        body = self._body
        mark = self._mark
        if len(body) > mark:  # what the fast path routed since the buffer was last read
            text = (text + "".join(body[_last_pieces(body, mark, size) :]))[-size:]
        return text

    def _context_before(self, pos):
        """The text before `pos` the watched regexes may read (CONTEXT
        characters, or all of it), or None when that is over LONG_CONTEXT
        characters of unbounded look-behind: then only the step's own search
        reads it, once."""
        context = self.CONTEXT
        if context < 0 and pos > LONG_CONTEXT:
            return None
        return self._before(pos, context if context >= 0 else pos)

    # -- regions -----------------------------------------------------------

    def _route(self, events, text):
        """Text goes to the current region (nothing to the null sink)."""
        current = self._current
        if current is None:
            return
        field = self.FIELDS[current]
        if not self._opened:
            events.append({"type": "region_open", "field": field.name})
            self._opened = True
        self._body.append(text)
        self._mark += 1  # (the buffer holds it)
        events.append({"type": "region_chunk", "field": field.name, "text": text, "dirty": field.dirty})

    def _open(self, events, index, match):
        """The region of field `index` opens (`match`: the open's regex match, or None)."""
        self._close(events)
        self._current = self._state = index
        if match is not None:
            self._captures = {key: value for key, value in match.groupdict().items() if value is not None}
        self._opened = True
        events.append({"type": "region_open", "field": self.FIELDS[index].name})

    def _close(self, events):
        """Close the current region (if it ever opened) and return to the implicit one."""
        current = self._current
        if current is not None and self._opened:
            field = self.FIELDS[current]
            value = close_region(field, self._output, self._body, self._captures, self._tool_params)
            events.append({"type": "region_close", "field": field.name, "value": value})
        self._current = self.IMPLICIT
        self._state = -1
        self._captures = {}
        self._body = []
        self._mark = 0
        self._opened = False


def _last_pieces(body, mark, size):
    """The index of the first of the pieces from `mark` on that, taken to
    the end, hold the last `size` characters (or all of them)."""
    first = len(body)
    while first > mark and size > 0:
        first -= 1
        size -= len(body[first])
    return first


def prefix_rules(owners):
    """A scan's table: each proper prefix of the owned strings -> the owners
    of the strings it starts (compiler/passes/scan_plan.py, ScanPlan.owners)."""
    rules = {}
    for string, owner in owners:
        for size in range(1, len(string)):
            rule = rules.setdefault(string[:size], [])
            if owner not in rule:
                rule.append(owner)
    return {prefix: tuple(rule) for prefix, rule in rules.items()}


def hold_start(tail, at, rule, parser, pos):
    """Where the partial matches of the trigger prefix at `at` in `tail` (the
    text from `pos` on) start, the earliest: per owner in `rule`, at the run
    of its lead before the prefix (or at the prefix) where the text before
    that ends in one of its look-behind strings (Branch.after); an owner
    that is not exact (a delimiter) by its regex, tried from its lead run
    to the prefix. -1 for none; -2 when only the search can tell."""
    best = -1
    for lead, after, delim in rule:
        start = at
        if delim is not None:
            start = delim.leads.run_start(tail, at) if delim.leads else at
            before = parser._context_before(pos)
            if before is None:
                return -2  # (all of a long text before it would be read: searched)
            text = before + tail
            match = delim.compiled.match
            while start <= at and match(text, len(before) + start, partial=True) is None:
                start += 1
            if start > at:
                continue
        elif lead is not None:
            while start > 0 and lead.holds(tail[start - 1]):
                start -= 1
        if after and not (tail[:start] if start >= 64 else parser._before(pos, 64) + tail[:start]).endswith(after):
            continue
        if best < 0 or start < best:
            best = start
    return best
