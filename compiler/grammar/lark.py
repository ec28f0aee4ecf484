"""The grammar in llguidance's Lark dialect.

Regular parts become single regex lexemes; tool arguments are embedded JSON
schemas (`%json`); free text is a lexeme that excludes its stop literals
(`~` and `&`), and the text before an exit is one lazy lexeme ending at the
first trigger, which is how the parser itself searches.
"""

from __future__ import annotations

import json

from . import model as m
from .text import class_body

_META = set("\\.+*?()|[]{}^$#&-~/")


def _esc_code(code: int, in_class: bool) -> str:
    char = chr(code)
    if code < 0x20 or code == 0x7F or 0xD800 <= code <= 0xDFFF or code in (0x2028, 0x2029):
        return f"\\x{{{code:x}}}"
    if char in _META or char == " " or (in_class and char in "]^-"):
        return "\\" + char if char not in " " else "\\x20"
    if code > 0xFFFF or not char.isprintable():
        return f"\\x{{{code:x}}}"
    return char


def _regular(node: m.Node) -> bool:
    if isinstance(node, (m.Lit, m.Chars)):
        return True
    if isinstance(node, (m.Seq, m.Alt)):
        return all(map(_regular, node.items))
    if isinstance(node, m.Rep):
        return _regular(node.body)
    return False


def _nullable(node: m.Node) -> bool:
    if isinstance(node, m.Rep):
        return node.min == 0 or _nullable(node.body)
    if isinstance(node, m.Seq):
        return all(map(_nullable, node.items))
    if isinstance(node, m.Alt):
        return any(map(_nullable, node.items))
    return False


def _lexable(node: m.Node) -> bool:
    """Regular, and with no optional structure inside: a lexeme that could
    stop early or go on (`X(?:<a>)?`) would, lexed greedily, swallow the start
    of what follows. Optional runs of one class (`\\s*`) are fine."""
    if not _regular(node):
        return False
    if isinstance(node, m.Rep):
        return isinstance(node.body, m.Chars) or (node.min >= 1 and _lexable(node.body))
    if isinstance(node, m.Alt):
        return not any(map(_nullable, node.items)) and all(map(_lexable, node.items))
    if isinstance(node, m.Seq):
        return all(map(_lexable, node.items))
    return True


def _closed_later(later_items: tuple) -> bool:
    """The items after one lead, through lexable items, to a required
    literal: a lexeme holding that item then ends on the literal, not on
    optional structure."""
    for later in later_items:
        if isinstance(later, m.Lit) and later.text:
            return True
        if not _lexable(later):
            return False
    return False


def regex_of(node: m.Node) -> str:
    if isinstance(node, m.Lit):
        return "".join(_esc_code(ord(c), False) for c in node.text)
    if isinstance(node, m.Chars):
        if node.chars.ranges == ((0, 0x10FFFF),):
            return "(?s:.)"
        negated, body = class_body(node.chars, lambda code: _esc_code(code, True))
        return f"[{'^' if negated else ''}{body}]"
    if isinstance(node, m.Seq):
        return "".join(_atom(item) if isinstance(item, m.Alt) else regex_of(item) for item in node.items)
    if isinstance(node, m.Alt):
        return "|".join(regex_of(item) for item in node.items)
    if isinstance(node, m.Rep):
        return _atom(node.body) + _quant(node.min, node.max)
    raise TypeError(node)


def _atom(node: m.Node) -> str:
    text = regex_of(node)
    if isinstance(node, m.Chars) or (isinstance(node, m.Lit) and len(node.text) == 1):
        return text
    return f"(?:{text})"


def _quant(low: int, high: int | None) -> str:
    if (low, high) == (0, None):
        return "*"
    if (low, high) == (1, None):
        return "+"
    if (low, high) == (0, 1):
        return "?"
    if high is None:
        return f"{{{low},}}"
    return f"{{{low}}}" if low == high else f"{{{low},{high}}}"


class LarkPrinter:
    def __init__(self, grammar: m.Grammar):
        self.grammar = grammar
        self.extra: list[str] = []
        self.count = 0

    def expr(self, node: m.Node) -> str:
        if isinstance(node, m.Lit):
            return json.dumps(node.text, ensure_ascii=False) if node.text else ""
        if _lexable(node):
            if isinstance(node, m.Seq) and not node.items:
                return ""
            return f"/{regex_of(node)}/"
        if isinstance(node, m.Seq):
            # Adjacent regular parts become one lexeme: fewer (and no adjacent
            # empty-matching) lexemes for the greedy lexer. Optional structure
            # joins the lexeme when a required literal follows it there
            # (`<|tool_call` `("s")?` `_section_end|>` as one lexeme): split,
            # the first piece would be a prefix of another lexeme allowed at
            # the same place (`<|tool_call_begin|>`), which greedy lexing
            # follows past the point where they part.
            parts, run = [], []
            for index, item in enumerate(node.items + (None,)):
                if isinstance(item, m.Ref) and run and _lexable(self.grammar.rules.get(item.name, m.Ref(""))):
                    # A named regular rule after a lexeme joins it (`"<|call|>"`
                    # then the next call's open): the lexeme alone would be a
                    # prefix of the lexemes of the other ways on.
                    item = self.grammar.rules[item.name]
                if item is not None and _lexable(item):
                    run.append(item)
                    continue
                if item is not None and _regular(item) and _closed_later(node.items[index + 1 :]):
                    run.append(item)
                    continue
                if run:
                    whole = m.Seq(tuple(run)) if len(run) > 1 else run[0]
                    parts.append(self.expr(whole) if all(map(_lexable, run)) else f"/{regex_of(whole)}/")
                    run = []
                if item is not None:
                    parts.append(self.expr(item))
            return " ".join(filter(None, parts))
        if isinstance(node, m.Alt):
            return "(" + " | ".join(self.expr(item) or '""' for item in node.items) + ")"
        if isinstance(node, m.Rep):
            inner = self.expr(node.body)
            return f"({inner}){_quant(node.min, node.max)}"
        if isinstance(node, m.Ref):
            return node.name
        if isinstance(node, m.Json):
            return "%json " + node.schema
        if isinstance(node, m.Until):
            return self.until(node)
        raise TypeError(node)

    def until(self, node: m.Until) -> str:
        self.count += 1
        k = self.count
        base = "(?s:.*)" if node.chars is None else f"[{class_body(node.chars, lambda c: _esc_code(c, True))[1]}]*"
        text = f"/{base}/"
        if node.exclude:
            banned = "|".join(regex_of(m.Lit(e)) for e in node.exclude)
            text += f" & ~/(?s:.*)(?:{banned})(?s:.*)/"
        self.extra.append(f"TEXT_{k}: {text}")
        options = []
        for i, (trigger, exit) in enumerate(node.exits):
            self.extra.append(f"text_{k}_{i}[lazy]: TEXT_{k} {json.dumps(trigger, ensure_ascii=False)}")
            options.append(f"text_{k}_{i} {self.expr(exit)}".strip())
        if node.may_end:
            options.append(f"TEXT_{k}")
        return "(" + " | ".join(options) + ")"

    def render(self) -> str:
        lines = ["%llguidance {}", ""] + [f"// {note}" for note in self.grammar.notes]
        for name, node in self.grammar.rules.items():
            lines.append(f"{name}: {self.expr(node) or chr(34) * 2}")
        return "\n".join(lines + [""] + self.extra) + "\n"
