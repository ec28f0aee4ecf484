"""Pass: what each state's streaming parser decides without searching (State.scan, State.hold_run_lead).

Streamed text mostly ends in the middle of nothing, or in a piece of a
delimiter (`<|im_en`). For such text the hold-back question (SPEC step 3:
where does the text that must wait start?) has an answer that needs no
search, read off the delimiters' trigger strings (compiler/passes/fast_path.py,
branches.py): every match is lead characters then a trigger string, so

- text holding no whole trigger string holds no match;
- a proper prefix of a trigger string at its end is a partial match of
  every delimiter owning that string; when each owner is exact (its leads
  then the string, nothing read around them), the partial match starts at
  the prefix, or at the run of the owner's lead class before it;
- otherwise text ending in a run of the state's hold lead is a partial
  match from the start of that run, and text ending in anything else holds
  nothing back.

Where an owner is inexact the answer is "search" (None). Alternatives that
match only where the text starts (`^`) are left out: the generated parser
asks the scan only once something is consumed. Alternatives read by their
look-behind add their characters as one-character strings (text holding one
is searched), and the scan is asked only when the character before the text
is none of them (StreamParser.BEHIND).
"""

from __future__ import annotations

import dataclasses

import regex

from ..ir import Lead, LiteralDelimiter, Program, ScanPlan

AFTER_LIMIT = 32  # longest look-behind string a scan reads (the runtime's hold_start reads 64 characters back)


def _holds(lead: Lead, char: str) -> bool:
    return char in lead.ascii if char.isascii() else regex.fullmatch(lead.source, char) is not None


def _owners(delim):
    """(trigger strings, exact, lead or None, after) per part of a delimiter
    (Branch.after: exact only where the text before it ends in one of
    these), or None when it has no hint."""
    if isinstance(delim, LiteralDelimiter):
        return [(delim.literals, True, None, ())]
    hint = delim.hint
    if hint is not None:
        return [(hint.triggers, hint.exact, hint.hold_lead if hint.exact and hint.leads else None, ())]
    branches = delim.branches
    if branches is None:
        return None
    owners = []
    for b in branches.branches:
        if b.at_start:
            continue
        if b.after:
            lead = b.leads[0] if b.leads else None
            # (a string ending in a lead character: a match could start inside the lead run)
            inside = lead is not None and any(_holds(lead, string[-1]) for string in b.after)
            owners.append((b.triggers, not inside and max(map(len, b.after)) <= AFTER_LIMIT, lead, b.after))
        else:
            owners.append((b.triggers, b.exact, b.hold_lead, ()))
    if branches.behind:
        owners.append((tuple(branches.behind), True, None, ()))
    return owners


def scan_plan(program: Program, state) -> ScanPlan | None:
    plan = state.search_plan
    delims = program.watched(state)
    if plan is None or not delims:
        return None
    strings: list[str] = []
    pairs: list[tuple[str, tuple]] = []
    behind: set[str] = set()
    at_start = False
    trail: list[tuple[str, ...]] | None = []  # the owners a trailing lead run may be a partial match of
    for number, delim in enumerate(delims):
        owners = _owners(delim)
        if owners is None:
            return None
        if not isinstance(delim, LiteralDelimiter) and delim.hint is None:
            behind.update(delim.branches.behind)
            at_start = at_start or any(b.at_start for b in delim.branches.branches)
        parts = [delim.hint] if not isinstance(delim, LiteralDelimiter) and delim.hint is not None else None
        if parts is None and not isinstance(delim, LiteralDelimiter):
            parts = [b for b in delim.branches.branches if not b.at_start]
        for part, (owned, exact, lead, after) in zip(parts or (), owners):
            if part.leads and trail is not None:
                trail = None if not exact or lead is None or part.leads != (lead,) else trail + [after]
        for owned, exact, lead, after in owners:
            # an inexact owner's partial match is asked of its regex at the
            # prefix and its lead run (its watch entry)
            owner = (lead, after, -1) if exact else (None, (), number)
            for string in owned:
                strings.append(string)
                if len(string) > 1 and (string, owner) not in pairs:
                    pairs.append((string, owner))
    leads = plan.leads
    if any(_holds(lead, char) for lead in leads for char in behind):
        return None  # a look-behind alternative could match inside a lead run
    # A trigger string may start with a lead character only when it is that
    # character alone (text holding one is searched; it has no prefixes).
    if any(len(s) > 1 and any(_holds(lead, s[0]) for lead in leads) for s in strings):
        return None
    if len(leads) != 1 or (trail is not None and not trail):
        trail = None
    afters = [after for _string, (_lead, after, _number) in pairs] + (trail or [])
    return ScanPlan(
        strings=tuple(dict.fromkeys(strings)),
        owners=tuple(pairs),
        at_start=at_start,
        trail=None if trail is None else tuple(dict.fromkeys(trail)),
        after=max((len(string) for after in afters for string in after), default=0),
        # (the plan's hold lead, also where a look-behind alternative drops
        # State.hold_lead: the scan never sees its character, StreamParser.BEHIND)
        run_lead=plan.hold_lead if plan.hold_lead is not None and plan.hold_lead in leads else None,
    )


def hold_run_lead(program: Program, state) -> Lead | None:
    """The lead whose trailing run the scan and the fast path hold without
    a search: the state's hold lead, when no trigger character is of it.
    A trailing run of the state's lead characters that is all of it is a
    partial match from its start (of the exact alternative the hold lead
    starts; no other can start earlier); any other is searched."""
    plan = state.search_plan
    hold = state.hold_lead
    if plan is None or hold is None or hold not in plan.leads:
        return None
    if any(_holds(hold, char) for char in plan.triggers):
        return None
    return hold


def plan_scans(program: Program) -> Program:
    """Pass: State.scan and State.hold_run_lead for every state."""
    states = tuple(
        dataclasses.replace(state, scan=scan_plan(program, state), hold_run_lead=hold_run_lead(program, state))
        for state in program.states
    )
    return dataclasses.replace(program, states=states)
