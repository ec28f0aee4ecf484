"""ContextCut: how much of the text a template with unbounded look-behinds
(CONTEXT -1) must keep, and the cut itself.

compiler/passes/lookbehind_reach.py proves how far back each unbounded
look-behind can read; the driver (runtime/stream.py) asks its ContextCut,
after each general step, to drop the text before that, so the buffer stays
short. Only templates with a
ContextCut use this module (the Python backend imports it, and `--vendor`
inlines it, only then); the bookkeeping lives in the parser's slots.
"""

from runtime.values import regex_module

LEAD_RUN_LIMIT = 256  # longest lead run a ContextCut looks back over (see lead_run_start)


class ContextCut:
    """How much of the text a template with unbounded look-behinds (CONTEXT
    -1) must really keep (compiler/passes/lookbehind_reach.py proves it from the
    patterns): each tempered look-behind `(?<=A(?:(?!B).)*C)` reads nothing
    before `before` characters ahead of the last whole barrier `B` that
    starts more than `after` characters before the read position, and, when
    `A` is one literal (`head`), nothing before `before` characters ahead of
    the first `A` after that barrier (nor, with none, ahead of the read
    position less `after`: the rest answers as the text's start; with a
    `lead` class, `head` is the character after a run of it, and the run is
    kept too); bounded
    readers need `near` characters; an anchored look-behind `(?<=^H.*...)`
    (`anchored` is `^H`) is dead once the text's start is no match nor
    partial match of it, and the kept text then starts with `sentinel`, on
    which `^H` fails as on the real start. Each `counted` rule
    `(char, count, before)` is a look-behind whose matches hold fewer than
    `count` of `char` (glm47's `<`): it reads nothing before `before`
    characters ahead of the `count`-th last `char` before the read
    position."""

    __slots__ = ("near", "barriers", "anchored", "sentinel", "counted", "_anchored_regex", "_leads")

    def __init__(self, near, barriers, anchored=None, sentinel=None, counted=()):
        self.near = near
        self.barriers = tuple(barriers)
        self.anchored = anchored
        self.sentinel = sentinel
        self.counted = tuple(counted)
        self._anchored_regex = None
        self._leads = {}

    def lead_run_start(self, index, buf, base, at):
        """Where the run of barrier `index`'s lead class ending right before
        absolute position `at` starts (the look-behind reads it, and its
        literal before it); `base` when the run reaches the buffer's start
        or is longer than LEAD_RUN_LIMIT (then nothing is cut)."""
        lead = self._leads.get(index)
        if lead is None:
            lead = self._leads[index] = regex_module().compile(self.barriers[index][4]).fullmatch
        end = at - base
        start = end
        while start > 0 and end - start < LEAD_RUN_LIMIT and lead(buf[start - 1]):
            start -= 1
        return base if start == 0 or end - start >= LEAD_RUN_LIMIT else base + start

    def __repr__(self):
        return f"ContextCut({self.near!r}, {self.barriers!r}, {self.anchored!r}, {self.sentinel!r}, {self.counted!r})"

    def anchored_regex(self):
        if self._anchored_regex is None:
            rx = regex_module()
            self._anchored_regex = rx.compile(self.anchored, rx.DOTALL)
        return self._anchored_regex

    def start(self, parser):
        """A new parser's bookkeeping: where barriers, heads and counted
        characters were last seen (absolute positions; none yet)."""
        count = len(self.barriers)
        parser._barrier_last = [-1] * count  # absolute start of the last whole barrier seen
        parser._barrier_scanned = [0] * count  # barrier starts below this are searched
        parser._head_first = [-1] * count  # absolute start of the first head after the last barrier
        parser._head_scanned = [0] * count  # head starts below this are searched
        parser._anchored_state = None  # the anchored look-behind: None undecided, True dead, False alive
        parser._counted_seen = [[] for _ in self.counted]  # absolute starts of the last `count` chars
        parser._counted_scanned = [0] * len(self.counted)  # chars below this are searched

    def cut(self, parser):
        """CONTEXT -1 with a ContextCut: drop the text no look-behind can read
        any more (see ContextCut), so the buffer is short again after each
        barrier. Each barrier is searched for in new text only: every
        character is searched a bounded number of times."""
        if parser._anchored_state is False:
            return  # the anchored look-behind is alive: it reads back to the start
        buf = parser._buf
        base = parser._base
        pos = parser._pos
        top = base + len(buf)
        rule = self
        target = base + pos - rule.near  # absolute positions from here on
        last = parser._barrier_last
        scanned = parser._barrier_scanned
        heads = parser._head_first
        index = 0
        for barrier, after, before, head, lead in rule.barriers:
            size = len(barrier)
            limit = base + pos - after - 1  # the last start a barrier (or head) may have
            end = limit + size
            if end > top:
                end = top
            if end - scanned[index] >= size:
                start = scanned[index] - base
                found = buf.rfind(barrier, start if start > 0 else 0, end - base)
                if found >= 0:
                    last[index] = base + found
                    if head is not None:
                        heads[index] = -1  # the head is searched for again after the new barrier
                        parser._head_scanned[index] = max(base + found + 1 - len(head), 0)
                scanned[index] = end - size + 1
            if head is not None:
                # The first head after the last barrier; the text before it
                # (without one: all but `before` + `after` characters) can go.
                at = heads[index]
                if at < 0:
                    hsize = len(head)
                    hend = limit + hsize
                    if hend > top:
                        hend = top
                    hstart = parser._head_scanned[index]
                    if hend - hstart >= hsize:
                        found = buf.find(head, hstart - base if hstart > base else 0, hend - base)
                        if found >= 0:
                            at = heads[index] = base + found
                        parser._head_scanned[index] = hend - hsize + 1
                    if at < 0:
                        at = limit if lead is None else limit + 1
                if lead is not None:
                    at = rule.lead_run_start(index, buf, base, at)
                free = at - before
                barred = last[index] - before
                at = free if free > barred else barred
            else:
                at = last[index]
                if at < 0:
                    return  # no barrier yet: the look-behind may walk back to the start
                at -= before
            if at < target:
                target = at
            index += 1
        index = 0
        for char, count, before in rule.counted:
            # The last `count` occurrences of `char` before the read
            # position (final: the read position only moves on), searched
            # from the right in the text not searched yet.
            seen = parser._counted_seen[index]
            end = base + pos
            scanned = parser._counted_scanned[index]
            if end > scanned:
                found = []
                stop = end - base
                start = scanned - base if scanned > base else 0
                while len(found) < count and stop > start:
                    at = buf.rfind(char, start, stop)
                    if at < 0:
                        break
                    found.append(base + at)
                    stop = at
                if found:
                    found.reverse()
                    seen = parser._counted_seen[index] = (seen + found)[-count:]
                parser._counted_scanned[index] = end
            if len(seen) < count:
                return  # fewer than `count`: the look-behind may read back to the start
            at = seen[0] - before
            if at < target:
                target = at
            index += 1
        cut = target - base
        if cut <= 0:
            return
        if rule.anchored is not None:
            if parser._anchored_state is None:
                # base is 0 here: nothing was cut before this was decided
                found = rule.anchored_regex().match(buf if top == base + len(buf) else buf[: top - base], partial=True)
                if found is not None:
                    if not found.partial:
                        parser._anchored_state = False
                    return
                parser._anchored_state = True
            parser._buf = rule.sentinel + buf[cut + 1 :]
        else:
            parser._buf = buf[cut:]
        parser._base = target
        parser._pos = pos - cut
