"""The stream driver: `StreamParser`, which every generated parser subclasses.

The general step (SPEC steps 1-5: scan, commit, hold back, route), its
remembered answers per parser class (`_scan_remembered`, `_step`,
`_replay`), the buffer and its trim, and the regions' open and close
events. The token paths come from `TokenFeed` (runtime/feed.py); the cut of
a template with unbounded look-behinds from its `ContextCut`
(runtime/cut.py). docs/runtime.md describes the design.
"""

from copy import deepcopy

from runtime.delimiters import LONG_TEXT, last_anchor_end
from runtime.feed import TokenFeed
from runtime.scanner import (
    CLOSE_OP,
    CUT_DONE,
    HOT_MODE,
    LAZY_CUT,
    LEAD_HOT_MODE,
    OPEN_OP,
    PLAIN_TOKENS,
    ROUTE_OP,
    SCAN_CONTEXT_LIMIT,
    SETTLE_LIMIT,
    STEP_LIMIT,
    UNCUT,
    Horizon,
    Scanner,
)
from runtime.values import _ATOMS, OPEN, PREFIX_REQUIRED, close_region, finished_message, tool_parameters


class StreamParser(TokenFeed):
    """Streaming response parser; subclasses supply the template's tables.

    Class attributes set by the generated module:
      FIELDS   tuple of Field
      IMPLICIT index of the implicit field, or None
      WATCH    state -> tuple of (kind, field index, delimiter); the state is
               the index of the open explicit field, or -1 for the implicit
               region / null sink
      START_ANCHOR  Literals or Pattern
      FAST     state -> FastPath, for states whose delimiters allow skipping
      CONTEXT  characters kept before the read position for regex
               delimiters: 0 (none needed), k (look-behind width + 1), or
               -1 (all: unbounded look-behind)
      SCAN_CONTEXT  state -> the same for that state's own delimiters, where
               it differs: a scan (no transition) reads no more behind, so
               its remembered answer is keyed on that much (_scan_remembered)
      CUT      with CONTEXT -1, a ContextCut when the compiler bounds every
               unbounded look-behind's walk (else None: all text is kept)
      DEFAULTS the template's defaults
    """

    # Slots, not an instance dict: a parser has more attributes than
    # CPython's shared-key instance dicts hold (30), and every token reads
    # and writes a few of them; a slot is read at a fixed offset. (A
    # generated subclass declares none, so its instances have a dict for
    # anything else; these names still resolve to the slots.)
    __slots__ = (
        "_anchored_state",
        "_append_body",
        "_barrier_last",
        "_barrier_scanned",
        "_base",
        "_body",
        "_buf",
        "_captures",
        "_chain",
        "_chain_at",
        "_chunk",
        "_counted_scanned",
        "_counted_seen",
        "_current",
        "_cut_id",
        "_cut_stale",
        "_cut_states",
        "_dirty",
        "_finalized",
        "_head_first",
        "_head_scanned",
        "_held_hot",
        "_held_in_lead",
        "_hot",
        "_hot_from",
        "_lead_hot",
        "_lost",
        "_matches",
        "_memo",
        "_name",
        "_opened",
        "_output",
        "_pieces",
        "_pos",
        "_scan_table",
        "_scanner",
        "_scanner_of",
        "_stale",
        "_state",
        "_step_table",
        "_tool_params",
        "_trace",
        "_uncut",
        "_whole",
        "initial_events",
    )

    FIELDS = ()
    IMPLICIT = None
    WATCH = {}
    FAST = {}
    START_ANCHOR = None
    ANCHOR_FROM_END = None  # the anchor, when its last match is its rfind (compiler: Program.anchor_from_end)
    CONTEXT = 0
    SCAN_CONTEXT = {}
    BLIND = frozenset()
    CUT = None
    DEFAULTS = {}
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
        self._tool_params = tool_parameters(tools)
        self._buf = ""  # the text from absolute offset _base on
        self._base = 0
        self._pos = 0  # read position, relative to _buf
        self._memo = {}
        self._lost = None  # the context a whole text is searched without (see _feed_whole)
        self._whole = False  # parse_response's parser: no event reaches anyone (see _route_closing)
        self._matches = {}  # pattern -> its last search (see _scan); emptied as the buffer grows
        self._pieces = []  # held text not yet joined onto _buf (see feed)
        self._held_in_lead = False
        self._hot = None  # the state's Scanner's plain tokens while the common path is open
        self._lead_hot = None  # the same while a run of its hold lead is held
        self._held_hot = None  # the same while other text it held waits for the next token (see _hold_tail)
        self._hot_from = 0  # body pieces before that are in the buffer
        self._stale = False  # whether later body pieces are not (see _materialize)
        self._scanner_of = self._scanners()
        self._scan_table = self._class_table("_SCAN_TABLE")
        self._step_table = self._class_table("_STEP_TABLE")
        self._trace = None  # the list _route/_open/_close record into (see _step)
        if self.CUT is not None:
            self.CUT.start(self)  # its bookkeeping (runtime/cut.py)
        # The buffer's length before _append when its cut is left to _step,
        # or CUT_DONE (_append did what the ContextCut asks, apart from the
        # step; always so without one) or UNCUT (a state without a scanner
        # left its short buffer uncut; its step is keyed with the cut's
        # bookkeeping, which the next cut reads).
        self._uncut = CUT_DONE
        self._chain = None  # the steps that follow the last remembered one (see _feed_general)
        self._chain_at = 0  # the body's length when it was set
        defaults = self.DEFAULTS
        # (a template's defaults are mostly strings: copying those needs no deepcopy, which costs 3 us)
        flat = all(type(value) in _ATOMS for value in defaults.values())
        self._output = dict(defaults) if flat else deepcopy(defaults)
        self._enter_implicit()
        self._captures = {}
        self._body = []
        self._append_body = self._body.append  # the common path's (kept with _body)
        self._opened = False
        self._finalized = False
        self.initial_events = []
        if prefix:
            anchor = self.ANCHOR_FROM_END
            if anchor is not None:
                end = prefix.rfind(anchor)
                text = prefix if end < 0 else prefix[end + len(anchor) :]
            else:
                end = last_anchor_end(self.START_ANCHOR, prefix)
                text = prefix if end is None else prefix[end:]
            if text:
                self._buf = text
                self._process(self.initial_events, False)
                self._note_held()

    @classmethod
    def _scanners(cls):
        """State -> Scanner (or None), built once per parser class."""
        table = cls.__dict__.get("_SCANNERS")
        if table is None:
            table = {state: Scanner.of_state(watch, cls.FAST.get(state)) for state, watch in cls.WATCH.items()}
            cls._SCANNERS = table
        return table

    @classmethod
    def _horizons(cls):
        """State -> Horizon (or None), built as _scanners is, on the first
        whole text."""
        table = cls.__dict__.get("_HORIZONS")
        if table is None:
            table = {state: Horizon.of_state(watch) for state, watch in cls.WATCH.items()}
            cls._HORIZONS = table
        return table

    @classmethod
    def _class_table(cls, attribute):
        """A dict kept on the parser class itself (not inherited): the
        remembered scans (`_SCAN_TABLE`) and steps (`_STEP_TABLE`)."""
        table = cls.__dict__.get(attribute)
        if table is None:
            table = {}
            setattr(cls, attribute, table)
        return table

    # -- public API --------------------------------------------------------

    @property
    def captures(self):
        """The named groups of the open match of the region open now (a copy;
        empty in the implicit region or when the open had no groups)."""
        return dict(self._captures)

    def finalize(self):
        """End of generation: return (message, final events)."""
        if self._finalized:
            raise RuntimeError("ResponseParser already finalized")
        self._held_hot = None
        if self._stale:
            self._materialize()
        events = []
        if self._pieces:
            self._grow("".join(self._pieces))
            self._pieces = []
        self._process(events, True)
        output = self._output
        missing = [field.name for field in self.FIELDS if not field.optional and field.name not in output]
        if missing:
            raise ValueError(f"Required response_template fields missing from parsed output: {missing}")
        self._output = finished_message(output, self.DEFAULTS)
        self._finalized = True
        return self._output, events

    # -- buffer ------------------------------------------------------------

    def _grow(self, text):
        """Append `text` to the buffer. The buffer's only reference is the
        local `buf` while it grows, so CPython extends the string in place
        instead of copying it (a buffer that keeps all of the text, CONTEXT
        -1, would otherwise be copied at every token): the last searches'
        matches, which hold the old buffer, are dropped first (they answer
        only for that buffer)."""
        if self._matches:
            self._matches.clear()
        buf = self._buf
        self._buf = ""
        buf += text
        self._buf = buf

    def _append(self, text):
        """The held pieces and `text` join the buffer, the consumed text no
        look-behind reads dropped first (the join of the pieces, the
        ContextCut, and `_grow` in one: this runs at every token off the
        common path)."""
        pieces = self._pieces
        held = ""
        if pieces:
            held = "".join(pieces)
            self._pieces = []
        if self._matches:
            self._matches.clear()
        buf = self._buf
        self._buf = ""  # the local is its only reference: `+=` extends it in place (see _grow)
        # With CONTEXT >= 0 there is nothing to trim here: _note_held (after
        # every step) and _materialize leave at most CONTEXT characters
        # before the read position.
        if self.CUT is not None:
            # CONTEXT -1 with a ContextCut (the compiler makes one only for
            # CONTEXT -1): the text no look-behind can read
            # any more goes, right before the step that reads the buffer. A
            # state without a scanner cuts only a buffer longer than LAZY_CUT
            # (UNCUT: not at all; its steps are remembered only then, see
            # _step): a cut at every token would cost more than its short
            # searches. A step that will be remembered takes the cut with
            # it: the cut is a function of this buffer, the read position
            # and the bookkeeping (ContextCut.state_id), so both are recorded as one.
            if self._scanner is None and len(buf) <= LAZY_CUT:
                self._uncut = CUT_DONE if self.CUT.state_id(self) is None else UNCUT
            elif (
                self._scanner is not None
                and len(buf) + len(held) + len(text) <= STEP_LIMIT
                and self.CUT.state_id(self) is not None
            ):
                self._uncut = len(buf)
            else:
                self._uncut = CUT_DONE
                self._buf = buf
                self.CUT.cut(self)
                buf = self._buf
                self._buf = ""
        if held:
            buf += held
        buf += text  # a long text is copied once (an empty buffer takes it as it is)
        self._buf = buf

    # -- the state machine -------------------------------------------------

    def _scan(self, watch, eos):
        """Best committable match and the hold position (see SPEC step 2-3)."""
        buf = self._buf
        pos = self._pos
        size = len(buf)
        hold = size
        best = None
        best_start = best_len = 0
        skip = 0
        if size - pos > LONG_TEXT:  # whole-text parsing: all the state's strings found in one go
            horizon = self._horizons().get(self._state)
            if horizon is not None:
                skip = horizon.first(buf, pos, self._base, self._memo)
                watch = horizon.watch
        for entry in watch:
            kind, index, delim = entry
            if delim.literals is not None:
                # Only a match starting by the best one's start can win: the
                # literals are looked for no further (whole texts: literals come
                # last, see Horizon). Any partial match would start after the
                # best one (it starts among the last `longest` characters),
                # so there is none to look for when none is found.
                stop = best_start if best is not None and best_start + delim.longest < size else -1
                found = delim.find(buf, pos, self._base, self._memo, skip, stop)
                if found is None:
                    if not eos and stop < 0:
                        start = delim.partial_start(buf, pos)
                        if 0 <= start < hold:
                            hold = start
                    continue
                start, end = found
                match = None
                if not eos and end == size and delim.grows_at_edge:
                    if start < hold:
                        hold = start
                    continue
            else:
                # Memoised while the buffer is unchanged (whole-text parsing
                # searches again after every region): a complete match or a
                # partial one at or after `pos` is still the answer from `pos`.
                key = (self._base, size, eos)
                cached = self._matches.get(delim)
                if (
                    cached is not None
                    and cached[0] == key
                    and pos >= cached[1]
                    and (cached[2] is None or cached[2].start() >= pos)
                ):
                    match = cached[2]
                else:
                    searcher = delim
                    if delim.settled is not None:
                        searcher = delim.settled.choose(buf, pos, self._base, self._memo) or delim
                    match = searcher.search(buf, pos, not eos, skip)
                    self._matches[delim] = (key, pos, match)
                if match is None:
                    continue
                start, end = match.span()
                if not eos and (match.partial or end == size):
                    if start < hold:
                        hold = start
                    continue
                if not delim.group_names:
                    match = None  # no captures to read (groupdict costs as much as the match's span)
            length = end - start
            if best is not None:
                if start > best_start:
                    continue
                if start == best_start:
                    if length < best_len:
                        continue
                    if length == best_len:
                        if kind > best[0]:
                            continue
                        if kind == best[0] and self.FIELDS[index].name >= self.FIELDS[best[1]].name:
                            continue
            best = (kind, index, start, end, match)
            best_start, best_len = start, length
        if best is not None and best_start >= hold:
            best = None
        return best, hold

    def _scan_remembered(self, watch, eos):
        """`_scan`, remembered per parser class for short tails: its answer
        depends only on the state, the unconsumed text with the context the
        state's regex delimiters read behind it (SCAN_CONTEXT: a state that
        reads nothing behind is keyed on the tail alone, though another
        state's look-behind makes the template keep more), whether that
        starts the whole text, and `eos`; stream shapes repeat the same few
        tails at every call."""
        pos = self._pos
        buf = self._buf
        context = self.SCAN_CONTEXT.get(self._state, self.CONTEXT)  # what this state's delimiters read behind
        if (len(buf) > SCAN_CONTEXT_LIMIT) if context < 0 else (len(buf) - pos > 64):
            best, hold = self._scan(watch, eos)
            if best is not None and best[4] is not None:
                kind, index, start, end, match = best
                best = kind, index, start, end, {k: v for k, v in match.groupdict().items() if v is not None}
            return best, hold
        behind = context if 0 <= context <= pos else pos  # CONTEXT -1: all of the (short or cut) buffer
        key = (
            self._state,
            eos,
            self._base == 0 and pos == behind,
            behind,
            buf[pos - behind :] if behind else buf[pos:],
        )
        table = self._scan_table
        known = table.get(key)
        if known is None:
            best, hold = self._scan(watch, eos)
            if best is not None:
                kind, index, start, end, match = best
                captures = None
                if match is not None:
                    captures = {key: value for key, value in match.groupdict().items() if value is not None}
                known = ((kind, index, start - pos, end - pos, captures), hold - pos)
            else:
                known = (None, hold - pos)
            if len(table) < PLAIN_TOKENS:
                table[key] = known
        best, hold = known
        if best is not None:
            kind, index, start, end, captures = best
            return (kind, index, start + pos, end + pos, captures), hold + pos
        return None, hold + pos

    def _step(self, events, scanner):
        """The general step on a buffer just trimmed (all of the unconsumed
        text and the context behind it): the state's `scanner`, when given,
        answers the hold-back question if it can, else `_process(events,
        False)` searches. Remembered per parser class: what it does depends
        only on the state, whether the region has text, whether the buffer
        starts the whole text, the read position and the buffer, so a step
        seen before replays what it did (routes, opens, closes: the region
        values are still computed) without asking the scanner or searching.
        Streams of many tool calls repeat the same few steps at every call
        (`</tool_call>` after `}\\n`, an open with its body's first piece).
        The step ends with `_note_held`; its outcome is a function of the
        same key (the pieces are empty after `_append`), so it is recorded
        with the step and set again on a replay. With a ContextCut, the
        cut _append left to the step (`_uncut`, the length of the buffer it
        reads) is part of it too: the cut is a function of that buffer, the
        read position and the cut's bookkeeping (its number, `_cut_id`, in
        the key), so a call's steps replay their cut as well."""
        self._chain = None  # set again below when this step is remembered
        buf = self._buf
        pos = self._pos
        uncut = self._uncut
        # A state without a scanner (CONTEXT -1) remembers only the steps on
        # a buffer _append left short and uncut, and of those only the ones
        # that open or close (below): its other steps route text never met
        # again, and its buffer is all of the text up to the last cut.
        scannerless = self._scanner is None
        if (
            len(buf) - pos > STEP_LIMIT
            or self.CONTEXT < 0
            and (len(buf) > STEP_LIMIT or scannerless and uncut != UNCUT)
        ):
            self._answer(events, scanner)
            self._note_held()
            return None
        base = self._base
        if uncut == CUT_DONE:
            key = (self._state, self._opened, base == 0, pos, buf, scanner is None)
        else:
            self._uncut = CUT_DONE
            key = (self._state, self._opened, base == 0, pos, buf, scanner is None, uncut, self._cut_id)
        table = self._step_table
        known = table.get(key)
        if known is not None:
            self._replay(events, known)
            return known
        if uncut >= 0:
            self.CUT.cut(self, uncut)
        trace = self._trace = []
        try:
            self._answer(events, scanner)
        finally:
            self._trace = None
        self._note_held()
        if len(table) >= PLAIN_TOKENS or scannerless and all(op[0] == ROUTE_OP for op in trace):
            return None
        cut_id = None
        if uncut != CUT_DONE:
            cut_id = self.CUT.state_id(self)
            if cut_id is None:
                return None  # the table of cut states is full: the step is not remembered
        mode = HOT_MODE if self._hot is not None else LEAD_HOT_MODE if self._lead_hot is not None else 0
        # The steps that may follow this one from the same state (see
        # _feed_general): not after a cut _append took (outside the step),
        # nor while held text waits in the pieces.
        chain = {} if (cut_id is not None or self.CUT is None) and not self._pieces else None
        known = table[key] = (
            tuple(trace),
            self._buf,
            self._base - base,
            self._pos,
            mode,
            self._held_in_lead,
            tuple(self._pieces),
            cut_id,
            chain,
        )
        if chain is not None:
            self._chain = chain
            self._chain_at = len(self._body)
        return known

    def _replay(self, events, known):
        """Do again what a remembered step did (see _step)."""
        ops, buf, cut, pos, mode, held_in_lead, pieces, cut_id, chain = known
        if cut_id is not None:
            # The cut's bookkeeping is this number until ContextCut.cut needs
            # its lists (see ContextCut.restore).
            self._cut_id = cut_id
            self._cut_stale = True
        for op in ops:
            kind = op[0]
            if kind == ROUTE_OP:
                self._route(events, op[1])
            elif kind == OPEN_OP:
                self._open(events, op[1], op[2])
            else:
                self._close(events)
        # What _note_held did after this step the first time. (`_hot` and
        # `_lead_hot` are None here: every way into a step has closed the
        # common path, see _feed_general and _materialize.)
        self._buf = buf
        self._base += cut
        self._pos = pos
        self._held_in_lead = held_in_lead
        scanner = self._scanner
        if scanner is not None and scanner.later is not scanner and self._base + pos:
            scanner = self._scanner = scanner.later  # as _note_held did, whatever it left open
        if mode:
            self._pieces = list(pieces)
            self._stale = True
            self._hot_from = len(self._body)
            if mode == HOT_MODE:
                self._hot = scanner.plain
            else:
                self._lead_hot = scanner
        if chain is not None:
            self._chain = chain
            self._chain_at = len(self._body)

    def _answer(self, events, scanner):
        """`_step` without the table."""
        pos = self._pos
        buf = self._buf
        if (
            scanner is not None
            and len(buf) - pos <= SETTLE_LIMIT
            and (not scanner.behind or self._behind_clear(scanner))
        ):
            # (longer rests are whole-text parsing: the search reads the text once, see _settle)
            tail = buf[pos:]
            hold = scanner.hold(tail)
            if hold >= 0:
                if hold:
                    self._route(events, tail[:hold] if hold < len(tail) else tail)
                    self._pos = pos + hold
                return
        self._process(events, False)

    def _process(self, events, eos):
        watch_sets = self.WATCH
        while True:
            best, hold = self._scan_remembered(watch_sets[self._state], eos)
            if best is not None:
                kind, index, start, end, match = best
                if start > self._pos:
                    self._route_closing(events, start)
                self._pos = end
                if self._lost is not None:
                    self._regain_context()
                if kind == OPEN:
                    self._close(events)
                    self._open(events, index, match)
                else:
                    had_text = self._opened
                    self._close(events)
                    if not had_text and start == end:
                        break  # a zero-width close of an empty region would fire forever
                if not eos and self._settle(events):
                    break
                continue
            if eos:
                if self._pos < len(self._buf):
                    self._route_closing(events, len(self._buf))
                    self._pos = len(self._buf)
                self._close(events)
                break
            if hold > self._pos:
                self._route(events, self._buf[self._pos : hold])
                self._pos = hold
            break

    def _route_closing(self, events, end):
        """Route the buffer from the read position to `end`, right before
        the current region closes. In a whole text (parse_response, whose
        events nobody reads) a long body that is the region's only piece is
        sliced without the whitespace its close would strip: the slice is
        then the value as it is, where slicing and then stripping copied a
        whole region twice (at 128k tokens about a pass over the text).
        Only when something else than whitespace is left, so the region is
        opened exactly as by the raw slice. (No step that routes this much
        is remembered, see _step, so no trace records the slice.)"""
        buf = self._buf
        start = self._pos
        if self._whole and end - start > SETTLE_LIMIT and not self._body and self._current is not None:
            if self.FIELDS[self._current].strips:
                last = end
                while start < last and buf[start].isspace():
                    start += 1
                while last > start and buf[last - 1].isspace():
                    last -= 1
                if start < last:
                    self._route(events, buf[start:last])
                    return
                start = self._pos
        self._route(events, buf[start:end])

    def _settle(self, events):
        """After a transition, before any search: the new state's scanner
        answers the hold-back question for the rest of the buffer when it
        can (no trigger string in it), as on the common path. True when it
        did (the rest is routed up to the hold), False when only the
        delimiters' search can tell."""
        scanner = self._scanner
        if scanner is None:
            return False
        pos = self._pos
        buf = self._buf
        size = len(buf)
        if pos >= size:
            return True
        if size - pos > SETTLE_LIMIT or (scanner.behind and not self._behind_clear(scanner)):
            return False  # whole-text parsing: the search finds the next delimiter once
        hold = scanner.hold(buf[pos:] if pos else buf)
        if hold < 0:
            return False
        if hold:
            self._route(events, buf[pos : pos + hold])
            self._pos = pos + hold
        return True

    def _route(self, events, text):
        """Text goes to the current region (nothing to the null sink)."""
        current = self._current
        if current is None or not text:
            return
        if self._trace is not None:
            self._trace.append((ROUTE_OP, text))
        field = self.FIELDS[current]
        if not self._opened:
            events.append({"type": "region_open", "field": field.name})
            self._opened = True
        self._body.append(text)
        events.append({"type": "region_chunk", "field": field.name, "text": text, "dirty": field.dirty})

    def _enter_implicit(self):
        """The implicit region (or the null sink) becomes current."""
        self._current = self.IMPLICIT  # field index, or None for the null sink
        self._state = -1
        self._scanner = self._scanner_of[-1]
        if self.IMPLICIT is None:
            self._name = self._dirty = self._chunk = None
        else:
            field = self.FIELDS[self.IMPLICIT]
            self._name, self._dirty, self._chunk = field.name, field.dirty, field.chunk

    def _open(self, events, index, match):
        if self._trace is not None:
            self._trace.append((OPEN_OP, index, match))
        field = self.FIELDS[index]
        self._current = index
        self._state = index
        self._scanner = self._scanner_of[index]
        self._name, self._dirty, self._chunk = field.name, field.dirty, field.chunk
        self._captures = {} if match is None else dict(match)  # the open's named groups
        self._body = []
        self._append_body = self._body.append
        self._opened = True
        events.append({"type": "region_open", "field": field.name})

    def _close(self, events):
        """Close the current region (if it ever opened) and return to the implicit one."""
        if self._trace is not None:
            self._trace.append((CLOSE_OP,))
        current = self._current
        if current is not None and self._opened:
            field = self.FIELDS[current]
            value = close_region(field, self._output, self._body, self._captures, self._tool_params)
            events.append({"type": "region_close", "field": field.name, "value": value})
        self._enter_implicit()
        self._captures = {}
        self._body = []
        self._append_body = self._body.append
        self._opened = False
