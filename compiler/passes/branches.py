"""Trigger strings per alternative, for delimiters the whole-pattern analysis
(compiler/passes/fast_path.py) gives up on. Stored on the IR by two passes:
`plan_branches` (RegexDelimiter.branches, for every regex delimiter the
whole-pattern analysis left without a hint: the Python and JavaScript
backends' alternative rules, the Go backend's search hint) and
`plan_state_hints` (State.branch_fast and State.hold_lead).

`analysis.fast_path_of` needs every match to be lead characters then a
trigger string, read from the front of the whole pattern; it refuses a
look-around or anchor where a match starts. Most reasoning and tool-call
closes are alternations with such branches:
`</think>|(?=\\s*<tool_call>)|(?<=<think>)\\s*(?=<think>)`. Here each
alternative (a leading alternation group is distributed over what follows
it) is read on its own:
- look-behinds, negative look-aheads and anchors where it starts are
  zero-width tests: they are skipped, which only widens what the triggers
  admit, and the branch is marked inexact;
- a look-behind where it starts from inside which the `regex` module may
  report partial matches that end in no trigger string (one holding an
  anchor, or the forward string search of compiler/regex/lookbehind_partial.py)
  also gives the branch read by that look-behind (its last characters), so
  the scanner sends the text after them to the search; such a look-behind
  anywhere else keeps the plain search;
- a positive look-ahead where it starts is read as if it consumed its body:
  the match starts where the look-ahead's text starts (the `regex` module
  reports its partial matches that way too). When the look-ahead is the
  whole branch, the branch stays exact.
Each branch gives trigger strings, lead classes and whether it is exact (a
run of its one lead, then a proper prefix of a trigger, is certainly a
partial match starting at the run). The runtime's Scanner keeps one rule per
branch (runtime/delimiters.py, `Pattern.branches`); the search tries the regex
only at the lead run before a trigger string, every position of it.
"""

from __future__ import annotations

import dataclasses

from ..ir import Branch, BranchHint, Delimiter, Lead, LiteralDelimiter, Program, RegexDelimiter, StateHint
from .fast_path import _MAX_SET, _class_chars, _first, _items, _lead, _literal_strings, _NoFastPath
from ..regex.analysis import has_lazy, last_set, min_length
from ..regex.lookbehind_partial import backtrack_literals
from ..regex.nodes import BOS, START, walk
from ..regex.nodes import Alt, Anchor, Class, Group, Look, Node

_MAX_BRANCHES = 16


def _distribute(items: list[Node], depth: int = 0) -> list[list[Node]]:
    """A sequence as its alternatives: `(?:A|B)C` -> [AC, BC] (recursively
    when a branch starts with an alternation too)."""
    if items and depth < 4:
        head = items[0]
        body = head.body if isinstance(head, Group) else head
        if isinstance(body, Alt):
            out = []
            for branch in body.branches:
                out.extend(_distribute(_items(branch) + items[1:], depth + 1))
                if len(out) > _MAX_BRANCHES:
                    raise _NoFastPath
            return out
    return [items]


def _after(look: Node) -> tuple[str, ...] | None:
    """The strings a positive look-behind's body is exactly one of (a
    literal, an alternation of literals, a class of a few characters), or None."""
    if not isinstance(look, Look) or not look.behind or look.negative:
        return None
    items = _items(look.body)
    strings = _literal_strings(items)
    if strings is None and len(items) == 1 and isinstance(items[0], Class):
        try:
            strings = _class_chars(items[0])
        except _NoFastPath:
            return None
    if not strings or not all(strings):
        return None
    return tuple(sorted(strings))


def _branch(items: list[Node]) -> list[Branch]:
    """One alternative (it may split again after a skipped assertion)."""
    at_start = bool(items) and isinstance(items[0], Anchor) and items[0].kind in (BOS, START)
    skipped = False
    exact_ahead = True
    after = _after(items[0]) if items else None
    if after is not None:
        items = items[1:]  # read as Branch.after: the branch is exact where the text before it ends in one
    after = after or ()
    while items:
        head = items[0]
        if isinstance(head, Anchor) or (isinstance(head, Look) and (head.behind or head.negative)):
            items = items[1:]
            skipped = True
            continue
        if isinstance(head, Look):
            # a positive look-ahead: its text starts the match
            exact_ahead = len(items) == 1
            items = _items(head.body)
            continue
        body = head.body if isinstance(head, Group) else head
        if isinstance(body, Alt):
            out = []
            for sequence in _distribute(items):
                for branch in _branch(sequence):
                    if skipped or not exact_ahead or (after and (branch.after or not branch.exact)):
                        branch = Branch(branch.triggers, branch.leads, None, False, at_start=at_start)
                    elif after:  # exact but for the look-behind read before the alternation
                        branch = Branch(branch.triggers, branch.leads, None, False, at_start=at_start, after=after)
                    out.append(branch)
            return out
        break
    leads: list[Lead] = []
    hold_lead = None
    optional_leads = True
    while items:
        found = _lead(items[0])
        if found is None:
            break
        if not leads and found[1]:
            hold_lead = found[0]
        optional_leads = optional_leads and found[2]
        leads.append(found[0])
        items = items[1:]
    crossed: list = []
    triggers, nullable = _first(items, crossed)
    if crossed:
        skipped = True  # a look-around or anchor between the leads and the trigger
    if nullable or not triggers or len(triggers) > _MAX_SET:
        raise _NoFastPath
    exact = (
        not skipped and exact_ahead and (not leads or (len(leads) == 1 and hold_lead is not None and optional_leads))
    )
    if exact and after:  # exact where the text before the match ends in one of `after`
        return [Branch(tuple(sorted(triggers)), tuple(leads), None, False, at_start=at_start, after=after)]
    return [Branch(tuple(sorted(triggers)), tuple(leads), hold_lead if exact else None, exact, at_start=at_start)]


def _partial_inside(look: Look) -> bool:
    """Whether the `regex` module may report a partial match from inside this
    look-behind, which then ends in no trigger string: it holds an anchor
    (`(?<=^\\s*\\[.*\\))`), or a repeat that gives characters back by a
    forward search for the literal left of it (`(?<=<|python_start|>\\s*\\[...)`,
    compiler/regex/lookbehind_partial.py). Both seen against the reference
    on llama4_pythonic's open."""
    anchored = any(isinstance(n, Anchor) and n.kind in (BOS, START) for n in walk(look.body))
    return anchored or bool(backtrack_literals(look))


def _lookbehind_start(items: list[Node]) -> Branch | None:
    """For a branch that starts with a positive look-behind from inside which
    partial matches may come (`_partial_inside`), the branch read by that
    look-behind too: the module reads the character before the match
    first, so every such partial match starts right after a last character
    of the body (the scanner sends the text there to the search, as for
    `_behind_branch`); None for any other branch."""
    head = items[0] if items else None
    if not isinstance(head, Look) or not head.behind or head.negative or not _partial_inside(head):
        return None
    return _behind_branch(items)


def _behind_branch(items: list[Node]) -> Branch:
    """A branch that starts with a positive look-behind whose body cannot
    match empty (`(?<=</function>)\\s*\\Z`, `(?<=\\})(?=...)`), when what
    follows gives no trigger strings: the look-behind reads the character
    before the match first, so every match or partial match starts right
    after a last character of the body."""
    head = items[0] if items else None
    if not isinstance(head, Look) or not head.behind or head.negative or min_length(head.body) == 0:
        raise _NoFastPath
    chars = last_set(head.body).members(_MAX_SET)
    if not chars:
        raise _NoFastPath
    return Branch((), (), None, False, tuple(chars))


def branch_hint(delim: Delimiter | None) -> BranchHint | None:
    """The branches of a regex delimiter, or None when one cannot be bounded."""
    if not isinstance(delim, RegexDelimiter) or delim.ast is None or has_lazy(delim.ast):
        return None
    try:
        branches: list[Branch] = []
        read = set()  # the look-behinds read where their branch starts
        for sequence in _distribute(_items(delim.ast.body)):
            try:
                branches.extend(_branch(sequence))
            except _NoFastPath:
                branches.append(_behind_branch(sequence))
                read.add(id(sequence[0]))
                continue
            inside = _lookbehind_start(sequence)
            if inside is not None:
                branches.append(inside)
                read.add(id(sequence[0]))
    except _NoFastPath:
        return None
    for look in walk(delim.ast.body):
        if isinstance(look, Look) and look.behind and id(look) not in read and _partial_inside(look):
            return None  # partial matches from inside it could start anywhere: the plain search
    if len(branches) > _MAX_BRANCHES:
        return None
    triggers = tuple(sorted({t for b in branches for t in b.triggers}))
    leads = tuple(dict.fromkeys(lead for b in branches for lead in b.leads))
    behind = tuple(sorted({char for b in branches for char in b.behind}))
    return BranchHint(triggers, leads, tuple(b for b in branches if not b.behind), behind)


def state_hint(delims: list[Delimiter]) -> StateHint | None:
    """A state's fast path from its delimiters' hints and branch hints."""
    triggers: set[str] = set()
    leads: list[Lead] = []
    hold_lead = None
    for delim in delims:
        if isinstance(delim, LiteralDelimiter):
            triggers.update(literal[0] for literal in delim.literals)
            continue
        hint = delim.hint
        if hint is not None:
            triggers.update(t[0] for t in hint.triggers)
            leads.extend(hint.leads)
            hold_lead = hold_lead or hint.hold_lead
            continue
        branches = branch_hint(delim)
        if branches is None:
            return None
        for branch in branches.branches:
            triggers.update(t[0] for t in branch.triggers)
            leads.extend(branch.leads)
            hold_lead = hold_lead or branch.hold_lead
        triggers.update(branches.behind)
    return StateHint(tuple(sorted(triggers)), tuple(dict.fromkeys(leads)), hold_lead)


__all__ = ["Branch", "BranchHint", "StateHint", "branch_hint", "state_hint", "plan_branches", "plan_state_hints"]


def _with_branches(delim: Delimiter | None) -> Delimiter | None:
    """A regex delimiter without a whole-pattern hint with its branch hint
    (and those of its settled patterns)."""
    if not isinstance(delim, RegexDelimiter):
        return delim
    settled = delim.settled
    if settled is not None:
        settled = dataclasses.replace(settled, dead=_with_branches(settled.dead), alive=_with_branches(settled.alive))
    branches = branch_hint(delim) if delim.hint is None else None
    return dataclasses.replace(delim, branches=branches, settled=settled)


def plan_branches(program: Program) -> Program:
    """Pass: RegexDelimiter.branches of every delimiter (start anchor and settled patterns included)."""
    fields = tuple(
        dataclasses.replace(field, open=_with_branches(field.open), close=_with_branches(field.close))
        for field in program.fields
    )
    return dataclasses.replace(program, fields=fields, start_anchor=_with_branches(program.start_anchor))


def plan_state_hints(program: Program) -> Program:
    """Pass: each state's fast path from its delimiters' alternatives when the
    whole-pattern analysis gave none (State.branch_fast), and the hold lead
    it keeps (State.hold_lead): none when a watched delimiter has an
    alternative read by its look-behind (`(?<=\\})\\s*\\Z`), which could
    match right after the character before the read position."""
    states = []
    for state in program.states:
        delims = program.watched(state)
        branch_fast = state_hint(delims) if delims and state.fast is None else None
        plan = state.fast if state.fast is not None else branch_fast
        hold_lead = plan.hold_lead if delims and plan is not None else None
        if hold_lead is not None and any(
            isinstance(d, RegexDelimiter) and d.hint is None and d.branches is not None and d.branches.behind
            for d in delims
        ):
            hold_lead = None
        states.append(dataclasses.replace(state, branch_fast=branch_fast, hold_lead=hold_lead))
    return dataclasses.replace(program, states=tuple(states))
