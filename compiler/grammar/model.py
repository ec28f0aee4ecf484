"""The format-independent grammar every emitter prints.

A grammar is a set of named rules over a few node kinds. Free text is not a
character loop but `Until`: text holding none of some trigger literals,
ended by the first occurrence of one of them (then that exit's node), so each
format can express "text that cannot contain its delimiter" its own way
(lazy lexemes in Lark, an automaton of rules in GBNF/EBNF).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Union

from ..regex.charset import CharSet


class GrammarError(ValueError):
    """A template, tool list or option the grammar cannot express; names the JSON path."""

    def __init__(self, path: str, message: str):
        self.path = path
        super().__init__(f"{path}: {message}" if path else message)


@dataclass(frozen=True)
class Lit:
    text: str


@dataclass(frozen=True)
class Chars:
    """One character from a set."""

    chars: CharSet


@dataclass(frozen=True)
class Seq:
    items: tuple["Node", ...]


@dataclass(frozen=True)
class Alt:
    items: tuple["Node", ...]


@dataclass(frozen=True)
class Rep:
    body: "Node"
    min: int
    max: int | None


@dataclass(frozen=True)
class Ref:
    name: str


@dataclass(frozen=True)
class Json:
    """A JSON value valid against `schema` (canonical JSON text); Lark embeds
    it as `%json`, the other formats expand it (schema.py)."""

    schema: str


@dataclass(frozen=True)
class Until:
    """Text containing none of `exclude` (and only `chars` when set), ended
    either by the end of the output (`may_end`) or by the first occurrence of
    an exit's trigger literal, followed by that exit's node."""

    exclude: tuple[str, ...]
    exits: tuple[tuple[str, "Node"], ...]
    may_end: bool
    chars: CharSet | None = None


Node = Union[Lit, Chars, Seq, Alt, Rep, Ref, Json, Until]

EMPTY = Seq(())


def seq(*items: Node) -> Node:
    flat: list[Node] = []
    for item in items:
        if isinstance(item, Seq):
            flat.extend(item.items)
        else:
            flat.append(item)
    merged: list[Node] = []
    for item in flat:
        if isinstance(item, Lit) and merged and isinstance(merged[-1], Lit):
            merged[-1] = Lit(merged[-1].text + item.text)
        elif not (isinstance(item, Lit) and item.text == ""):
            merged.append(item)
    return merged[0] if len(merged) == 1 else Seq(tuple(merged))


def alt(*items: Node) -> Node:
    unique = tuple(dict.fromkeys(items))
    if not unique:
        raise ValueError("empty alternation")
    return unique[0] if len(unique) == 1 else Alt(unique)


def opt(node: Node) -> Node:
    return Rep(node, 0, 1)


@dataclass
class Grammar:
    """Rules by name, `start` first; `notes` become comments in the output."""

    rules: dict[str, Node] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    def add(self, name: str, node: Node) -> Ref:
        base, number = name, 2
        while name in self.rules and self.rules[name] != node:
            name = f"{base}_{number}"
            number += 1
        self.rules[name] = node
        return Ref(name)


def children(node: Node) -> tuple[Node, ...]:
    if isinstance(node, (Seq, Alt)):
        return node.items
    if isinstance(node, Rep):
        return (node.body,)
    if isinstance(node, Until):
        return tuple(exit for _, exit in node.exits)
    return ()
