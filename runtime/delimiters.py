"""Delimiters: where the next open or close is, and whether it may still change.

`Literals` (str.find, with a table of prefixes for partial matches) and
`Pattern` (the `regex` module with the reference's partial matching, run
only where a trigger string lets a match start), the matches they return
without running a regex, and the lead classes (`Lead`, `Leads`) the
compiler gives each delimiter.
"""

import re

from runtime.values import regex_module


def tail_prefix_start(buf, low, firsts, prefixes):
    """Leftmost position from `low` where `buf` ends in one of `prefixes`
    (whose first characters are `firsts`), or -1: only the positions holding
    a first character are tried, found with str.find."""
    best = -1
    for first in firsts:
        at = buf.find(first, low)
        while at >= 0 and (best < 0 or at < best):
            if buf[at:] in prefixes:
                best = at
                break
            at = buf.find(first, at + 1)
    return best


LONG_TEXT = 4096  # from this many characters on, several trigger strings are searched in one pass


def literal_alternation(strings):
    """One `re` pass over a text for several literal strings (at one
    position the first listed wins)."""
    return re.compile("|".join(map(re.escape, strings)))


class Literals:
    """A delimiter given as one literal or a list of literals.

    It is found with str.find (memoised per parser, so no text is searched
    twice) and its partial matches with a table of the literals' prefixes:
    the same answers as the reference's `regex` partial search on the
    alternation `lit1|lit2|...` (longest first), which prefers a complete
    match anywhere over a partial one at the end of the buffer.
    """

    __slots__ = ("literals", "grows_at_edge", "firsts", "prefixes", "longest")

    behind = ""  # see Pattern.behind

    def __init__(self, literals, *, grows_at_edge):
        # Longest first: at one position the longest literal wins.
        self.literals = tuple(sorted(literals, key=len, reverse=True))
        # True when a complete match that ends at the buffer edge may still
        # grow (a literal extends another, or the source was a regex).
        self.grows_at_edge = grows_at_edge
        self.firsts = frozenset(literal[0] for literal in self.literals)
        self.prefixes = frozenset(lit[:i] for lit in self.literals for i in range(1, len(lit)))
        self.longest = len(self.literals[0])

    def __repr__(self):
        return f"Literals({list(self.literals)!r}, grows_at_edge={self.grows_at_edge})"

    def find(self, buf, pos, base, memo):
        """Leftmost complete match at or after `pos` (longest on ties): (start, end) or None.

        `memo` maps literal -> (absolute start or -1, absolute end searched to).
        """
        best_start = -1
        best_end = -1
        end_abs = base + len(buf)
        pos_abs = base + pos
        for literal in self.literals:
            cached = memo.get(literal)
            if cached is not None and cached[0] >= pos_abs:
                found = cached[0] - base
            else:
                start = pos
                if cached is not None and cached[0] < 0:
                    start = max(start, cached[1] - len(literal) + 1 - base)
                found = buf.find(literal, start)
                memo[literal] = (found + base if found >= 0 else -1, end_abs)
            if found >= 0 and (best_start < 0 or found < best_start):
                best_start, best_end = found, found + len(literal)
        if best_start < 0:
            return None
        return best_start, best_end

    def partial_start(self, buf, pos):
        """Leftmost start of a proper prefix of a literal running to the end, or -1."""
        low = len(buf) - self.longest + 1
        return tail_prefix_start(buf, pos if pos > low else low, self.firsts, self.prefixes)


class PartialMatch:
    """A partial match found without running the regex (see Pattern.search)."""

    __slots__ = ("_start", "_end")
    partial = True

    def __init__(self, start, end):
        self._start, self._end = start, end

    def span(self):
        return self._start, self._end

    def start(self):
        return self._start

    def end(self):
        return self._end

    def groupdict(self):
        return {}


class CompleteMatch(PartialMatch):
    """A complete match of a simple pattern, found with str.find."""

    __slots__ = ()
    partial = False


class Pattern:
    """A delimiter given as a regex, matched by the `regex` module with the
    reference's partial-matching semantics.

    With `triggers` (from the compiler's analysis: every match is lead
    characters then one of the trigger strings; a partial match may end in
    a prefix of one, or be lead characters only), the regex runs only where
    a match can start, found with str.find, instead of over all the text.
    """

    __slots__ = (
        "pattern",
        "compiled",
        "group_names",
        "triggers",
        "leads",
        "first_lead",
        "exact",
        "prefixes",
        "prefix_firsts",
        "longest",
        "simple",
        "behind",
        "finder",
        "settled",
        "ends",
    )

    grows_at_edge = True
    literals = None

    def __init__(
        self,
        pattern,
        triggers=None,
        leads=(),
        first_lead=None,
        exact=False,
        simple=False,
        behind="",
        settled=None,
        ends=(),
    ):
        self.pattern = pattern
        # Literals one of which every match consumes: a text without them
        # holds no complete match (the compiler's closing_literals).
        self.ends = ends
        # Smaller patterns for when the buffer settles the look-behind
        # branches (see Settled); None for most patterns.
        self.settled = settled
        # Alternatives read by their look-behind: each of their matches and
        # partial matches starts right after one of these characters.
        self.behind = behind
        rx = regex_module()
        self.compiled = rx.compile(pattern, rx.DOTALL)
        self.group_names = tuple(self.compiled.groupindex)
        self.triggers = None if triggers is None else tuple(triggers)
        self.leads = Leads(leads)
        # The pattern starts with an unbounded repeat of this class: of a run
        # of its characters, only the first position needs trying.
        self.first_lead = first_lead
        # Nothing but leads comes before the trigger strings (no look-around):
        # leads then a proper prefix of a trigger is certainly a partial match.
        self.exact = exact and (not self.leads or self.leads.classes == (first_lead,))
        self.prefixes = frozenset(t[:i] for t in self.triggers or () for i in range(1, len(t)))
        self.prefix_firsts = "".join(sorted({prefix[0] for prefix in self.prefixes}))
        self.longest = max(map(len, self.triggers or ("",)))
        # Leads then one of the triggers and nothing else: matched with str.find.
        self.simple = simple and self.exact
        # Several trigger strings with a common start of two characters or
        # more (`<|im_end|>`, `<|endoftext|>`) over a long text: one pass of
        # their alternation, which `re` runs by that start (in order: at one
        # position the first string wins, as in the loops below), instead of
        # one str.find per string.
        self.finder = None
        if self.triggers is not None and len(self.triggers) > 1:
            common = self.triggers[0]
            for trigger in self.triggers:
                while not trigger.startswith(common):
                    common = common[:-1]
            if len(common) > 1:
                self.finder = literal_alternation(self.triggers)

    def __repr__(self):
        return f"Pattern({self.pattern!r})"

    def _search_simple(self, buf, pos, partial):
        """`search` for a simple pattern: the leftmost trigger string, from
        the run of leads before it; else a trigger prefix or a lead run at
        the end (a partial match)."""
        found_at = -1
        found_end = 0
        start = pos
        if self.finder is not None and len(buf) - start > LONG_TEXT:
            found = self.finder.search(buf, start)
            if found is not None:
                found_at, found_end = found.span()
        else:
            for trigger in self.triggers:
                # once one is found, only an earlier start can win
                found = (
                    buf.find(trigger, start) if found_at < 0 else buf.find(trigger, start, found_at - 1 + len(trigger))
                )
                if found >= 0:
                    found_at, found_end = found, found + len(trigger)
        leads = self.leads
        if found_at >= 0:
            return CompleteMatch(leads.run_start(buf, found_at, pos) if leads else found_at, found_end)
        if not partial:
            return None
        size = len(buf)
        tail_at = self._tail_trigger(buf, pos)
        if tail_at < 0:
            tail_at = size
        start = leads.run_start(buf, tail_at, pos) if leads else tail_at
        return PartialMatch(start, size) if start < size else None

    def _starts(self, buf, run_start, run_end):
        """Positions in [run_start, run_end] where a match may start."""
        first_lead = self.first_lead
        if first_lead is not None and (run_start == run_end or first_lead.holds(buf[run_start:run_end])):
            return (run_start,)
        return range(run_start, run_end + 1)

    def _next_trigger(self, buf, start, ahead=None):
        """Leftmost trigger string at or after `start`, or -1. Over a long
        text, `ahead` (a list kept by the caller for one search) remembers
        where each string occurs next, or up to where it does not occur,
        so each string is read about once per search: one that occurs
        rarely is not searched again to the end after every occurrence of
        another, and each is searched only up to the best start so far."""
        if self.finder is not None and len(buf) - start > LONG_TEXT:
            found = self.finder.search(buf, start)
            return -1 if found is None else found.start()
        if ahead is not None:
            # ahead[2i]: where string i occurs next (-1: not known);
            # ahead[2i + 1]: it does not start before there.
            best = -1
            index = 0
            for trigger in self.triggers:
                found = ahead[index]
                if found < start:
                    clear = ahead[index + 1]
                    begin = start if start > clear else clear
                    end = len(buf) if best < 0 else best - 1 + len(trigger)  # only an earlier start can win
                    found = buf.find(trigger, begin, end)
                    ahead[index] = found
                    if found < 0 and end - len(trigger) + 1 > clear:
                        ahead[index + 1] = end - len(trigger) + 1
                if found >= 0 and (best < 0 or found < best):
                    best = found
                index += 2
            return best
        found_at = -1
        for trigger in self.triggers:
            # once one is found, only an earlier start can win
            found = buf.find(trigger, start) if found_at < 0 else buf.find(trigger, start, found_at - 1 + len(trigger))
            if found >= 0:
                found_at = found
        return found_at

    def _tail_trigger(self, buf, start):
        """Leftmost position from `start` where the buffer ends in a proper prefix of a trigger."""
        low = len(buf) - self.longest + 1
        return tail_prefix_start(buf, start if start > low else low, self.prefix_firsts, self.prefixes)

    def search(self, buf, pos, partial):
        """What `compiled.search(buf, pos, partial=partial)` returns, except
        that an empty partial match at the very end (which holds nothing back)
        may come back as None."""
        if self.triggers is None:
            return self.compiled.search(buf, pos, partial=partial)
        if self.simple:
            return self._search_simple(buf, pos, partial)
        match = self.compiled.match
        size = len(buf)
        first_partial = None
        start = pos
        ahead = [-1, 0] * len(self.triggers) if size - pos > LONG_TEXT and len(self.triggers) > 1 else None
        while start < size:
            trigger_at = self._next_trigger(buf, start, ahead)
            if trigger_at < 0:
                break
            for candidate in self._starts(buf, self.leads.run_start(buf, trigger_at, start), trigger_at):
                found = match(buf, candidate, partial=partial)
                if found is not None:
                    if not found.partial:
                        return found  # complete matches win over partial ones, as in search
                    if first_partial is None:
                        first_partial = found
            start = trigger_at + 1
        if first_partial is not None or not partial:
            return first_partial
        # No complete match: a partial one ends in a trigger prefix or is all leads.
        tail_at = self._tail_trigger(buf, start) if self.prefixes else -1
        if tail_at >= 0:
            run_start = self.leads.run_start(buf, tail_at, start)
            if self.exact and (run_start == tail_at or self.first_lead.holds(buf[run_start:tail_at])):
                return PartialMatch(run_start, size)
            for candidate in self._starts(buf, run_start, tail_at):
                found = match(buf, candidate, partial=True)
                if found is not None:
                    return found
            start = tail_at + 1
        if self.leads and start < size:
            run_start = self.leads.run_start(buf, size, start)
            if run_start < size:
                for candidate in self._starts(buf, run_start, size - 1):
                    found = match(buf, candidate, partial=True)
                    if found is not None:
                        return found
        return None


class Lead:
    """A character class a delimiter may start with, repeated (the `\\s` of `\\s*<tool_call>`)."""

    __slots__ = ("source", "ascii", "_all")

    def __init__(self, source, ascii):
        self.source = source
        self.ascii = ascii  # its ASCII members, computed at build time
        self._all = None

    def __repr__(self):
        return f"Lead({self.source!r})"

    def holds(self, text):
        """Whether every character of `text` is in the class."""
        if text.isascii():
            return not text.strip(self.ascii)
        if self._all is None:
            self._all = regex_module().compile(f"{self.source}*")
        return self._all.fullmatch(text) is not None


class Leads:
    """The lead classes of a delimiter or a state, as one set of characters."""

    __slots__ = ("classes", "ascii", "non_ascii")

    def __init__(self, classes):
        self.classes = tuple(classes)
        self.non_ascii = {}
        self.ascii = "".join(sorted({char for lead in self.classes for char in lead.ascii}))

    def __bool__(self):
        return bool(self.classes)

    def holds_char(self, char):
        """Whether `char` is in any of the classes (non-ASCII answers memoised)."""
        if char < "\x80":
            return char in self.ascii
        known = self.non_ascii.get(char)
        if known is None:
            known = any(lead.holds(char) for lead in self.classes)
            if len(self.non_ascii) < 4096:
                self.non_ascii[char] = known
        return known

    def run_start(self, text, end, floor=0):
        """Start of the run of lead characters ending at `end` (not before `floor`)."""
        start = end
        while start > floor and self.holds_char(text[start - 1]):
            start -= 1
        return start


def last_anchor_end(anchor, text):
    """End of the last non-overlapping match of the start anchor in `text`, or None."""
    last = None
    if isinstance(anchor, Pattern):
        for match in anchor.compiled.finditer(text):
            last = match.end()
        return last
    pos = 0
    memo = {}
    while True:
        found = anchor.find(text, pos, 0, memo)
        if found is None:
            return last
        pos = last = found[1]
