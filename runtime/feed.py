"""The token paths of the stream driver: what `feed` does with a token.

`TokenFeed` is the base of `StreamParser` (runtime/stream.py), split off so
each file stays readable: the common path (a token looked up in the state
scanner's table of plain tokens), held lead runs, the scanner's answer for
held text, the remembered chains of steps, and the way back to the general
step (`_materialize`, `_note_held`). docs/runtime.md describes the design.
"""

from runtime.scanner import CHAIN_LIMIT, HELD_WHOLE, LEARN_LIMIT, PLAIN_TOKENS, SETTLE_LIMIT


class TokenFeed:
    """`StreamParser`'s token paths (its slots and tables are StreamParser's)."""

    __slots__ = ()

    def feed(self, text):
        """Add generated text; return the events it completes."""
        plain = self._hot
        if plain is not None:
            # The common path: nothing held, the region open, and a token
            # the state's scanner knows holds no trigger character and does
            # not end in a lead character, so no delimiter can match or be
            # pending in it (see Scanner): it is routed as it is. The buffer
            # is brought up to date lazily (see _materialize) from the body,
            # which holds these tokens anyway.
            if text in plain:
                self._append_body(text)
                event = self._chunk.copy()
                event["text"] = text
                return [event]
            return self._feed_new_token(self._scanner, text, ())
        hot = self._lead_hot
        if hot is not None:
            # A run of the state's hold lead is held (the pieces): a plain
            # token releases it, as no delimiter can match in it any more.
            if text in hot.plain:
                text = "".join(self._pieces) + text
                self._pieces = []
                self._lead_hot = None
                self._hot = hot.plain
                self._body.append(text)
                return [{"type": "region_chunk", "field": self._name, "text": text, "dirty": self._dirty}]
            return self._feed_new_token(hot, text, self._pieces)
        hot = self._held_hot
        if hot is not None:
            return self._feed_held(hot, text)
        return self._feed_general(text)

    def _feed_new_token(self, hot, text, held):
        """The common path for a token not known plain: classify it (and
        remember it when plain), or hand it to the general step. `held` is
        the held lead run's pieces, joined only when they are routed: a run
        that keeps growing (8,000 newline tokens) is never copied."""
        start = hot.lead_end.get(text)
        if start is not None:
            return self._hold_run(hot, text, held, start)
        known = hot.trigger_holds.get(text)
        if known is not None and not held and not self._pieces and self._chain is None:
            # what _feed_trigger and _hold_tail did when they met it
            if known == HELD_WHOLE:
                self._hot = None
                self._pieces = [text]
                self._held_hot = hot
                return []
            if known == len(text):  # routed whole, the common path stays open
                self._append_body(text)
                return [{"type": "region_chunk", "field": self._name, "text": text, "dirty": self._dirty}]
            return self._hold_tail(hot, text, known)
        if not text:
            return self._feed_general(text)
        single = hot.single
        if single is not None:
            if single in text:
                return self._feed_trigger(hot, text)
        else:
            for char in hot.firsts:
                if char in text:
                    return self._feed_trigger(hot, text)
        if hot.leads.holds_char(text[-1]):
            return self._feed_lead_end(hot, text, held)
        if len(text) <= LEARN_LIMIT:  # a long chunk is not a token met again: not kept
            hot.learn(text)
        if held:
            text = "".join(held) + text
            self._pieces = []
            self._lead_hot = None
            self._hot = hot.plain
        self._body.append(text)
        return [{"type": "region_chunk", "field": self._name, "text": text, "dirty": self._dirty}]

    def _feed_trigger(self, hot, text):
        """A token with a trigger character on the common path (a lone `<`,
        `</`): what _feed_general's stale branch does, without its other
        checks, when no remembered chain may take the token first."""
        if self._chain is None:
            nothing_held = not self._pieces
            tail, hold = self._held_tail(hot, text)
            if hold >= 0:
                events = self._hold_tail(hot, tail, hold)
                if nothing_held and len(hot.trigger_holds) < PLAIN_TOKENS:
                    hot.trigger_holds[text] = HELD_WHOLE if not hold and self._held_hot is hot else hold
                    if hold == len(text) and hot.learns_triggered and len(text) <= LEARN_LIMIT:
                        hot.learn(text)
                return events
        return self._feed_general(text)

    def _feed_held(self, scanner, text):
        """The token after held text that is no lead run (`<` held, then
        ` b`): the scanner answers for both as in _feed_general's stale
        branch, which is where the parser is (_hold_tail)."""
        self._held_hot = None
        # _held_tail and _hold_tail inlined for the commonest answer (all of
        # it routed): a third of a lone-`<` stream's tokens come here, and
        # the three calls cost a quarter of its time.
        if text and len(text) <= SETTLE_LIMIT:  # (an empty token takes _feed_general's scannerless branch)
            tail = self._pieces[0] + text
            if len(tail) <= SETTLE_LIMIT:
                hold = scanner.holds.get(tail)
                if hold is None:
                    hold = scanner.hold(tail)
                if hold == len(tail):
                    self._pieces = []
                    self._hot = scanner.plain
                    self._body.append(tail)
                    return [{"type": "region_chunk", "field": self._name, "text": tail, "dirty": self._dirty}]
                if hold >= 0:
                    return self._hold_tail(scanner, tail, hold)
        return self._feed_general(text)

    def _held_tail(self, scanner, text):
        """The held pieces and `text` (the tail), and the scanner's answer
        for them: where the held text starts, or -1 when only the search can
        tell (or the tail is longer than SETTLE_LIMIT: a whole text is not
        joined here, _append copies it once)."""
        if len(text) > SETTLE_LIMIT:
            return text, -1
        pieces = self._pieces
        tail = "".join(pieces) + text if pieces else text
        if len(tail) > SETTLE_LIMIT:
            return tail, -1
        return tail, scanner.hold(tail)

    def _hold_tail(self, scanner, tail, hold):
        """The scanner's answer for the held pieces and a token (`tail`) on a
        stale buffer: tail[:hold] is routed, the rest held. Held text that is
        no run of the hold lead sends the next token to _feed_held."""
        events = []
        if hold:
            routed = tail[:hold] if hold < len(tail) else tail
            self._body.append(routed)
            events.append({"type": "region_chunk", "field": self._name, "text": routed, "dirty": self._dirty})
        self._hot = None
        if hold < len(tail):
            held = tail[hold:]
            self._pieces = [held]
            lead = scanner.hold_lead
            if lead is not None and lead.holds(held):
                self._lead_hot = scanner
            else:
                self._lead_hot = None
                self._held_hot = scanner
        else:
            self._pieces = []
            self._hot = scanner.plain
            self._lead_hot = None
        return events

    def _feed_lead_end(self, hot, text, held):
        """The common path for `text` (after the held lead run `held`) ending
        in lead characters (`word `, `:\n`): route what comes before the
        trailing run, hold the run, exact when the run is all of the state's
        hold lead (a partial match starts at the run, none before it)."""
        start = len(text.rstrip(hot.lead_ascii))
        if start == len(text) or (start and text[start - 1] > "\x7f"):
            start = hot.leads.run_start(text, len(text))  # non-ASCII lead characters
            if hot.hold_lead is None or not hot.hold_lead.holds(text[start:]):
                return self._feed_general(text)
        elif not hot.ascii_run_holds:
            lead = hot.hold_lead
            if lead is None or not lead.holds(text[start:]):
                return self._feed_general(text)
        if len(hot.lead_end) < PLAIN_TOKENS:
            hot.lead_end[text] = start
        return self._hold_run(hot, text, held, start)

    def _hold_run(self, hot, text, held, start):
        """Route `held` and `text` up to `start`; hold the lead run from there."""
        self._hot = None
        self._lead_hot = hot
        if not start:
            self._pieces.append(text)  # the pending match stays where it is
            return []
        routed = "".join(held) + text[:start] if held else text[:start]
        self._pieces = [text[start:]]
        self._body.append(routed)
        return [{"type": "region_chunk", "field": self._name, "text": routed, "dirty": self._dirty}]

    def _feed_whole(self, text):
        """parse_response's long text, all of the output there is, on a
        parser fresh from its prefix (no step remembered, nothing routed by
        the common path since): it joins the buffer unsearched, and
        finalize searches it as the end of the stream, so no step first
        searches it for what more text could complete (partial matches, the
        hold-back) only to search its tail again at the end. When all of
        the buffer is consumed context and the state's delimiters read
        nothing behind the read position (BLIND), the text becomes the
        buffer as it is, without the context before it: a 1.9 MB copy fewer
        at 128k tokens. The context comes back (`_regain_context`) if a
        transition leaves the read position closer to the text's start than
        CONTEXT; past that no search reads before the text."""
        if self._finalized:
            raise RuntimeError("ResponseParser already finalized")
        if self._buf and not self._pieces and self._pos == len(self._buf) and self._state in self.BLIND:
            self._lost = self._buf
            self._base += len(self._buf)
            self._buf = ""
            self._pos = 0
        self._whole = True
        self._append(text)  # (finalize leaves the common path, if the prefix opened it)

    def _regain_context(self):
        """After a transition in a whole text searched without its context."""
        lost = self._lost
        self._lost = None
        if self._pos < self.CONTEXT:
            self._buf = lost + self._buf
            self._pos += len(lost)
            self._base -= len(lost)

    def _feed_general(self, text):
        """Every token the common path does not take: the scanner answers
        from the tail's end when it can, else the delimiters are searched."""
        if self._finalized:
            raise RuntimeError("ResponseParser already finalized")
        chain = self._chain
        if chain is not None:
            # The last step was remembered and the parser is still in the
            # state it left (no token routed or held since): the step this
            # text makes from there is remembered with it, a function of
            # that state and the text, so neither the buffer nor the key is
            # built again.
            self._chain = None
            if self._pieces or len(self._body) != self._chain_at:
                chain = None
            else:
                known = chain.get(text)
                if known is not None:
                    if self._stale:  # (_materialize, with nothing routed since)
                        self._hot = self._lead_hot = None
                        self._stale = False
                    events = []
                    self._replay(events, known)
                    return events
        scanner = self._scanner
        if scanner is None or not text:
            # The general step without the scanner (SPEC, steps 1-5).
            if self._stale:
                self._materialize()
            asked = None
        elif self._stale:
            # The buffer is behind (see _materialize); the held text is the
            # pieces (a lead run, or what the scanner held last time).
            self._hot = self._lead_hot = None
            tail, hold = self._held_tail(scanner, text)
            if hold >= 0:
                return self._hold_tail(scanner, tail, hold)
            self._materialize()
            asked = None
        else:
            if self._held_in_lead and scanner.hold_lead.holds(text) and not scanner.lead_triggers_in(text):
                self._pieces.append(text)  # the pending match stays where it is
                return []
            asked = scanner
        self._append(text)
        events = []
        known = self._step(events, asked)
        if chain is not None and known is not None and len(chain) < CHAIN_LIMIT:
            chain[text] = known
        return events

    def _materialize(self):
        """Leave the common path: the tokens it routed (the body's last
        pieces) become the consumed end of the buffer, of which only the
        context regex delimiters read behind is kept."""
        body = self._body
        since = self._hot_from
        skipped = len(body) - since
        if skipped > 1:
            # Joined once, in place: its size is the buffer's offset, and the
            # region's value (_close) joins one piece instead of the tokens
            # (summing 18,000 token lengths cost three times this join). The
            # body's length only shrinks to more than _hot_from, so no
            # remembered chain (_chain_at <= _hot_from) starts to match it.
            body[since:] = ["".join(body[since:])]
        context = self.CONTEXT
        if skipped and context < 0:
            self._grow(body[-1])  # unbounded look-behind: all of it
            self._pos = len(self._buf)
        elif skipped:
            old = self._buf
            routed = body[-1]
            kept = (old + routed[-context:])[-context:] if context > 0 else ""
            self._base += len(old) + len(routed) - len(kept)
            self._buf = kept
            self._pos = len(kept)
        self._hot = self._lead_hot = None
        self._stale = False

    def _note_held(self):
        """After processing: trim; open the common path when nothing is held
        but (perhaps) a run of the state's hold lead, which moves to the
        pieces; otherwise note whether the held text is all hold lead.
        (A buffer with a ContextCut is cut by the next _append, right before
        the step that reads it.)"""
        pos, buf = self._pos, self._buf
        context = self.CONTEXT
        if context >= 0 and pos > context:  # the trim to CONTEXT (the only one: _append relies on it)
            cut = pos - context
            self._buf = buf = buf[cut:]
            self._base += cut
            self._pos = pos = context
        scanner = self._scanner
        self._hot = self._lead_hot = None
        if scanner is None:
            self._held_in_lead = False
            return
        if scanner.later is not scanner and self._base + pos:
            scanner = self._scanner = scanner.later  # past the text's start for good
        if pos >= len(buf) and not scanner.behind:
            # nothing held: the common path opens when a region is
            if self._opened and self._current is not None:
                self._hot = scanner.plain
                self._held_in_lead = False
                self._stale = True
                self._hot_from = len(self._body)
            else:
                self._held_in_lead = False
            return
        lead = scanner.hold_lead
        held = buf[pos:] if pos < len(buf) else ""
        in_lead = (
            not held
            or (lead is not None and not self._pieces and lead.holds(held) and not scanner.lead_triggers_in(held))
        ) and (not scanner.behind or self._behind_clear(scanner))
        if in_lead and self._opened and self._current is not None:
            if held:
                self._pieces = [held]
                self._buf = buf[:pos]
                self._lead_hot = scanner
            else:
                self._hot = scanner.plain
            self._held_in_lead = False
            self._stale = True
            self._hot_from = len(self._body)
        else:
            self._held_in_lead = bool(held) and in_lead

    def _behind_clear(self, scanner):
        """Whether no look-behind alternative of the state can match at the
        read position: the character before it is none of the scanner's
        `behind` characters (at the very start, the look-behind meets the
        start of the text, where the `regex` module may report a partial match)."""
        behind = scanner.behind
        pos = self._pos
        return pos > 0 and self._buf[pos - 1] not in behind
