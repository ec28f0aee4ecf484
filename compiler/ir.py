"""The intermediate representation between a checked template and the backends.

Everything a backend needs, decided: which delimiters are plain literals
(searched with string search) and which need a regex engine, which of them
may still grow at the end of the buffer, which transforms hold
placeholders, what each parser state watches, and every search decision
the passes (compiler/passes) take for the backends: search hints per
delimiter and per alternative, settled patterns, the context kept for
look-behinds and its cut, and per state its fast paths, hold lead, held
run and what it reads behind. Backends only render these; they call no
pass (tests/test_layout.py). Frozen dataclasses; JSON
values (defaults, content_args, literal transform parts) are kept as
canonical JSON text so the IR is immutable and prints stably.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Union

from .regex.nodes import Regex

OPEN = "open"
CLOSE = "close"


def json_text(value: object) -> str:
    """Canonical JSON text of a template value (key order kept)."""
    return json.dumps(value, ensure_ascii=False, separators=(", ", ": "))


@dataclass(frozen=True)
class Lead:
    """A character class a match may start with, repeated (`\\s*`)."""

    source: str  # a regex matching one character of the class, e.g. "\\s"
    ascii: str  # its ASCII members, for str.strip


@dataclass(frozen=True)
class FastPath:
    triggers: tuple[str, ...]  # sorted strings; one starts every match after its leads
    leads: tuple[Lead, ...]
    # A lead whose unbounded repeat starts a delimiter: while the held text
    # and new text are all of this class, a partial match stays at the read
    # position, so more such text changes nothing.
    hold_lead: Lead | None = None
    # No look-around was skipped and the leads are one optional, unbounded
    # repeat: lead characters followed by a proper prefix of a trigger
    # string are certainly a partial match.
    exact: bool = False
    # The match is the leads then one of the trigger strings and nothing
    # else (`\\s*<tool_call>`, `\\s*(?:<|im_end|>|<|endoftext|>)`): the
    # runtime finds it with str.find, without the regex engine.
    simple: bool = False


@dataclass(frozen=True)
class Branch:
    """One alternative of a regex delimiter, read on its own (compiler/passes/branches.py)."""

    triggers: tuple[str, ...]
    leads: tuple[Lead, ...]
    hold_lead: Lead | None  # the lead of an exact branch that starts with an unbounded, optional repeat of it
    exact: bool
    # A branch read by its look-behind instead: every match (and partial
    # match) of it starts right after one of these characters.
    behind: tuple[str, ...] = ()
    # It starts with `^` or `\\A`: every match (and partial match) of it
    # starts the text, so once anything is consumed it matches nowhere.
    at_start: bool = False
    # Not exact only for a leading look-behind of literal strings
    # (`(?<=\\})\\s*</tool_call>`): exact where the text before the match
    # ends in one of these, and no match at all where it ends in none.
    after: tuple[str, ...] = ()


@dataclass(frozen=True)
class BranchHint:
    """The search hint of a whole delimiter, from its branches."""

    triggers: tuple[str, ...]
    leads: tuple[Lead, ...]
    branches: tuple[Branch, ...]
    behind: tuple[str, ...] = ()  # the union of the branches' `behind`


@dataclass(frozen=True)
class StateHint:
    """A state's fast path from its delimiters' hints and branch hints."""

    triggers: tuple[str, ...]  # first characters
    leads: tuple[Lead, ...]
    hold_lead: Lead | None


@dataclass(frozen=True)
class Barrier:
    """One tempered look-behind: the text before `before` characters ahead
    of the last whole `barrier` starting `after` + 1 or more characters
    before the read position is never read (nor, with `head`, the text
    before the first occurrence of `head` after that barrier)."""

    barrier: str
    after: int
    before: int
    # The look-behind's head when it is one literal (`<function_calls>`), or
    # its last character when the head is a literal, a repeat of one class
    # (`lead`) and that character (`<|python_start|>\s*\[`): text holding
    # no occurrence of it after the last barrier can go too.
    head: str | None = None
    lead: str | None = None


@dataclass(frozen=True)
class CountedBarrier:
    """A look-behind whose matches hold fewer than `count` of `char`: the
    text before `before` characters ahead of the `count`-th last `char`
    before the read position is never read."""

    char: str
    count: int
    before: int


@dataclass(frozen=True)
class ContextCut:
    """How far back the unbounded look-behinds of a template read (compiler/passes/lookbehind_reach.py)."""

    near: int  # characters before the read position bounded readers need (+1)
    barriers: tuple[Barrier, ...]
    anchored: str | None  # regex source of `^H` for an anchored look-behind that may die
    sentinel: str | None  # a character no match of `^H` starts with
    counted: tuple[CountedBarrier, ...] = ()


@dataclass(frozen=True)
class LiteralDelimiter:
    """One literal or a set of literals, searched longest first."""

    path: str
    literals: tuple[str, ...]  # in search order: longest first, then source order
    grows_at_edge: bool  # a complete match ending at the buffer edge stays pending
    from_pattern: bool = False  # written as a regex that is a plain literal


@dataclass(frozen=True)
class RegexDelimiter:
    """A regex delimiter, matched by a regex engine with partial matching."""

    path: str
    pattern: str
    group_names: tuple[str, ...]
    # How many characters before the search position a match may read
    # (look-behind width + 1 for anchors and word boundaries); -1: unbounded.
    reach_back: int
    # Trigger characters and lead classes (compiler/passes/fast_path.py): lets the search jump
    # to where a match can start instead of running the regex over all text.
    hint: FastPath | None = None
    # The pattern parsed by the project's regex grammar (compiler/regex);
    # None when it uses syntax outside it (the Python backend still runs it
    # with the regex module; other backends refuse it).
    ast: Regex | None = None
    # Only when `hint` is None: the search hint read off its alternatives
    # (compiler/passes/branches.py), or None when one cannot be bounded.
    branches: BranchHint | None = None
    # The smaller patterns a long text settles its look-behind branches to
    # (compiler/passes/lookbehind_settle.py), or None.
    settled: SettledDelimiters | None = None
    # How a whole text is searched for it, with no partial matches
    # (compiler/passes/whole_search.py); None: the runtime's Pattern.search.
    whole: WholeSearch | None = None
    # Literals one of which every match consumes (regex/analysis.py
    # closing_literals); a text without them holds no complete match. ()
    # when not known.
    ends: tuple[str, ...] = ()


@dataclass(frozen=True)
class WholeSearch:
    """A regex delimiter's complete-match search as the runtime's
    `Pattern.search(buf, pos, False)` runs it, for straight-line code: the
    leftmost trigger string (str.find; at one position the first listed
    wins), the run of lead characters before it (`Leads.run_start`, from
    the search position), then the match there (or nothing else to run)."""

    # None: the regex searched over the text (no trigger strings).
    triggers: tuple[str, ...] | None
    lead_ascii: str  # the ASCII members of the lead classes (Leads.ascii)
    leads: tuple[Lead, ...]  # the classes of the lead run read before the trigger; (): none
    # The match is the lead run then the trigger string and nothing else
    # (Pattern.simple): no regex runs and it captures nothing.
    literal: bool
    # The regex is tried only at the lead run's start (the run is all of the
    # pattern's first lead, Pattern._starts); else at every position of the run.
    one_start: bool
    # With no trigger strings: every alternative starts with a positive
    # look-behind whose body cannot match empty, so every match starts right
    # after one of these characters (its body's last), the only places the
    # regex is tried; (): the regex searched over the text.
    behind: tuple[str, ...] = ()


@dataclass(frozen=True)
class SettledDelimiters:
    """The smaller patterns of a delimiter and the facts that select them,
    each pattern a delimiter of its own (with its own hint and branches)."""

    dead: RegexDelimiter  # without its settled branches (anchored head dead)
    alive: RegexDelimiter | None  # the anchored branch as `(?<=T)`, the headed ones dropped
    anchored: str | None  # source of `\\A(?:H)`
    tail: int  # the width of `T`
    absent: tuple[tuple[str, str | None], ...]  # per headed branch: the literal `L`, and the probe or None


Delimiter = Union[LiteralDelimiter, RegexDelimiter]


@dataclass(frozen=True)
class TLiteral:
    json: str  # canonical JSON text of a value kept as it is


@dataclass(frozen=True)
class TPlaceholder:
    path: str  # "name" or "name.key.key"


@dataclass(frozen=True)
class TDict:
    items: tuple[tuple[str, "Transform"], ...]


@dataclass(frozen=True)
class TList:
    items: tuple["Transform", ...]


Transform = Union[TLiteral, TPlaceholder, TDict, TList]


@dataclass(frozen=True)
class Field:
    index: int
    name: str
    path: str
    open: Delimiter | None
    close: Delimiter | None
    content: str
    content_args_json: str
    repeats: bool
    join: str | None
    optional: bool
    transform: Transform | None
    transform_each: bool

    @property
    def dirty(self) -> bool:
        """Chunks are raw text whose parsed value only comes at close."""
        return self.content not in ("text", "int", "float", "bool")


@dataclass(frozen=True)
class Watch:
    kind: str  # OPEN or CLOSE
    field: int  # field index


@dataclass(frozen=True)
class State:
    """What the parser searches for while a region is current.

    `region` is the index of an open explicit field, or None for the
    implicit region (or the null sink when the template has none).
    """

    region: int | None
    watch: tuple[Watch, ...]
    # The watch entries (indices) in the order the reference breaks a tie
    # between two matches of the same start and length (SPEC, step 3).
    tie_order: tuple[int, ...] = ()
    # When set, new text with none of these trigger characters (and not
    # ending in a lead character) cannot start a delimiter: no regex runs.
    fast: FastPath | None = None
    # Only when `fast` is None: the fast path read off the watched
    # delimiters' alternatives (compiler/passes/branches.py, plan_branches).
    branch_fast: StateHint | None = None
    # The hold lead a state keeps when no watched delimiter has an
    # alternative read by its look-behind (those could match right after the
    # character before the read position): `fast`'s or `branch_fast`'s.
    hold_lead: Lead | None = None
    # How much consumed text the watched delimiters read behind the read
    # position (compiler/passes/context.py): 0, k, or -1 (unbounded).
    reach: int = 0
    # No watched delimiter reads behind the read position (no look-behind,
    # `^` or `\\A`; compiler/passes/fast_path.py reads_behind).
    blind: bool = True
    # The node-tree plan (compiler/passes/state_plan.py): a fast path derived
    # from the watched delimiters' trees, for a state without `fast`...
    tree_fast: TreeFast | None = None
    # ...the class of a held run that changes nothing (inclusive code point ranges)...
    hold_run: Ranges | None = None
    # ...and whether no watched regex reads before where its match starts
    # (no look-behind, `^`, `\\A`, multiline `^`, `\\b`, `\\B`).
    ahead: bool = False
    # The hold-back answers streamed text gets without a search
    # (compiler/passes/scan_plan.py), or None.
    scan: ScanPlan | None = None
    # The lead whose trailing run the scan and the fast path hold without a
    # search (a run of the state's leads all of it): the hold lead, when no
    # trigger character is of it.
    hold_run_lead: Lead | None = None

    @property
    def search_plan(self) -> FastPath | StateHint | None:
        """The fast path a backend renders for this state: `fast`, else `branch_fast`."""
        return self.fast if self.fast is not None else self.branch_fast


Ranges = tuple[tuple[int, int], ...]


@dataclass(frozen=True)
class ScanPlan:
    """A state's hold-back question answered from its trigger strings (compiler/passes/scan_plan.py)."""

    strings: tuple[str, ...]  # text holding one of these is searched
    # Who owns each string (of two characters or more), for its proper
    # prefixes: the lead class whose run before a prefix the partial match
    # may start at (None: at the prefix), the strings one of which the text
    # before that start must end in (Branch.after; (): none needed), and -1;
    # or, for an owner that is not exact, (None, (), its watch entry's
    # index): its regex is asked. A prefix's rule is its strings' owners.
    owners: tuple[tuple[str, tuple[Lead | None, tuple[str, ...], int]], ...]
    # A watched alternative matches only where the text starts: the scan
    # leaves it out, so it is asked only once something is consumed.
    at_start: bool = False
    # The state has one lead class, and a trailing run of it is a partial
    # match of the owners with leads, each where the text before the run
    # ends in one of its strings ((): always); None: only a search can tell
    # (State.hold_run_lead answers the unconditional case on its own).
    trail: tuple[tuple[str, ...], ...] | None = None
    # The longest of those strings: how much text before the scanned text a scan may read.
    after: int = 0
    # The state's hold lead, when it is one of its leads: a trailing run of
    # the state's leads that is all of it is a partial match from its start
    # (the scan sees no trigger string and no look-behind character, so
    # neither a trigger character of the class nor a look-behind
    # alternative matters here, as they do for State.hold_run_lead); None:
    # a trailing run is `trail`'s, or searched.
    run_lead: Lead | None = None


@dataclass(frozen=True)
class TreeFast:
    """A state's fast path derived from its delimiters' node trees (compiler/passes/state_plan.py)."""

    triggers: tuple[str, ...]
    leads: Ranges | None
    hold_lead: bool


@dataclass(frozen=True)
class Program:
    name: str
    origin: str
    sha256: str
    template_json: str
    defaults_json: str
    fields: tuple[Field, ...]
    implicit: int | None
    start_anchor: Delimiter
    states: tuple[State, ...] = ()
    # The start anchor is one literal that cannot overlap itself: the end of
    # its last non-overlapping match in a prompt is found with one rfind.
    anchor_from_end: bool = False
    # The start anchor is several literals of which none can start inside an
    # occurrence of one of them (itself included): the last match in a prompt
    # starts at the greatest of their rfinds, the longest literal there.
    anchors_from_end: bool = False
    # Characters of already-consumed text the regex delimiters need to see:
    # 0 (no regex delimiters), k (the largest reach_back), or -1 (all).
    context: int = 0
    # For context -1: how far back the unbounded look-behinds read in
    # practice (compiler/passes/lookbehind_reach.py), or None (keep all).
    context_cut: ContextCut | None = None

    def watched(self, state: State) -> list[Delimiter]:
        """The delimiters `state` searches for, in its watch order."""
        return [self.fields[w.field].open if w.kind == OPEN else self.fields[w.field].close for w in state.watch]


# --------------------------------------------------------------------------
# Stable text form, for `python -m compiler ir` and golden tests.
# --------------------------------------------------------------------------


def _delimiter_text(delim: Delimiter | None) -> str:
    if delim is None:
        return "none"
    if isinstance(delim, LiteralDelimiter):
        flags = [f for f, on in (("grows-at-edge", delim.grows_at_edge), ("from-pattern", delim.from_pattern)) if on]
        return f"literal {json.dumps(list(delim.literals), ensure_ascii=False)}" + "".join(f" [{f}]" for f in flags)
    flags = ["groups=" + ",".join(delim.group_names)] if delim.group_names else []
    if delim.hint is not None:
        flags.append("triggers=" + json.dumps(list(delim.hint.triggers), ensure_ascii=False))
    if delim.ast is None:
        flags.append("outside-grammar")
    if delim.reach_back != 1:
        flags.append(f"reach-back={delim.reach_back if delim.reach_back >= 0 else 'unbounded'}")
    if delim.branches is not None:
        flags.append(f"branches={len(delim.branches.branches)}")
        if delim.branches.behind:
            flags.append("behind=" + json.dumps("".join(delim.branches.behind), ensure_ascii=False))
    if delim.settled is not None:
        flags.append("settled" + ("+alive" if delim.settled.alive is not None else ""))
    return f"regex {json.dumps(delim.pattern, ensure_ascii=False)}" + "".join(f" [{f}]" for f in flags)


def _ranges_text(ranges: Ranges) -> str:
    """Code point ranges, short: the first four in hex, then how many more."""
    shown = ",".join(f"{lo:x}" if lo == hi else f"{lo:x}-{hi:x}" for lo, hi in ranges[:4])
    return shown + (f",+{len(ranges) - 4}" if len(ranges) > 4 else "")


def _hint_text(label: str, triggers: tuple[str, ...], leads: tuple[Lead, ...], hold: Lead | None) -> str:
    text = f"    {label} triggers {json.dumps(''.join(triggers), ensure_ascii=False)}"
    if leads:
        text += " leads " + " ".join(lead.source for lead in leads)
    return text + (f" hold-while {hold.source}" if hold is not None else "")


def transform_text(node: Transform) -> str:
    if isinstance(node, TLiteral):
        return node.json
    if isinstance(node, TPlaceholder):
        return "{" + node.path + "}"
    if isinstance(node, TList):
        return "[" + ", ".join(transform_text(item) for item in node.items) + "]"
    inner = ", ".join(f"{json.dumps(key, ensure_ascii=False)}: {transform_text(value)}" for key, value in node.items)
    return "{" + inner + "}"


def format_program(program: Program) -> str:
    names = [field.name for field in program.fields]
    lines = [
        f"program {program.name}",
        f"  origin {program.origin}",
        f"  defaults {program.defaults_json}",
        f"  start_anchor {_delimiter_text(program.start_anchor)}",
        f"  implicit {names[program.implicit] if program.implicit is not None else 'none (null sink)'}",
        f"  context {program.context}",
    ]
    cut = program.context_cut
    if cut is not None:
        parts = [f"near={cut.near}", f"barriers={len(cut.barriers)}"]
        parts += [f"counted={len(cut.counted)}"] if cut.counted else []
        parts += ["anchored"] if cut.anchored is not None else []
        lines.append("  context-cut " + " ".join(parts))
    for field in program.fields:
        lines.append(f"  field {field.index} {field.name}  # {field.path}")
        lines.append(f"    open {_delimiter_text(field.open)}")
        lines.append(f"    close {_delimiter_text(field.close)}")
        lines.append(f"    content {field.content} {field.content_args_json}{' dirty' if field.dirty else ''}")
        store = "overwrite"
        if field.join is not None:
            store = f"join {json.dumps(field.join, ensure_ascii=False)}"
        elif field.repeats:
            store = "append"
        lines.append(f"    store {store}{'' if field.optional else ' required'}")
        if field.transform is not None:
            each = "each " if field.transform_each else ""
            lines.append(f"    transform {each}{transform_text(field.transform)}")
    for state in program.states:
        region = "implicit" if state.region is None else names[state.region]
        watched = ", ".join(f"{w.kind} {names[w.field]}" for w in state.watch) or "nothing"
        lines.append(f"  state {region}: watch {watched}")
        if state.fast is not None:
            fast = state.fast
            triggers = json.dumps("".join(fast.triggers), ensure_ascii=False)
            leads = " ".join(lead.source for lead in fast.leads)
            hold = f" hold-while {fast.hold_lead.source}" if fast.hold_lead is not None else ""
            lines.append(f"    fast-path triggers {triggers}" + (f" leads {leads}" if leads else "") + hold)
        if state.branch_fast is not None:
            fast = state.branch_fast
            lines.append(_hint_text("branch-fast", fast.triggers, fast.leads, fast.hold_lead))
        planned = state.search_plan
        if planned is not None and planned.hold_lead is not None and state.hold_lead is None:
            lines.append("    hold-lead none (an alternative is read by its look-behind)")
        if state.tree_fast is not None:
            tree = state.tree_fast
            text = f"    tree-fast triggers {json.dumps(''.join(tree.triggers), ensure_ascii=False)}"
            if tree.leads is not None:
                text += f" leads {_ranges_text(tree.leads)}" + (" hold" if tree.hold_lead else "")
            lines.append(text)
        if state.hold_run is not None:
            lines.append(f"    hold-run {_ranges_text(state.hold_run)}")
        reads = [f"reach={state.reach if state.reach >= 0 else 'unbounded'}"]
        reads += ["blind"] if state.blind else []
        reads += ["ahead"] if state.ahead else []
        lines.append("    reads " + " ".join(reads))
    return "\n".join(lines) + "\n"
