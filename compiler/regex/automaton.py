"""A compile-time automaton that answers the `regex` module's search, partial
matching included, without the `regex` module.

What it reproduces: `regex.compile(p, regex.DOTALL).search(text, pos,
partial=partial)` as `(start, end, is_partial)`, except that the empty partial
match the module reports at the very end of the text is None. The module's
rule: a complete match anywhere wins (the leftmost; its end chosen by
backtracking priority); otherwise, with partial=True, the leftmost start from
which matching runs into the end of the text while it still wants a
character (the end is then the text's end).

How it decides, in two passes over plain tables:

1. Backward pass (a DFA over sets): reading the text from its end down to
   `pos`, the state holds, for the pattern's NFA, the set T of thread
   positions from which some path reaches a match, and the set S from which
   some path consumes the whole rest of the text and then wants another
   character. "A complete match starts at p" and "a partial match starts at
   p" are then table lookups; the leftmost of each is kept.
2. Forward pass (a DFA over *ordered* thread lists, Pike-VM style): from the
   leftmost complete start, threads are kept in backtracking priority order;
   reaching the match cuts every lower-priority thread, and the last match
   seen when no thread is left is the end backtracking would return
   (leftmost-first, greedy/lazy order respected).

Zero-width assertions read the characters on both sides of a position: the
left one is part of the state (start of text, word character, other), the
right one is the symbol being read. A "\\n" that ends the text is its own
symbol, so `$` (end, or before a final "\\n") is decided locally too.

Empty iterations follow the `regex` module: once a repeat has its minimum
count, an iteration that matched nothing ends the repeat (`(?:|a)*` on "aa"
matches ""), which Pike VMs usually get wrong; the NFA marks where such
iterations start and checks it where they end. Required iterations are
plain copies of the body and may be empty.

Scope: everything the parser accepts except lookarounds, multiline
anchors and the patterns
the `regex` module itself misreads (analysis.regex_module_quirk); those
raise `UnsupportedPattern` and the caller falls back to the `regex` module,
which reproduces the reference, quirks included. Complete matches are exact
for all the rest, lazy quantifiers included. Partial matches are exact
except where the module computes them its own way (`partial_problem`), and
there `search(partial=True)` raises `UnsupportedPattern` (`partial_exact`
is False; `compile_automaton(ast, partial=True)` refuses up front):
- lazy repeats: the module reports partial matches no match starts with
  (`\\s*?<a>` on " x" is a partial match at 0; lazy_partial.py has the
  model for one-character bodies, which the JavaScript and Go matchers
  follow, `partial_problem(ast, ports=True)`);
- repeats of more than one character that can iterate again (`(?:ab)*`,
  `(?:<a>\\s*){1,3}`): the module does not count a further iteration that
  would start at the end of the text (`(?:ab)*^c` on "ab": no partial
  match at 0, though `(?:ab)+^c` has one);
- patterns that can start with any character (`.` under DOTALL): searched
  from the end of the text, the module reads past it (`.` gives a match
  ending after the text, `.+` one ending near 2**32, `(?:.).*^` hangs for
  seconds; it can crash).
Templates' delimiters have none of these. Very large automata (the limits
below) are refused too.
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass

from .analysis import first_set, nullable, regex_module_quirk
from .charset import CharSet, set_of, word_set
from .errors import UnsupportedPattern
from .nodes import (
    BOS,
    END,
    EOS,
    LINE_END,
    LINE_START,
    NOT_WORD_BOUNDARY,
    START,
    WORD_BOUNDARY,
    Alt,
    Anchor,
    Category,
    Char,
    Class,
    Concat,
    Dot,
    Group,
    Look,
    Node,
    Regex,
    Repeat,
    root_of,
    walk,
)
from .syntax import to_source

MAX_INSTRUCTIONS = 5000
MAX_STATES = 5000

# Left context of a position: the start of the text, after a word
# character, after anything else.
L_START, L_WORD, L_OTHER = 0, 1, 2
# Right context: the end of the text, a word character, anything else, a
# "\n" that is the last character.
R_END, R_WORD, R_OTHER, R_FINAL_NL = 0, 1, 2, 3

# NFA instructions (tuples; the opcode first).
CHAR = 0  # (CHAR, set index, next)
SPLIT = 1  # (SPLIT, targets in priority order)
ASSERT = 2  # (ASSERT, anchor kind, next)
ITER = 3  # (ITER, loop id, next): an iteration of a repeat starts here
CHECK = 4  # (CHECK, loop id, continue, exit): an iteration ends; empty -> exit
MATCH = 5  # (MATCH,)


# ---------------------------------------------------------------------------
# NFA
# ---------------------------------------------------------------------------


class _Program:
    def __init__(self) -> None:
        self.code: list[tuple] = []
        self.enclosing: list[frozenset[int]] = []  # loops whose iteration contains each pc
        self.sets: list[CharSet] = []
        self._set_index: dict[CharSet, int] = {}
        self.loops: list[int] = []  # open loop ids while compiling
        self.loop_count = 0

    def add(self, op: tuple) -> int:
        if len(self.code) >= MAX_INSTRUCTIONS:
            raise UnsupportedPattern(f"pattern too large for the automaton (over {MAX_INSTRUCTIONS} NFA instructions)")
        self.code.append(op)
        self.enclosing.append(frozenset(self.loops))
        return len(self.code) - 1

    def set_index(self, chars: CharSet) -> int:
        if chars not in self._set_index:
            self._set_index[chars] = len(self.sets)
            self.sets.append(chars)
        return self._set_index[chars]

    def emit(self, node: Node, nxt: int) -> int:
        """Instructions matching `node` then continuing at `nxt`; returns the entry."""
        if isinstance(node, (Char, Dot, Category, Class)):
            return self.add((CHAR, self.set_index(set_of(node)), nxt))
        if isinstance(node, Concat):
            for item in reversed(node.items):
                nxt = self.emit(item, nxt)
            return nxt
        if isinstance(node, Alt):
            entries = tuple(self.emit(branch, nxt) for branch in node.branches)
            return self.add((SPLIT, entries))
        if isinstance(node, Group):
            return self.emit(node.body, nxt)
        if isinstance(node, Anchor):
            if node.kind in (LINE_START, LINE_END):
                raise UnsupportedPattern("multiline anchor: the automaton's contexts do not tell a newline apart")
            return self.add((ASSERT, node.kind, nxt))
        if isinstance(node, Look):
            raise UnsupportedPattern("lookaround: the automaton does not handle lookahead or lookbehind")
        if isinstance(node, Repeat):
            return self.repeat(node, nxt)
        raise TypeError(f"not a regex node: {node!r}")

    def iteration(self, body: Node, cont: int, exit_: int, checked: bool) -> int:
        """One iteration of a repeat's body, then `cont`; an empty iteration
        goes to `exit_` instead (only tracked when the body can be empty)."""
        if not checked:
            return self.emit(body, cont)
        loop = self.loop_count
        self.loop_count += 1
        self.loops.append(loop)
        check = self.add((CHECK, loop, cont, exit_))
        entry = self.emit(body, check)
        self.loops.pop()
        return self.add((ITER, loop, entry))

    def repeat(self, node: Repeat, exit_: int) -> int:
        if node.max == 0:
            return exit_
        checked = nullable(node.body)

        def choice(take: int) -> tuple:
            return (SPLIT, (exit_, take) if node.lazy else (take, exit_))

        if node.max is None:
            head = self.add((SPLIT, ()))  # patched below: it loops to itself
            entry = self.iteration(node.body, head, exit_, checked)
            self.code[head] = choice(entry)
            tail = head
        else:
            tail = exit_
            for _ in range(node.max - node.min):
                tail = self.add(choice(self.iteration(node.body, tail, exit_, checked)))
        for _ in range(node.min):  # required iterations may be empty: plain copies
            tail = self.emit(node.body, tail)
        return tail


def _holds(kind: str, left: int, right: int) -> bool:
    if kind in (BOS, START):
        return left == L_START
    if kind == END:
        return right == R_END
    if kind == EOS:
        return right in (R_END, R_FINAL_NL)
    boundary = (left == L_WORD) != (right == R_WORD)
    return boundary if kind == WORD_BOUNDARY else not boundary


def _closure(code, enclosing, threads, left: int, right: int, stop_at_match: bool):
    """Follow the zero-width instructions from `threads` (in priority order).
    Returns (CHAR pcs in priority order, matched). With stop_at_match, the
    first MATCH cuts every thread after it."""
    chars: list[int] = []
    seen_chars: set[int] = set()
    seen: set = set()
    matched = False
    empty: frozenset[int] = frozenset()
    for thread in threads:
        stack = [(thread, empty)]
        while stack:
            pc, entered = stack.pop()
            op = code[pc]
            kind = op[0]
            if kind == CHAR:
                if pc not in seen_chars:
                    seen_chars.add(pc)
                    chars.append(pc)
                continue
            inside = entered & enclosing[pc] if entered else None
            key = (pc, inside) if inside else pc
            if key in seen:
                continue
            seen.add(key)
            if kind == MATCH:
                matched = True
                if stop_at_match:
                    return chars, True
            elif kind == SPLIT:
                for target in reversed(op[1]):
                    stack.append((target, entered))
            elif kind == ASSERT:
                if _holds(op[1], left, right):
                    stack.append((op[2], entered))
            elif kind == ITER:
                stack.append((op[2], entered | {op[1]}))
            else:  # CHECK
                stack.append((op[3] if op[1] in entered else op[2], entered))
    return chars, matched


# ---------------------------------------------------------------------------
# Symbols: the alphabet cut into classes no set of the pattern splits.
# ---------------------------------------------------------------------------


def _partition(sets: list[CharSet]) -> tuple[list[int], list[int], list[tuple[bool, ...]]]:
    """(interval starts, class of each interval, membership of each class in each set)."""
    cuts = {0}
    for chars in sets:
        for lo, hi in chars.ranges:
            cuts.add(lo)
            if hi < 0x10FFFF:
                cuts.add(hi + 1)
    starts = sorted(cuts)
    signature_ids: dict[tuple[bool, ...], int] = {}
    signatures: list[tuple[bool, ...]] = []
    bounds: list[int] = []
    ids: list[int] = []
    for start in starts:
        signature = tuple(start in chars for chars in sets)
        if signature not in signature_ids:
            signature_ids[signature] = len(signatures)
            signatures.append(signature)
        symbol = signature_ids[signature]
        if ids and ids[-1] == symbol:
            continue
        bounds.append(start)
        ids.append(symbol)
    return bounds, ids, signatures


# ---------------------------------------------------------------------------
# The automaton
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Automaton:
    """Plain tables (see the module docstring); `search` runs them.

    Symbols 0..symbols-1 are character classes; `final_nl` (when not -1)
    is a "\\n" that ends the text; `end` (forward tables only) is the end
    of the text. Left contexts are L_START, L_WORD, L_OTHER.
    """

    pattern: str
    bounds: tuple[int, ...]  # interval starts (code points), sorted
    interval_symbols: tuple[int, ...]  # symbol of each interval
    ascii_symbols: tuple[int, ...]  # symbol of code points 0..127
    symbols: int
    final_nl: int  # symbol id of a final "\n", or -1 when nothing tells it apart
    end: int  # symbol id of the end of text (forward tables)
    left_of: tuple[int, ...]  # left context after reading each symbol (final_nl included)
    start_left: int  # left context at position 0
    fwd_init: tuple[int, int, int]  # initial forward state per left context
    fwd_next: tuple[tuple[int, ...], ...]  # [state][symbol] -> state, -1 when no thread is left
    fwd_match: tuple[tuple[bool, ...], ...]  # [state][symbol or end]: a match ends before this symbol
    rev_init: int
    rev_next: tuple[tuple[int, ...], ...]  # [state][symbol] -> state (reading leftwards)
    rev_match: tuple[tuple[bool, ...], ...]  # [state][left context]: a complete match starts here
    rev_partial: tuple[tuple[bool, ...], ...]  # [state][left context]: a partial match starts here
    no_partial: str  # why partial=True is refused (partial_problem), or ""

    @property
    def partial_exact(self) -> bool:
        return not self.no_partial

    def symbol(self, char: str) -> int:
        code = ord(char)
        if code < 128:
            return self.ascii_symbols[code]
        return self.interval_symbols[bisect_right(self.bounds, code) - 1]

    def search(self, text: str, pos: int = 0, partial: bool = False) -> tuple[int, int, bool] | None:
        """What `regex.compile(pattern, regex.DOTALL).search(text, pos,
        partial=partial)` returns, as (start, end, is_partial); an empty
        partial match at the end of the text is None."""
        if partial and self.no_partial:
            raise UnsupportedPattern(self.no_partial)
        size = len(text)
        pos = max(0, min(pos if pos >= 0 else size + pos, size))  # as a slice index, like the regex module
        symbols = [self.symbol(c) for c in text[max(pos - 1, 0) :]]
        offset = max(pos - 1, 0)  # symbols[i] is text[offset + i]
        if self.final_nl >= 0 and size and text[-1] == "\n":
            symbols[-1] = self.final_nl
        left_of, rev_next, rev_match, rev_partial = self.left_of, self.rev_next, self.rev_match, self.rev_partial
        state = self.rev_init
        best = best_partial = -1
        here = size
        while True:
            left = self.start_left if here == 0 else left_of[symbols[here - 1 - offset]]
            if rev_match[state][left]:
                best = here
            elif partial and here < size and rev_partial[state][left]:
                best_partial = here
            if here == pos:
                break
            here -= 1
            state = rev_next[state][symbols[here - offset]]
        if best >= 0:
            return best, self._end(symbols, offset, best, size), False
        if best_partial >= 0:
            return best_partial, size, True
        return None

    def _end(self, symbols: list[int], offset: int, start: int, size: int) -> int:
        """End of the highest-priority match starting at `start`."""
        state = self.fwd_init[self.start_left if start == 0 else self.left_of[symbols[start - 1 - offset]]]
        fwd_next, fwd_match = self.fwd_next, self.fwd_match
        end = -1
        here = start
        while True:
            symbol = self.end if here == size else symbols[here - offset]
            if fwd_match[state][symbol]:
                end = here
            if here == size:
                return end
            state = fwd_next[state][symbol]
            if state < 0:
                return end
            here += 1

    def tables(self) -> dict:
        """The tables as JSON-ready plain lists, for code generators."""
        return {
            name: [list(row) if isinstance(row, tuple) else row for row in value] if isinstance(value, tuple) else value
            for name, value in self.__dict__.items()
        }


def _is_lookbehind(node: Node) -> bool:
    """A look-behind reads the text before its position, never the end of the
    text, so the module's way of computing partial matches at the end does not
    reach inside it."""
    return isinstance(node, Look) and node.behind


def _one_char_body(node: Repeat) -> bool:
    body = node.body
    while isinstance(body, Group) and body.index is None:
        body = body.body
    return isinstance(body, (Char, Dot, Category, Class))


def partial_problem(ast: Regex | Node, *, ports: bool = False) -> str | None:
    """Why the `regex` module's partial matches for this pattern are not
    the ones the automaton computes, or None. With `ports`: the ones the
    JavaScript and Go matchers compute, which also reproduce the module's
    partial matches for lazy one-character repeats (lazy_partial.py)."""
    root = root_of(ast)
    if first_set(root).is_full():
        return (
            "the pattern can start with any character: the regex module's partial search reads past the "
            "end of the text there (a span beyond it, a hang or a crash: (?:.).*^ from the end)"
        )
    for node in walk(root, skip=_is_lookbehind):
        if not isinstance(node, Repeat) or node.min == node.max:
            continue
        if node.lazy and ports:
            continue
        if node.lazy:
            return (
                f"lazy quantifier {to_source(node)}: the regex module reports partial matches for lazy "
                "repeats that no match starts with (\\s*?<a> on ' x')"
            )
        body = node.body
        while isinstance(body, Group):
            body = body.body
        if (node.max is None or node.max >= 2) and not isinstance(body, (Char, Dot, Category, Class)):
            return (
                f"repeated group {to_source(node)}: the regex module reports no partial match for a further "
                "iteration that would start at the end of the text ((?:ab)*^c on 'ab')"
            )
    return None


def compile_automaton(ast: Regex | Node, partial: bool = False) -> Automaton:
    """Build the automaton for a parsed pattern. `UnsupportedPattern` for
    lookarounds, for patterns the `regex` module misreads, for patterns
    too large, and, when `partial` is asked for, for patterns whose partial
    matches the module computes its own way (partial_problem)."""
    root = root_of(ast)
    why_not_partial = partial_problem(root)
    if partial and why_not_partial:
        raise UnsupportedPattern(why_not_partial)
    quirk = regex_module_quirk(root)
    if quirk:
        raise UnsupportedPattern(quirk)
    program = _Program()
    match = program.add((MATCH,))
    start = program.emit(root, match)
    code, enclosing = program.code, program.enclosing
    kinds = {op[1] for op in code if op[0] == ASSERT}
    uses_word = bool(kinds & {WORD_BOUNDARY, NOT_WORD_BOUNDARY})
    uses_start = bool(kinds & {BOS, START})
    uses_end = bool(kinds & {END, EOS})
    uses_final_nl = EOS in kinds

    sets = list(program.sets)
    words = word_set()
    bounds, ids, signatures = _partition(sets + ([words] if uses_word else []))
    symbols = len(signatures)
    member = [signature[: len(sets)] for signature in signatures]  # [symbol][set]
    is_word = [uses_word and signature[-1] for signature in signatures]
    final_nl = symbols if uses_final_nl else -1
    newline_symbol = ids[bisect_right(bounds, 10) - 1]
    if uses_final_nl:
        member.append(member[newline_symbol])
        is_word.append(False)
    end = len(member)
    all_symbols = range(end)

    # Canonical contexts: only distinctions some assertion can see.
    def left_ctx(left: int) -> int:
        if left == L_START and not uses_start:
            left = L_OTHER
        return L_OTHER if left == L_WORD and not uses_word else left

    def right_ctx(symbol: int) -> int:
        if symbol == end:
            return R_END if uses_end else R_OTHER
        if symbol == final_nl:
            return R_FINAL_NL
        return R_WORD if is_word[symbol] else R_OTHER

    left_of = tuple(left_ctx(L_WORD if is_word[s] else L_OTHER) for s in all_symbols)
    start_left = left_ctx(L_START)
    lefts = sorted({start_left, *left_of})
    rights = sorted({right_ctx(s) for s in range(end + 1)})

    # -- forward: ordered thread lists ----------------------------------
    fwd_states: dict[tuple, int] = {}
    fwd_rows: list[tuple[int, tuple[int, ...]]] = []

    def fwd_state(left: int, threads: tuple[int, ...]) -> int:
        if not threads:
            return -1
        key = (left, threads)
        if key not in fwd_states:
            if len(fwd_rows) >= MAX_STATES:
                raise UnsupportedPattern(f"automaton too large (over {MAX_STATES} states)")
            fwd_states[key] = len(fwd_rows)
            fwd_rows.append(key)
        return fwd_states[key]

    fwd_init = tuple(fwd_state(left_ctx(left), (start,)) for left in (L_START, L_WORD, L_OTHER))
    fwd_next: list[tuple[int, ...]] = []
    fwd_match: list[tuple[bool, ...]] = []
    index = 0
    while index < len(fwd_rows):
        left, threads = fwd_rows[index]
        index += 1
        by_right = {right: _closure(code, enclosing, threads, left, right, True) for right in rights}
        row_next, row_match = [], []
        for symbol in range(end + 1):
            chars, matched = by_right[right_ctx(symbol)]
            row_match.append(matched)
            if symbol == end:
                row_next.append(-1)
                continue
            following = tuple(dict.fromkeys(code[pc][2] for pc in chars if member[symbol][code[pc][1]]))
            row_next.append(fwd_state(left_of[symbol], following))
        fwd_next.append(tuple(row_next))
        fwd_match.append(tuple(row_match))

    # -- backward: sets of thread positions, as bit masks -----------------
    positions = [start] + sorted({op[2] for op in code if op[0] == CHAR} - {start})
    bit = {pc: 1 << i for i, pc in enumerate(positions)}
    start_bit = bit[start]
    has_match: dict[tuple[int, int], int] = {}  # (left, right) -> mask of x reaching MATCH
    wants_char: dict[tuple[int, int], int] = {}  # (left, right) -> mask of x reaching a CHAR
    # (left, right, symbol) -> list of (mask of x, mask of next positions after reading symbol)
    steps: dict[tuple[int, int, int], dict[int, int]] = {}
    for left in lefts:
        for right in rights:
            matched_mask = char_mask = 0
            for pc in positions:
                chars, matched = _closure(code, enclosing, (pc,), left, right, False)
                if matched:
                    matched_mask |= bit[pc]
                if chars:
                    char_mask |= bit[pc]
                for symbol in all_symbols:
                    if right_ctx(symbol) != right:
                        continue
                    after = 0
                    for c in chars:
                        if member[symbol][code[c][1]]:
                            after |= bit[code[c][2]]
                    if after:
                        # predecessor index: next position bit -> x bits
                        table = steps.setdefault((left, right, symbol), {})
                        rest = after
                        while rest:
                            low = rest & -rest
                            table[low] = table.get(low, 0) | bit[pc]
                            rest ^= low
            has_match[(left, right)] = matched_mask
            wants_char[(left, right)] = char_mask

    def preimage(mask: int, left: int, right: int, symbol: int) -> int:
        table = steps.get((left, right, symbol))
        out = 0
        if table:
            while mask:
                low = mask & -mask
                out |= table.get(low, 0)
                mask ^= low
        return out

    rev_states: dict[tuple, int] = {}
    rev_rows: list[tuple] = []

    def rev_state(entries: tuple) -> int:
        if entries not in rev_states:
            if len(rev_rows) >= MAX_STATES:
                raise UnsupportedPattern(f"automaton too large (over {MAX_STATES} states)")
            rev_states[entries] = len(rev_rows)
            rev_rows.append(entries)
        return rev_states[entries]

    end_right = right_ctx(end)
    # A state: for each left context (indexed 0..2), the (T, S) masks.
    rev_init = rev_state(
        tuple(
            (has_match[(left_ctx(left), end_right)], wants_char[(left_ctx(left), end_right)])
            for left in (L_START, L_WORD, L_OTHER)
        )
    )
    rev_next: list[tuple[int, ...]] = []
    index = 0
    while index < len(rev_rows):
        entries = rev_rows[index]
        index += 1
        row = []
        for symbol in all_symbols:
            complete, partial_mask = entries[left_of[symbol]]
            right = right_ctx(symbol)
            new = []
            for left in (L_START, L_WORD, L_OTHER):
                lc = left_ctx(left)
                new.append(
                    (
                        has_match[(lc, right)] | preimage(complete, lc, right, symbol),
                        preimage(partial_mask, lc, right, symbol),
                    )
                )
            row.append(rev_state(tuple(new)))
        rev_next.append(tuple(row))
    rev_match = tuple(tuple(bool(entries[left][0] & start_bit) for left in range(3)) for entries in rev_rows)
    rev_partial = tuple(tuple(bool(entries[left][1] & start_bit) for left in range(3)) for entries in rev_rows)

    ascii_symbols = tuple(ids[bisect_right(bounds, code) - 1] for code in range(128))
    source = ast.source if isinstance(ast, Regex) and ast.source else to_source(root)
    return Automaton(
        pattern=source,
        bounds=tuple(bounds),
        interval_symbols=tuple(ids),
        ascii_symbols=ascii_symbols,
        symbols=symbols,
        final_nl=final_nl,
        end=end,
        left_of=left_of,
        start_left=start_left,
        fwd_init=fwd_init,  # type: ignore[arg-type]
        fwd_next=tuple(fwd_next),
        fwd_match=tuple(fwd_match),
        rev_init=rev_init,
        rev_next=tuple(rev_next),
        rev_match=rev_match,
        rev_partial=rev_partial,
        no_partial=why_not_partial or "",
    )
