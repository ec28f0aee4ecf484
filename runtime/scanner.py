"""The scanner and the whole-text search: the machinery that keeps a token cheap.

`Scanner` answers, per parser state, the hold-back question for a tail from
its trigger strings alone (docs/runtime.md, steps 1-3); `Horizon` and
`Anchor` find where the first of a state's trigger strings starts in a long
text, so a whole text is read about once per state. The bounds of the
driver's remembered tables are here too.
"""

import unicodedata

from runtime.delimiters import literal_alternation


def rare_anchor(string):
    """(character, offset) of the character of `string` least likely in
    model output, or None when it holds none: a non-ASCII symbol (DeepSeek's
    `｜` and `▁`) before `|`, `^` or `~` (`<|im_end|>`), the first of the
    rarest. Letters, digits, spaces, brackets and the other ASCII
    punctuation occur in prose and code every few dozen characters."""
    best = None
    for offset, char in enumerate(string):
        if not char.isascii() and unicodedata.category(char)[0] == "S":
            return char, offset
        if best is None and char in "|^~":
            best = char, offset
    return best


class Anchor:
    """Strings that hold one rare character at one offset (see rare_anchor),
    searched for by that character: str.find of one character is a memchr
    pass, 10-20 times faster over a long non-ASCII text than a pass of `re`
    or a str.find of a whole string (2.5 against 30-60 us over 37k
    characters of prose with a `🙂`), and each occurrence is checked. Past
    MISSES occurrences that start none of the strings (a Markdown table's
    `|`) the rest is one pass of their alternation: no slower than without
    the anchor by more than those checks."""

    __slots__ = ("char", "offset", "strings", "alternation")

    MISSES = 16

    def __init__(self, char, offset, strings):
        self.char = char
        self.offset = offset
        self.strings = tuple(strings)
        self.alternation = literal_alternation(self.strings)

    def __repr__(self):
        return f"Anchor({self.char!r}, {self.offset}, {list(self.strings)!r})"

    def find(self, buf, start, limit):
        """Leftmost start at or after `start` of one of the strings that
        ends by `limit` (as str.find(string, start, limit)), or -1."""
        char = self.char
        offset = self.offset
        strings = self.strings
        misses = 0
        at = buf.find(char, start + offset, limit)
        while at >= 0:
            begin = at - offset
            if buf.startswith(strings, begin, limit):
                return begin
            misses += 1
            if misses > self.MISSES:
                match = self.alternation.search(buf, begin + 1, limit)
                return -1 if match is None else match.start()
            at = buf.find(char, at + 1, limit)
        return -1


class Horizon:
    """Where the first trigger string of any of a state's delimiters occurs
    from the read position, for whole-text parsing (a rest longer than
    LONG_TEXT). No delimiter has a complete match whose trigger string
    starts before it, so each delimiter searches for its strings from there
    (`skip`): the text up to the next transition is read once for all of
    the state's strings, not once per delimiter, and a string that occurs
    nowhere is read to the end once per parse.

    The strings go in groups: those holding a rare character (see
    rare_anchor) by that character and its offset, searched with an Anchor;
    the others by their first character: one str.find for a string alone,
    one pass of the alternation for a group (`re` runs it by the common
    start: on prose with a `<` every 150 characters, one pass for
    `</think>|<think>|<tool_call>` takes 15 us over 37k characters where
    three str.find take 37). Each search is bounded by the best found so far
    and memoised per parser as `Literals.find` does (the start found, or -1
    and how far the text was read), under the string itself for a group of
    one (so `Literals.find` reads the memo too)."""

    __slots__ = ("searches", "watch")

    def __init__(self, strings, watch):
        # The state's delimiters, literals last: by then a pattern's match
        # bounds how far they are looked for (see _scan).
        self.watch = tuple(sorted(watch, key=lambda entry: entry[2].literals is not None))
        groups = {}
        for string in sorted(strings):
            groups.setdefault(rare_anchor(string) or string[0], []).append(string)
        # (memo key: the string alone or the group's search; longest;
        # shortest; the group's Anchor or None)
        searches = []
        for by, members in groups.items():
            anchor = Anchor(by[0], by[1], members) if type(by) is tuple else None
            if len(members) == 1:
                key = members[0]
            else:
                key = anchor or literal_alternation(members)
            searches.append((key, max(map(len, members)), min(map(len, members)), anchor))
        self.searches = tuple(searches)

    @classmethod
    def of_state(cls, watch):
        """The horizon of a state's delimiters, or None: when one of them
        has no trigger strings (or reads behind them), or when there is only
        one string (its own memoised search is as good)."""
        strings = set()
        for _kind, _index, delim in watch:
            if delim.literals is not None:
                strings.update(delim.literals)
            elif delim.triggers is not None and not delim.behind:
                strings.update(delim.triggers)
            else:
                return None
        return cls(strings, watch) if len(strings) > 1 else None

    def first(self, buf, pos, base, memo):
        """Start of the leftmost string from `pos`, or len(buf) when none."""
        best = size = len(buf)
        pos_abs = base + pos
        for key, width, shortest, anchor in self.searches:
            cached = memo.get(key)
            if cached is not None and cached[0] >= pos_abs:
                found = cached[0] - base
                if found < best:
                    best = found
                continue
            limit = size if best == size else best - 1 + width  # only an earlier start can win
            start = pos
            if cached is not None and cached[0] < 0:
                start = max(pos, cached[1] - width + 1 - base)
            if limit - start < shortest:
                continue  # read already (or nothing earlier fits)
            if anchor is not None:
                found = anchor.find(buf, start, limit)
            elif type(key) is str:
                found = buf.find(key, start, limit)
            else:
                match = key.search(buf, start, limit)
                found = -1 if match is None else match.start()
            memo[key] = (base + found, 0) if found >= 0 else (-1, base + limit)
            if 0 <= found < best:
                best = found
        return best


PLAIN_TOKENS = 1 << 15  # bound on each scanner's table of plain tokens
SETTLE_LIMIT = 1024  # longest rest after a transition the scanner answers for (see _settle)
LEARN_LIMIT = 64  # longest text kept in a scanner's table of plain tokens
STEP_LIMIT = 256  # longest unconsumed text whose general step is remembered (see _step)
HELD_WHOLE = -2  # Scanner.trigger_holds: the token is held whole, and is no lead run
LAZY_CUT = 96  # a state without a scanner cuts its buffer only from this length on (see _append)
CUT_DONE, UNCUT = -1, -2  # what _append did about the ContextCut when it left no cut to _step
CHAIN_LIMIT = 16  # most texts remembered after one remembered step (see _feed_general): with the
# step table's bound, at most PLAIN_TOKENS * CHAIN_LIMIT entries per parser class
SCAN_CONTEXT_LIMIT = 128  # with CONTEXT -1: longest buffer whose scan is remembered (see _scan_remembered)
ROUTE_OP, OPEN_OP, CLOSE_OP = 0, 1, 2  # what a remembered general step does (see _step)
HOT_MODE, LEAD_HOT_MODE = 1, 2  # the common path a remembered step leaves open (see _step)


def prefix_rules(delim, later=False):
    """(trigger strings, exact, lead or None) per part of a delimiter: one
    for literals and most patterns, one per alternative for patterns the
    compiler read branch by branch; `later`: without the alternatives that
    match only where the text starts."""
    if delim.literals is not None:
        return ((delim.literals, True, None),)
    if delim.branches is not None:
        branches = delim.branches
        if later and delim.at_start:
            branches = tuple(rule for index, rule in enumerate(branches) if index not in delim.at_start)
        if delim.behind:
            # One-character strings: text holding one takes the search.
            return branches + ((tuple(delim.behind), True, None),)
        return branches
    exact = delim.exact
    return ((delim.triggers, exact, delim.first_lead if exact and delim.leads else None),)


class Scanner:
    """A state's watched delimiters as one lexer over the unconsumed tail.

    Built once per parser class and state from the delimiters' trigger
    strings (compiler analysis: every match is lead characters then one of
    them). It answers the hold-back question for a tail that holds no whole
    trigger string, from the tail's last `longest - 1` characters only:
    - a proper prefix of a trigger string at the end is a partial match of
      every delimiter owning it; for exact delimiters (literals, or leads
      then the trigger with nothing else before it) the partial match starts
      at that prefix, or at the run of the delimiter's lead class before it;
    - otherwise a tail ending in lead characters is a partial match of the
      state's hold lead from the start of that run;
    - otherwise nothing is pending and all of the tail is routed.
    Anything else (a whole trigger string, a prefix owned by an inexact
    delimiter) goes to the general search, which runs the delimiters.
    """

    __slots__ = (
        "strings",
        "firsts",
        "single",
        "prefixes",
        "longest",
        "leads",
        "lead_ascii",
        "hold_lead",
        "ascii_run_holds",
        "plain",
        "lead_end",
        "holds",
        "trigger_holds",
        "lead_triggers",
        "behind",
        "learns_triggered",
        "later",
    )

    def __init__(self, watch, fast, later=False):
        strings = []
        prefixes = {}
        rules = (rule for _kind, _index, delim in watch for rule in prefix_rules(delim, later))
        for owned, exact, lead in rules:
            for string in owned:
                strings.append(string)
                for size in range(1, len(string)):
                    prefix = string[:size]
                    rule = prefixes.get(prefix, ())
                    if not exact or rule is None:
                        prefixes[prefix] = None
                    elif lead is not None and lead not in rule:
                        prefixes[prefix] = rule + (lead,)
                    else:
                        prefixes[prefix] = rule
        self.strings = tuple(dict.fromkeys(strings))
        self.firsts = "".join(sorted({string[0] for string in self.strings}))
        self.single = self.firsts if len(self.firsts) == 1 else None
        self.prefixes = prefixes
        self.longest = max(map(len, self.strings), default=0)
        self.leads = fast.leads
        self.lead_ascii = fast.leads.ascii
        self.hold_lead = fast.hold_lead
        # Every ASCII lead character is of the hold lead: a trailing ASCII
        # run of leads needs no further check.
        self.ascii_run_holds = self.hold_lead is not None and set(self.lead_ascii) <= set(self.hold_lead.ascii)
        # Tokens met in this state that hold no trigger character and do
        # not end in a lead (a tokenizer's vocabulary is finite, so most
        # tokens are met again): the common path's one lookup.
        self.plain = {}
        # Tokens with no trigger character ending in a run of the hold lead:
        # token -> where that run starts.
        self.lead_end = {}
        self.holds = {}  # short tail -> hold (see hold)
        # Tokens with a trigger character met on the common path with
        # nothing held: token -> its hold, or HELD_WHOLE when all of it is
        # held and it is no run of the hold lead (a lone `<`): answered at
        # once (see StreamParser._feed_new_token).
        self.trigger_holds = {}
        # One-character trigger strings that are lead characters too (the
        # `\n` of `[ \t]*\n`): text holding one is never a lead run to
        # skip (see of_state, StreamParser._feed_general and _note_held).
        self.lead_triggers = ""
        # Characters right after which a look-behind alternative may match
        # (Pattern.behind): the scanner answers only when the character
        # before the tail is none of them (see StreamParser._behind_clear).
        self.behind = "".join(sorted({char for _kind, _index, delim in watch for char in delim.behind}))
        # A token with a trigger character that is routed whole with nothing
        # held (` first` where `functools[` is watched) is plain too when no
        # string starts with a lead character and no alternative reads the
        # character before the tail: then neither a held lead run before it
        # nor what came before changes that answer, and it takes the
        # common path's one lookup (see StreamParser._feed_trigger).
        self.learns_triggered = not self.behind and not any(self.leads.holds_char(s[0]) for s in self.strings)
        # The scanner to ask once anything is consumed: one without the
        # alternatives that match only where the text starts (granite's
        # `^\\s*(?:Here is|Here's) my thought process:`), whose trigger
        # prefixes (`H`, `Her`) would otherwise send every token holding
        # one to the search; itself when there are none (see of_state).
        self.later = self

    def learn(self, token):
        """Remember a plain token (up to a bound on the table's size)."""
        if len(self.plain) < PLAIN_TOKENS:
            self.plain[token] = True

    @classmethod
    def of_state(cls, watch, fast):
        """The scanner for a state, or None when its delimiters give no
        trigger strings or a trigger could start inside a lead run."""
        if fast is None or not watch:
            return None
        for _kind, _index, delim in watch:
            if delim.literals is None and delim.triggers is None and not delim.behind:
                return None
        scanner = cls._checked(cls(watch, fast))
        if scanner is not None and any(delim.literals is None and delim.at_start for _k, _i, delim in watch):
            # (with no trigger string left, every token is plain: nothing
            # can match any more)
            later = cls._checked(cls(watch, fast, later=True))
            if later is not None:
                scanner.later = later
        return scanner

    @staticmethod
    def _checked(scanner):
        """`scanner`, or None when a trigger could start inside a lead run."""
        if any(scanner.leads.holds_char(char) for char in scanner.behind):
            return None
        overlap = "".join(char for char in scanner.firsts if scanner.leads.holds_char(char))
        if overlap:
            # Only one-character triggers may be lead characters: they have
            # no prefixes, so a tail holding one always takes the search.
            if any(string[0] in overlap and len(string) > 1 for string in scanner.strings):
                return None
            scanner.lead_triggers = overlap
        return scanner

    def hold(self, tail):
        """Where the held text starts in `tail` (len(tail): nothing held), or
        -1 when only the general search can tell. Answers for short tails
        (a held delimiter prefix and a token) are remembered."""
        if len(tail) > 64:
            return self._hold(tail)  # not remembered, nor hashed
        known = self.holds.get(tail)
        if known is None:
            known = self._hold(tail)
            if len(self.holds) < PLAIN_TOKENS:
                self.holds[tail] = known
        return known

    def _hold(self, tail):
        for string in self.strings:
            if string in tail:
                return -1
        size = len(tail)
        low = size - self.longest + 1
        if low < 0:
            low = 0
        single = self.single
        if single is not None:
            at = tail.find(single, low)
            while at >= 0:
                rule = self.prefixes.get(tail[at:], False)
                if rule is not False:
                    return self._extend(tail, at, rule)
                at = tail.find(single, at + 1)
        else:
            firsts = self.firsts
            prefixes = self.prefixes
            for at in range(low, size):
                if tail[at] in firsts:
                    rule = prefixes.get(tail[at:], False)
                    if rule is not False:
                        return self._extend(tail, at, rule)
        last = tail[-1]
        if last in self.lead_ascii or (last > "\x7f" and self.leads.holds_char(last)):
            start = self.leads.run_start(tail, size)
            if self.hold_lead is None or not self.hold_lead.holds(tail[start:]):
                return -1
            return start
        return size

    def lead_triggers_in(self, text):
        """Whether `text` holds a trigger string that is a lead character."""
        for char in self.lead_triggers:
            if char in text:
                return True
        return False

    @staticmethod
    def _extend(tail, at, rule):
        """The partial matches of a trigger prefix at `at` start there, or at
        the run of a delimiter's lead class before it."""
        if rule is None:
            return -1
        hold = at
        for lead in rule:
            start = at
            while start > 0 and lead.holds(tail[start - 1]):
                start -= 1
            if start < hold:
                hold = start
        return hold
