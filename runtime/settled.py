"""Settled: smaller patterns for a delimiter whose look-behind branches a
long buffer settles (compiler/passes/lookbehind_settle.py). Only the
templates with such a delimiter use it (the Python backend imports it, and
`--vendor` inlines it, only then).
"""

from runtime.values import regex_module


class Settled:
    """Smaller patterns for a delimiter whose look-behind branches the
    buffer settles (compiler/passes/lookbehind_settle.py): an anchored branch
    `(?<=^H.*T)` is `(?<=T)` once `^H` matches the buffer's start (`alive`)
    and is dropped once it cannot (`dead`); a headed branch, tempered and
    starting with the literal `L`, is dropped while the buffer holds no `L`
    and no match of its `probe`. Without these, the `regex` module walks
    each such look-behind back to the start of the text at every position
    it tries: one search of a long text took quadratic time, and so did a
    stream whose buffer keeps all of its text (llama4_pythonic's, once its
    text starts with `[`, which no ContextCut may drop). Every search of
    the delimiter asks `choose`; the look-behinds read only the buffer, so
    facts about it hold for any search of it.

    The buffer facts are searched for once per text: `memo` (the parser's,
    as for Literals.find) keeps, per string, its first occurrence or how
    far it is known absent, in absolute positions."""

    __slots__ = ("dead", "alive", "anchored", "tail", "absent", "_compiled")

    def __init__(self, dead, alive=None, anchored=None, tail=0, absent=()):
        self.dead = dead
        self.alive = alive
        self.anchored = anchored
        self.tail = tail
        self.absent = tuple(absent)
        self._compiled = {}

    def __repr__(self):
        return f"Settled({self.dead!r}, {self.alive!r}, {self.anchored!r}, {self.tail!r}, {self.absent!r})"

    def _regex(self, source):
        compiled = self._compiled.get(source)
        if compiled is None:
            rx = regex_module()
            compiled = self._compiled[source] = rx.compile(source, rx.DOTALL)
        return compiled

    def _occurs(self, text, regex_source, buf, base, memo):
        """Whether the literal `text` (or a match of the two-character
        `regex_source`) occurs in the buffer."""
        key = ("settled", text, regex_source)
        size = len(buf)
        width = len(text) if regex_source is None else 2
        cached = memo.get(key)
        start = 0
        if cached is not None:
            found, searched = cached
            if found >= base:
                return True
            if found < 0:
                start = max(0, searched - width + 1 - base)
        if size - start < width:
            memo[key] = (-1, base + size)
            return False
        if regex_source is None:
            found = buf.find(text, start)
        else:
            match = self._regex(regex_source).search(buf, start)
            found = -1 if match is None else match.start()
        memo[key] = (base + found, 0) if found >= 0 else (-1, base + size)
        return found >= 0

    def choose(self, buf, pos, base, memo):
        """The pattern to search `buf` from `pos` with, or None for the
        delimiter's own."""
        for literal, probe in self.absent:
            if self._occurs(literal, None, buf, base, memo):
                return None
            if probe is not None and self._occurs("", probe, buf, base, memo):
                return None
        if self.anchored is None:
            return self.dead
        head = self._regex(self.anchored).match(buf, partial=True)
        if head is None:
            return self.dead
        if head.end() + self.tail > pos:
            return None  # (a partial match of the head ends at the buffer's end: here too)
        return self.alive
