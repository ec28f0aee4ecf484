"""The intermediate representation between a checked template and the backends.

Everything a backend needs, decided: which delimiters are plain literals
(searched with string search) and which need a regex engine, which of them
may still grow at the end of the buffer, which transforms hold
placeholders, and what each parser state watches. Frozen dataclasses; JSON
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
    # Trigger characters and lead classes (analysis.py): lets the search jump
    # to where a match can start instead of running the regex over all text.
    hint: FastPath | None = None
    # The pattern parsed by the project's regex grammar (compiler/regex);
    # None when it uses syntax outside it (the Python backend still runs it
    # with the regex module; other backends refuse it).
    ast: Regex | None = None


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
    # When set, new text with none of these trigger characters (and not
    # ending in a lead character) cannot start a delimiter: no regex runs.
    fast: FastPath | None = None


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
    # Characters of already-consumed text the regex delimiters need to see:
    # 0 (no regex delimiters), k (the largest reach_back), or -1 (all).
    context: int = 0

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
    return f"regex {json.dumps(delim.pattern, ensure_ascii=False)}" + "".join(f" [{f}]" for f in flags)


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
    return "\n".join(lines) + "\n"
