"""Pass: what the node-tree runtime needs to know about each parser state (State.tree_fast,
State.hold_run, State.ahead), decided at build time.

The Go runtime runs regex delimiters as node trees (`rt.Node`, read off the
compiler's regex AST by compiler/regex/node_tree.py). The Go backend renders
that tree; the state plan below reads the same tree, so what it decides is
about exactly the tree the runtime runs. The facts themselves are stated
without Go (trigger characters, code point ranges, flags) and stored on each
State; the Go backend renders them as `Program.Fast`, `Program.HoldRuns`,
`Program.Ahead`, and the runtime derives nothing at load time.

Per state (`plan_state`):

- a derived fast path, for a state the compiler's analysis (`State.fast`,
  fast_path.py) leaves without one because look-arounds come before the
  trigger (`</think>|(?=\\s*<tool_call>)`): every branch of every watched
  delimiter is look-behinds and assertions (which read nothing forward),
  then an optional run of one lead class, then something whose first
  characters are ASCII triggers; a positive lookahead stands for its body.
  Text holding no trigger and not ending in a lead then starts no match,
  complete or partial. It gets the lead class as its hold lead when some
  watched branch is a greedy unbounded repeat of it (maybe inside a positive
  lookahead) and every attempt position of that delimiter takes the class:
  a trailing run of it is then a partial match from its start.
- a hold run class, for a state with no hold lead: one watched delimiter is
  a greedy unbounded repeat of a class W then something that must read a
  non-W character (its partial match stays at the held run's start), and no
  watched delimiter can match inside W text, so more W text changes nothing.
- `ahead`: no watched regex delimiter reads before where its match starts
  (no look-behind, no `^`, `\\A`, multiline `^`, `\\b`, `\\B`), so the scan
  needs no context before the read position.

These are the rules runtime/go derived in `Program.Init` before they moved
here (deriveFastPath, holdsAtRunStart, branchShape, leadRunOf,
cannotMatchIn, readsBehind, readsForward), ported line for line so the
generated parsers behave as they did.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

from ..ir import CLOSE, LiteralDelimiter, Program, Ranges, RegexDelimiter, State, TreeFast
from ..regex.lookbehind_partial import attempt_entry
from ..regex.node_tree import ALT, ASSERT, CONCAT, GROUP, LIT, LOOK, REPEAT, SET, GoNode, go_tree

# --------------------------------------------------------------------------
# The runtime's helpers (runtime/go), over the node tree.
# --------------------------------------------------------------------------


@dataclass
class FirstChars:
    """rt.firstChars: the ASCII characters a match may read first, whether
    a wider one may be, and whether it may read nothing."""

    ascii: set[int] = field(default_factory=set)
    wide: bool = False
    any: bool = False


def first_of(n: GoNode, f: FirstChars) -> bool:
    """rt.firstOf: adds what n can read first going forward; whether n can succeed without reading."""
    if n.op == LIT:
        if n.lit == "":
            return True
        if ord(n.lit[0]) < 0x80:
            f.ascii.add(ord(n.lit[0]))
        else:
            f.wide = True
        return False
    if n.op == SET:
        for lo, hi in n.set:
            if hi >= 0x80:
                f.wide = True
                hi = 0x7F
            f.ascii.update(range(lo, hi + 1))
        return False
    if n.op == CONCAT:
        return all(first_of(sub, f) for sub in n.subs)  # stops at the first that must read
    if n.op == ALT:
        nullable = False
        for sub in n.subs:
            if first_of(sub, f):
                nullable = True
        return nullable
    if n.op == REPEAT:
        if n.max == 0:
            return True
        return first_of(n.subs[0], f) or n.min == 0
    if n.op == GROUP:
        return first_of(n.subs[0], f)
    if n.op == LOOK:
        if n.behind or n.negative:
            return True
        return first_of(n.subs[0], f)
    return True  # Empty, Assert


def in_set(ranges: Ranges, code: int) -> bool:
    return any(lo <= code <= hi for lo, hi in ranges)


def ascii_of(ranges: Ranges) -> set[int]:
    return {c for c in range(128) if in_set(ranges, c)}


def subset_of(a: Ranges, b: Ranges | None) -> bool:
    """Every character of a is in b (None: all)."""
    if b is None:
        return True
    return all(any(blo <= lo and hi <= bhi for blo, bhi in b) for lo, hi in a)


def split_lead(root: GoNode) -> tuple[Ranges | None, tuple[GoNode, ...]]:
    """A root that is a greedy unbounded repeat of a class, then the rest of its sequence."""
    if root.op != CONCAT or len(root.subs) < 2:
        return None, ()
    first = root.subs[0]
    if first.op != REPEAT or first.lazy or first.max >= 0 or first.subs[0].op != SET:
        return None, ()
    return first.subs[0].set, root.subs[1:]


def reads_behind(n: GoNode) -> bool:
    """A look-behind, or an assertion that reads the character before its
    position or depends on where the text starts (^, \\A, multiline ^, \\b, \\B)."""
    if n.op == LOOK and n.behind:
        return True
    if n.op == ASSERT and n.kind in ("^", "A", "L", "b", "B"):
        return True
    return any(reads_behind(sub) for sub in n.subs)


def reads_forward(n: GoNode) -> bool:
    """The subtree holds a lookahead (which may read to the end)."""
    if n.op == LOOK and not n.behind:
        return True
    return any(reads_forward(sub) for sub in n.subs)


def _branch_shape(n: GoNode, triggers: FirstChars, leads: Ranges | None) -> tuple[Ranges | None, bool]:
    """One node has the derived fast path's shape; adds its triggers and its
    lead class (one class for the whole state: two different ones give up)."""
    if n.op == ALT:
        for sub in n.subs:
            leads, ok = _branch_shape(sub, triggers, leads)
            if not ok:
                return leads, False
        return leads, True
    if n.op == GROUP:
        return _branch_shape(n.subs[0], triggers, leads)
    if n.op == LOOK:
        if n.behind or n.negative:
            return leads, False  # alone it matches without reading
        return _branch_shape(n.subs[0], triggers, leads)
    items = list(n.subs) if n.op == CONCAT else [n]
    while items and (items[0].op == ASSERT or items[0].op == LOOK and items[0].behind and not reads_forward(items[0])):
        items = items[1:]
    if not items:
        return leads, False
    first = items[0]
    if first.op == REPEAT and not first.lazy and first.subs[0].op == SET and len(items) > 1:
        if leads is not None and leads != first.subs[0].set:
            return leads, False
        leads = first.subs[0].set
        items = items[1:]
    if len(items) == 1 and items[0].op in (ALT, GROUP, LOOK):
        return _branch_shape(items[0], triggers, leads)
    if first_of(GoNode(CONCAT, subs=tuple(items)), triggers):
        triggers.any = True
    return leads, not triggers.any


def _holds_at_run_start(n: GoNode, leads: Ranges) -> bool:
    """Some branch of n is (inside positive lookaheads) a greedy unbounded
    repeat of the lead class and then more: at the start of a run of lead
    characters ending the text it is a partial match."""
    if n.op == ALT:
        return any(_holds_at_run_start(sub, leads) for sub in n.subs)
    if n.op == GROUP:
        return _holds_at_run_start(n.subs[0], leads)
    if n.op == LOOK:
        return not n.behind and not n.negative and _holds_at_run_start(n.subs[0], leads)
    if n.op == CONCAT:
        if len(n.subs) < 2:
            return False
        first = n.subs[0]
        return (
            first.op == REPEAT
            and not first.lazy
            and first.max < 0
            and first.subs[0].op == SET
            and first.subs[0].set == leads
        )
    return False


@dataclass(frozen=True)
class Watched:
    """A watched delimiter as the runtime sees it: literals, or a regex tree and its attempt entry set."""

    literals: tuple[str, ...] = ()
    root: GoNode | None = None
    entry: Ranges | None = None  # None: any character


def derive_fast_path(watch: list[Watched]) -> TreeFast | None:
    """The derived fast path of a state the compiler's analysis left without one, or None."""
    triggers = FirstChars()
    leads: Ranges | None = None
    for d in watch:
        if d.root is None:
            for lit in d.literals:
                if lit == "" or ord(lit[0]) >= 0x80:
                    return None
                triggers.ascii.add(ord(lit[0]))
            continue
        leads, ok = _branch_shape(d.root, triggers, leads)
        if not ok:
            return None
    if triggers.wide or triggers.any:
        return None
    hold = leads is not None and any(
        d.root is not None and subset_of(leads, d.entry) and _holds_at_run_start(d.root, leads) for d in watch
    )
    return TreeFast(tuple(chr(c) for c in sorted(triggers.ascii)), leads, hold)


def _cannot_match_in(run: Ranges, d: Watched) -> bool:
    """No match of d lies in text that is all of the run's class."""
    if d.root is None:
        return not any(all(in_set(run, ord(c)) for c in lit) for lit in d.literals)
    root = d.root
    lead, rest = split_lead(root)
    if lead is not None and lead == run:
        root = GoNode(CONCAT, subs=rest)
    f = FirstChars()
    if first_of(root, f):
        return False
    has_wide = len(run) > 0 and run[-1][1] >= 0x80
    return not (f.ascii & ascii_of(run)) and not (f.wide and has_wide)


def hold_run_of(watch: list[Watched]) -> Ranges | None:
    """The state's hold run class, or None."""
    lead = next(
        (split_lead(d.root)[0] for d in watch if d.root is not None and split_lead(d.root)[0] is not None), None
    )
    if lead is None:
        return None
    return lead if all(_cannot_match_in(lead, d) for d in watch) else None


@dataclass(frozen=True)
class StatePlan:
    derived: TreeFast | None  # only for a state without State.fast
    hold_run: Ranges | None
    ahead: bool


def watched(program: Program, state: State) -> list[Watched]:
    out = []
    for w in state.watch:
        f = program.fields[w.field]
        d = f.close if w.kind == CLOSE else f.open
        if isinstance(d, LiteralDelimiter):
            out.append(Watched(literals=d.literals))
        else:
            assert isinstance(d, RegexDelimiter) and d.ast is not None
            entry = attempt_entry(d.ast)
            out.append(Watched(root=go_tree(d.ast.body), entry=None if entry is None else entry.ranges))
    return out


def plan_state(program: Program, state: State) -> StatePlan:
    watch = watched(program, state)
    ahead = all(d.root is None or not reads_behind(d.root) for d in watch)
    if program.context < 0:
        return StatePlan(None, None, ahead)
    derived = None
    has_hold_lead = state.fast is not None and state.fast.hold_lead is not None
    if state.fast is None:
        derived = derive_fast_path(watch)
        has_hold_lead = derived is not None and derived.hold_lead
    return StatePlan(derived, None if has_hold_lead else hold_run_of(watch), ahead)


def _planned(program: Program, state: State) -> State:
    # A regex outside the project's grammar has no tree: the Go backend refuses such a template.
    if any(isinstance(d, RegexDelimiter) and d.ast is None for d in program.watched(state)):
        return state
    plan = plan_state(program, state)
    return dataclasses.replace(state, tree_fast=plan.derived, hold_run=plan.hold_run, ahead=plan.ahead)


def plan_tree_states(program: Program) -> Program:
    """Pass: State.tree_fast, State.hold_run and State.ahead of every state."""
    return dataclasses.replace(program, states=tuple(_planned(program, state) for state in program.states))


__all__ = ["StatePlan", "TreeFast", "plan_state", "plan_tree_states"]
