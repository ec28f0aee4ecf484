"""Python backend: the streaming parser's generated methods.

`feed` with each state's fast path (text holding none of the state's
trigger characters, and not ending in a lead character, cannot start or
hold a delimiter: it is routed without a search; a trailing run of the
state's hold lead is held without one) and `_process`, the reference's
steps (SPEC steps 1-5) with each state's searches written out: literals by
str.find, patterns by their search, each remembered while the read
position has not passed it. Rendering only: every fact comes from the IR.
"""

from __future__ import annotations

import re

from ...ir import OPEN, LiteralDelimiter, Program, RegexDelimiter
from ..literals import python_literal


def state_key(state) -> int:
    return -1 if state.region is None else state.region


def _better(at: str, end: str) -> str:
    """A candidate wins over the one so far: it starts earlier, or as early and runs longer."""
    return f"start < 0 or {at} < start or ({at} == start and {end} - {at} > end - start)"


def _literal_lines(var: str, delim: LiteralDelimiter, index: int, slots: dict) -> list[str]:
    lines = []
    found = []
    for literal in delim.literals:
        slot = f"d{slots.setdefault((var, literal), len(slots))}"
        found.append((slot, len(literal)))
        lines += [f"if {slot} < pos and {slot} != -1:", f"    {slot} = buf.find({python_literal(literal)}, pos)"]
    at, size = found[0]
    if len(found) > 1:  # the leftmost; at one position the first listed (the longest)
        lines.append(f"at, n = {at}, {size}")
        for slot, length in found[1:]:
            lines += [f"if {slot} >= 0 and (at < 0 or {slot} < at):", f"    at, n = {slot}, {length}"]
        at, size = "at", "n"
    end = f"{at} + {size}"
    take = [f"        start, end, index, match = {at}, {end}, {index}, None"]
    lines.append(f"if {at} >= 0:")
    if delim.grows_at_edge:  # a complete match at the buffer's end may still grow
        lines += [f"    if not eos and {end} == size:", f"        if {at} < hold:", f"            hold = {at}"]
        lines += [f"    elif {_better(at, end)}:"] + take
    else:
        lines += [f"    if {_better(at, end)}:"] + take
    lines += [
        "elif not eos:",
        f"    p = {var}.partial_start(buf, pos)",
        "    if 0 <= p < hold:",
        "        hold = p",
    ]
    return lines


def lead_run(leads, ascii_members: str, at: str, floor: str, runs: dict) -> list[str]:
    """`r`: the start of the run of lead characters ending at `at`, not
    before `floor`: ASCII characters against the classes' ASCII members
    (`RUN_<n>`), others by Leads.holds_char (`IN_RUN_<n>`), one pair per
    set of lead classes."""
    if not leads:
        return [f"r = {at}"]
    number = runs.setdefault(tuple(leads), (len(runs), ascii_members))[0]
    test = f'(c := buf[r - 1]) in RUN_{number} or c >= "\\x80" and IN_RUN_{number}(c)'
    return [f"r = {at}", f"while r > {floor} and ({test}):", "    r -= 1"]


def _lead_ascii(leads) -> str:
    return "".join(sorted({char for lead in leads for char in lead.ascii}))


def _trigger_lines(triggers, tslots: dict) -> tuple[list[str], str, str]:
    """The leftmost trigger string at or after `pos`, each remembered while
    it lies ahead (`t<slot>`); at one position the first listed wins.
    Returns the lines, the position's name and the length's."""
    lines, found = [], []
    for trigger in triggers:
        slot = f"t{tslots.setdefault(trigger, len(tslots))}"
        found.append((slot, len(trigger)))
        lines += [f"if {slot} < pos and {slot} != -1:", f"    {slot} = buf.find({python_literal(trigger)}, pos)"]
    if len(found) == 1:
        return lines, found[0][0], str(found[0][1])
    lines.append(f"at, n = {found[0][0]}, {found[0][1]}")
    for slot, length in found[1:]:
        lines += [f"if {slot} >= 0 and (at < 0 or {slot} < at):", f"    at, n = {slot}, {length}"]
    return lines, "at", "n"


def _tail_start(triggers, tails: dict) -> str:
    """An expression: the leftmost position from `pos` where the buffer ends
    in a proper prefix of one of `triggers`, or -1 (runtime tail_prefix_start;
    the prefixes are a module constant, `TAIL_<n>`)."""
    key = tuple(sorted(triggers))
    number = tails.setdefault(key, len(tails))
    firsts = "".join(sorted({trigger[0] for trigger in key}))
    low = max(map(len, key)) - 1
    return (
        f"tail_prefix_start(buf, pos if pos > size - {low} else size - {low}, {python_literal(firsts)}, TAIL_{number})"
    )


def tail_constants(tails: dict) -> list[tuple[str, str]]:
    """The module constants `_tail_start` reads: each trigger set's proper prefixes."""
    out = []
    for key, number in tails.items():
        prefixes = sorted({trigger[:size] for trigger in key for size in range(1, len(trigger))})
        out.append((f"TAIL_{number}", f"frozenset({python_literal(prefixes)})"))
    return out


def _simple_lines(
    var: str, delim: RegexDelimiter, index: int, slots: dict, tslots: dict, runs: dict, tails: dict
) -> list[str]:
    """A pattern that is its leads then one of its trigger strings
    (FastPath.simple), as Pattern.search finds it, with no regex: the
    leftmost trigger string from the run of leads before it; else a
    trigger's proper prefix or a lead run at the end (a partial match)."""
    hint = delim.hint
    slot = slots.setdefault((var, None), len(slots))
    d, e = f"d{slot}", f"e{slot}"
    ascii_members = _lead_ascii(hint.leads)
    find, at, size = _trigger_lines(hint.triggers, tslots)
    lines = [f"if {d} < pos and {d} != -1:"] + ["    " + line for line in find]
    lines += [f"    if {at} >= 0:"]
    lines += ["        " + line for line in lead_run(hint.leads, ascii_members, at, "pos", runs)]
    lines += [f"        {d}, {e} = r, {at} + {size}", "    else:", f"        {d} = -1"]
    lines += [
        f"if {d} >= 0:",
        f"    if not eos and {e} == size:",
        f"        if {d} < hold:",
        f"            hold = {d}",
        f"    elif {_better(d, e)}:",
        f"        start, end, index, match = {d}, {e}, {index}, None",
        "elif not eos:",
        f"    p = {_tail_start(hint.triggers, tails)}",
        "    if p < 0:",
        "        p = size",
    ]
    lines += ["    " + line for line in lead_run(hint.leads, ascii_members, "p", "pos", runs)]
    lines += ["    if r < hold:", "        hold = r"]
    return lines


def _worth_searching(delim: RegexDelimiter, tslots: dict, runs: dict, tails: dict) -> tuple[list[str], str]:
    """Lines and a condition: whether the pattern may match, or match
    partly, from `pos` (else its search would find nothing): one of its
    trigger strings ahead, or (not at the end of the stream) a proper
    prefix of one or a lead character at the end, or a character its
    look-behind alternatives follow. A pattern without trigger strings is
    always searched."""
    hint = delim.hint if delim.hint is not None else delim.branches
    if hint is None or (not hint.triggers and not getattr(hint, "behind", ())):
        return [], "True"
    lines, tests = [], []
    if hint.triggers:
        find, at, _ = _trigger_lines(hint.triggers, tslots)
        lines += find
        tests.append(f"{at} >= 0")
    partial = []
    if hint.triggers:
        partial.append(f"{_tail_start(hint.triggers, tails)} >= 0")
    if hint.leads:
        number = runs.setdefault(tuple(hint.leads), (len(runs), _lead_ascii(hint.leads)))[0]
        partial.append(f'((c := buf[-1]) in RUN_{number} or c >= "\\x80" and IN_RUN_{number}(c))')
    if partial:
        tests.append(f"not eos and pos < size and ({' or '.join(partial)})")
    behind = getattr(hint, "behind", ())
    if behind:  # a look-behind alternative may match right after one of them (or at the text's start)
        tests.append("pos == 0 or " + " or ".join(f"buf.find({python_literal(c)}, pos - 1) >= 0" for c in behind))
    return lines, " or ".join(f"({test})" for test in tests)


def _pattern_lines(
    var: str, delim: RegexDelimiter, index: int, captures: bool, slots: dict, tslots: dict, runs: dict, tails: dict
) -> list[str]:
    if delim.hint is not None and delim.hint.simple and delim.settled is None:
        return _simple_lines(var, delim, index, slots, tslots, runs, tails)
    slot = slots.setdefault((var, None), len(slots))
    d, m = f"d{slot}", f"m{slot}"
    searcher = var
    if delim.settled is not None:  # smaller patterns once the buffer settles its look-behind branches
        searcher = f"({var}.settled.choose(buf, pos, self._base, memo) or {var})"
    worth, test = _worth_searching(delim, tslots, runs, tails)
    if searcher == var:  # a short buffer: one regex search costs less than the trigger strings' searches
        search = [
            f"{m} = {var}.compiled.search(buf, pos, partial=not eos) if size - pos < SHORT else {var}.search(buf, pos, not eos)"
        ]
    else:
        search = [f"{m} = {searcher}.search(buf, pos, not eos)"]
    search.append(f"{d} = -1 if {m} is None else {m}.start()")
    lines = [f"if {d} < pos and {d} != -1:"] + ["    " + line for line in worth]
    if test == "True":
        lines += ["    " + line for line in search]
    else:
        lines += [f"    if {test}:"] + ["        " + line for line in search] + ["    else:", f"        {d} = -1"]
    return lines + [
        f"if {d} >= 0:",
        f"    e = {m}.end()",
        f"    if not eos and ({m}.partial or e == size):",
        f"        if {d} < hold:",
        f"            hold = {d}",
        f"    elif {_better(d, 'e')}:",
        f"        start, end, index, match = {d}, e, {index}, {m if captures else None}",
    ]


def process_code(program: Program, delimiter_vars: dict, runs: dict, tails: dict) -> dict:
    """The states' searches for `_process`: per state its lines, then the slots they use."""
    names = [field.name for field in program.fields]
    slots: dict = {}
    tslots: dict = {}
    scans = []
    for state in program.states:
        lines: list[str] = []
        for number in state.tie_order:
            watch = state.watch[number]
            field = program.fields[watch.field]
            delim = field.open if watch.kind == OPEN else field.close
            var = delimiter_vars[(watch.kind, watch.field)]
            index = watch.field if watch.kind == OPEN else -1
            if isinstance(delim, LiteralDelimiter):
                lines += _literal_lines(var, delim, index, slots)
            else:
                captures = watch.kind == OPEN and bool(delim.group_names)
                lines += _pattern_lines(var, delim, index, captures, slots, tslots, runs, tails)
        if state.scan is not None and lines:
            # after a transition, the new state's scan answers for the rest when it can
            test = "moved and not eos and pos < size"
            behind = _behind(program, state)
            if behind:
                test += f" and pos and buf[pos - 1] not in {python_literal(behind)}"
            if state.scan.at_start:
                test += " and self._base + pos"
            test += f" and (at := {hold_name(program, state)}(buf[pos:], self, pos)[0]) >= 0"
            lines = [f"if {test}:", "    hold = pos + at", "else:"] + ["    " + line for line in lines]
        region = "implicit region" if state.region is None else names[state.region]
        watched = ", ".join(f"{w.kind} {names[w.field]}" for w in (state.watch[i] for i in state.tie_order))
        scans.append(
            {"key": state_key(state), "comment": f"{region}: {watched or 'nothing'}", "lines": lines or ["pass"]}
        )
    settled = any(getattr(d, "settled", None) is not None for f in program.fields for d in (f.open, f.close))
    return {
        "scans": scans,
        "slots": [f"d{n}" for n in sorted(slots.values())] + [f"t{n}" for n in sorted(tslots.values())],
        "memo": settled,
    }


def _behind(program: Program, state) -> str:
    """Characters right after which a watched look-behind alternative may match."""
    chars: set[str] = set()
    for delim in program.watched(state):
        if isinstance(delim, RegexDelimiter) and delim.hint is None and delim.branches is not None:
            chars.update(delim.branches.behind)
    return "".join(sorted(chars))


WAIT = 1000  # `_ready` is a state plus this while held text waits on a trigger string's prefix
LONG = 2000  # ... while held text holds a whole trigger string: StreamParser._waits first


def _lead_test(leads, runs: dict, char: str, name: str | None = None) -> str:
    """Whether `char` is of one of `leads` (ASCII by `RUN_<n>`, others by `IN_RUN_<n>`);
    with `name`, `char` is bound to it first."""
    number = runs.setdefault(tuple(leads), (len(runs), _lead_ascii(leads)))[0]
    first = f"({name} := {char})" if name else char
    char = name or char
    return f'{first} in RUN_{number} or {char} >= "\\x80" and IN_RUN_{number}({char})'


def hold_name(program: Program, state) -> str:
    name = f"hold_{'implicit' if state.region is None else program.fields[state.region].name}"
    return re.sub(r"\W", "_", name, flags=re.ASCII).lower()


def hold_code(program: Program, state, runs: dict) -> dict:
    """A state's scan (State.scan) as a function of the held text and the
    new text (`tail`): where the text that must wait starts (len(tail):
    none) and whether it waits on a trigger string's prefix; -1 when only
    the search can tell."""
    scan = state.scan
    name = hold_name(program, state)
    lines = []
    found = " or ".join(f"{python_literal(string)} in tail" for string in scan.strings)
    lines += [f"if {found}:", "    return -1, False"] if found else []
    longest = max((len(string) - 1 for string, _ in scan.owners), default=0)
    if scan.owners:
        firsts = sorted({string[0] for string, _ in scan.owners})
        lines += ["size = len(tail)", f"low = size - {longest} if size > {longest} else 0"]
        # a trigger prefix at `at`: its owners' partial matches (hold_start)
        asked = [
            f"rule = {name.upper()}.get(tail[at:], False)",
            "if rule is not False:",
            "    start = hold_start(tail, at, rule, parser, pos)",
            "    if start >= 0:",
            "        return start, True",
            "    if start < -1:",
            "        return -1, False",
        ]
        if len(firsts) == 1:
            first = python_literal(firsts[0])
            lines += [f"at = tail.find({first}, low)", "while at >= 0:"]
            lines += ["    " + line for line in asked] + [f"    at = tail.find({first}, at + 1)"]
        else:
            lines += ["for at in range(low, size):", f"    if tail[at] in {python_literal(''.join(firsts))}:"]
            lines += ["        " + line for line in asked]
    plan = state.search_plan
    if plan.leads:
        lines += ["last = tail[-1]", f"if {_lead_test(plan.leads, runs, 'last')}:"]
        hold = state.hold_run_lead or scan.run_lead
        if hold is not None:  # a run of the hold lead at the end: a partial match from its start
            # (held for the fast path with the state's hold run lead, else for the scan)
            flag = "False" if state.hold_run_lead is not None else "True"
            lines += [
                "    r = len(tail) - 1",
                f"    while r > 0 and ({_lead_test(plan.leads, runs, 'tail[r - 1]', 'c')}):",
                "        r -= 1",
            ]
            if plan.leads == (hold,):
                lines.append(f"    return r, {flag}")
            else:  # (the run is of the state's leads: all of the hold lead, or searched)
                number = runs.setdefault((hold,), (len(runs), _lead_ascii((hold,))))[0]
                lines += [
                    "    run = tail[r:]",
                    f"    return (r, {flag}) if (not run.strip(RUN_{number}) if run.isascii() else all(map(IN_RUN_{number}, run))) else (-1, False)",
                ]
        elif scan.trail is not None:  # a partial match of the owners whose look-behind string the run follows
            lines += [
                "    r = len(tail) - 1",
                f"    while r > 0 and ({_lead_test(plan.leads, runs, 'tail[r - 1]', 'c')}):",
                "        r -= 1",
            ]
            if all(scan.trail):
                strings = python_literal(tuple(sorted({string for after in scan.trail for string in after})))
                lines += [
                    f"    if (tail[:r] if r >= 64 else parser._before(pos, 64) + tail[:r]).endswith({strings}):",
                    "        return r, True  # (held for the scan, not the fast path)",
                    "    return len(tail), False",
                ]
            else:
                lines.append("    return r, True")
        else:
            lines.append("    return -1, False")
    lines.append("return len(tail), False")
    return {
        "name": name,
        "key": state_key(state),
        "lines": lines,
        "owners": scan.owners,
        "table": name.upper(),
        "state": state,
    }


def _route_lines(program: Program, state, text: str) -> list[str]:
    """`text` to the state's region, as _route does, and its events returned."""
    if state.region is None and program.implicit is None:
        return [f"self._body.append({text})", "return []"]  # the null sink: only the context
    field = program.fields[program.implicit if state.region is None else state.region]
    chunk = f'{{"type": "region_chunk", "field": {python_literal(field.name)}, "text": {text}, "dirty": {field.dirty}}}'
    lines = [f"self._body.append({text})"]
    if state.region is None:  # the implicit region opens with its first text
        lines += [
            "if not self._opened:",
            "    self._opened = True",
            f'    return [{{"type": "region_open", "field": {python_literal(field.name)}}}, {chunk}]',
        ]
    return lines + [f"return [{chunk}]"]


def feed_code(program: Program, runs: dict) -> dict:
    """`feed`'s branches per state: the fast path (text holding no trigger
    character of the state and not ending in a lead, after nothing held
    but a run of the hold lead, is routed at once), then the state's scan
    (hold_code); and the tables StreamParser._trim reads."""
    branches, holds, scans = [], [], []
    behind, hold_lead, at_start = {}, {}, []
    for state in program.states:
        key = state_key(state)
        plan = state.search_plan
        chars = _behind(program, state)
        if chars:
            behind[key] = chars
        if plan is None or not program.watched(state):
            continue
        scan = None
        if state.scan is not None:
            scan = hold_code(program, state, runs)
            holds.append(scan)
            scans.append(key)
            if state.scan.at_start:
                at_start.append(key)
            if state.hold_run_lead is not None:
                hold_lead[key] = state.hold_run_lead
        no_trigger = " and ".join(f"{python_literal(t)} not in text" for t in plan.triggers) or "True"
        test = f"text and {no_trigger}"
        if plan.leads:
            test += f" and not ({_lead_test(plan.leads, runs, 'text[-1]', 'last')})"
        lines = [f"if {test}:"]
        if key in hold_lead:  # held text in this state is a run of its hold lead
            lines += ["    if self._held:", "        text = self._held + text", '        self._held = ""']
        lines += ["    " + line for line in _route_lines(program, state, "text")]
        if key in hold_lead:
            # more of the held run: the pending match stays where it is (the
            # run grows in place, not copied per token)
            number = runs.setdefault((state.hold_run_lead,), (len(runs), _lead_ascii((state.hold_run_lead,))))[0]
            lines += [
                f"if self._held and {no_trigger} and text.isascii() and not text.strip(RUN_{number}):",
                "    held = self._held",
                '    self._held = ""',
                "    held += text",
                "    self._held = held",
                "    return []",
            ]
        if scan is not None:
            lines += _scan_lines(scan, key)
        region = "implicit region" if state.region is None else program.fields[state.region].name
        branches.append({"key": key, "lines": lines, "comment": f"{region}: nothing held, or a lead run"})
        if scan is not None:
            branches.append(
                {"key": key + WAIT, "lines": _scan_lines(scan, key), "comment": f"{region}: a trigger's prefix held"}
            )
            branches.append(
                {
                    "key": key + LONG,
                    "lines": ["return self._slow(text, True)"],
                    "comment": f"{region}: a delimiter held with a whole trigger string",
                }
            )
    return {
        "branches": branches,
        "holds": holds,
        "tables": {"behind": behind, "hold_lead": hold_lead, "scanned": scans, "at_start": at_start},
    }


def _scan_lines(scan: dict, key: int) -> list[str]:
    return [
        "if text:",
        "    tail = self._held + text if self._held else text",
        f"    at, waits = {scan['name']}(tail, self, self._pos)",
        "    if at >= 0:",
        f"        return self._hold(tail, at, {key + WAIT} if waits else {key})",
    ]
