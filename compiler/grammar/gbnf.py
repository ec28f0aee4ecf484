"""The grammar as GBNF (llama.cpp) or xgrammar's EBNF: character-level
rules, JSON arguments expanded from their schema, free text as an
automaton of rules that stops at the first trigger literal (Aho-Corasick
over the excluded literals)."""

from __future__ import annotations

from ..regex.charset import CharSet
from . import model as m
from .schema import WS_CHARS
from .text import class_body


def _esc(code: int, in_class: bool) -> str:
    char = chr(code)
    if code < 0x20 or code == 0x7F or 0xD800 <= code <= 0xDFFF:
        return {0x0A: "\\n", 0x0D: "\\r", 0x09: "\\t"}.get(code, f"\\x{code:02X}" if code < 0x100 else f"\\u{code:04X}")
    if in_class and char in "]^-[":
        return f"\\x{code:02X}"
    if char in '"\\':
        return "\\" + char
    if not char.isprintable():
        if code < 0x100:
            return f"\\x{code:02X}"
        return f"\\u{code:04X}" if 0x1000 <= code <= 0xFFFF else char
    return char


_HEX = frozenset("0123456789abcdefABCDEF")


def unambiguous(escaped: str) -> str:
    """No hex digit right after a `\\xHH` or `\\uHHHH` escape: xgrammar's
    EBNF reader takes every hex digit that follows (`\\x5Ba` is U+05BA, not
    `[a`), llama.cpp exactly two or four; such a digit is escaped too."""
    out, i, after_hex = [], 0, False
    while i < len(escaped):
        if escaped[i] == "\\":
            width = {"x": 4, "u": 6}.get(escaped[i + 1], 2)
            out.append(escaped[i : i + width])
            after_hex = width > 2
            i += width
            continue
        char = escaped[i]
        if after_hex and char in _HEX:
            out.append(f"\\x{ord(char):02X}")
        else:
            out.append(char)
            after_hex = False
        i += 1
    return "".join(out)


def lit(text: str) -> str:
    return '"' + unambiguous("".join(_esc(ord(c), False) for c in text)) + '"'


def cls(chars: CharSet) -> str:
    negated, body = class_body(chars, lambda code: _esc(code, True))
    return f"[{'^' if negated else ''}{unambiguous(body)}]"


class GbnfPrinter:
    def __init__(self, grammar: m.Grammar, dialect: str):
        self.grammar = grammar
        # Literals that begin like a delimiter are written one character at a
        # time, as free text walks its automaton: an engine that lexes GBNF
        # (llguidance converts it to Lark) then never has to choose between
        # "<" and "<think>" before it sees which one the text is.
        self.split_first = {e[0] for node in _all_nodes(grammar) if isinstance(node, m.Until) for e in node.exclude if e}
        self.dialect = dialect  # "gbnf" or "ebnf"
        self.extra: dict[str, str] = {}
        self.runs: dict[str, str] = {}
        self.count = 0

    def name(self, name: str) -> str:
        name = "root" if name == "start" else name
        return name.replace("_", "-")

    def expr(self, node: m.Node) -> str:
        if isinstance(node, m.Lit):
            if len(node.text) > 1 and node.text[0] in self.split_first:
                return "(" + " ".join(lit(c) for c in node.text) + ")"
            return lit(node.text) if node.text else '""'
        if isinstance(node, m.Chars):
            return cls(node.chars)
        if isinstance(node, m.Seq):
            return " ".join(self.expr(item) for item in node.items) if node.items else '""'
        if isinstance(node, m.Alt):
            return "(" + " | ".join(self.expr(item) for item in node.items) + ")"
        if isinstance(node, m.Rep) and isinstance(node.body, m.Chars) and node.max is None and node.min <= 1:
            # A run of one class is its own rule: engines that lex GBNF then
            # see one token for the run, not one per character.
            body = cls(node.body.chars) + ("*" if node.min == 0 else "+")
            name = self.runs.get(body)
            if name is None:
                name = "ws" if node.body.chars == WS_CHARS and node.min == 0 else f"run{len(self.runs) + 1}"
                self.runs[body] = name
                self.extra[name] = body
            return name
        if isinstance(node, m.Rep):
            inner = self.expr(node.body)
            if not isinstance(node.body, (m.Lit, m.Chars, m.Ref)):
                inner = f"({inner})"
            low, high = node.min, node.max
            quant = {(0, None): "*", (1, None): "+", (0, 1): "?"}.get((low, high))
            if quant is None:
                quant = f"{{{low},}}" if high is None else f"{{{low},{high}}}"
            return inner + quant
        if isinstance(node, m.Ref):
            return self.name(node.name)
        if isinstance(node, m.Until):
            return self.until(node)
        if isinstance(node, m.Json):
            raise TypeError("JSON nodes are expanded before printing")
        raise TypeError(node)

    def exit_rule(self, k: int, trigger: str, node: m.Node) -> str:
        if isinstance(node, (m.Lit, m.Ref)) or node == m.EMPTY:
            return self.expr(node) if node != m.EMPTY else ""
        name = f"text{k}-after-{len([n for n in self.extra if n.startswith(f'text{k}-after-')])}"
        self.extra[name] = self.expr(node)
        return name

    def until(self, node: m.Until) -> str:
        self.count += 1
        k = self.count
        exits = dict(node.exits)
        if node.chars is not None:  # whitespace-like text: no trigger can start inside it
            options = [f"{lit(t)} {self.expr(e)}".strip() for t, e in node.exits]
            if node.may_end:
                options.append('""')
            return f"{cls(node.chars)}* ({' | '.join(options)})"
        # Text also ends at an exit's trigger that is not excluded (a call
        # open's literal that not every match of the open holds).
        words = list(dict.fromkeys(list(node.exclude) + [t for t, _ in node.exits]))
        prefixes = sorted({w[:i] for w in words for i in range(len(w))}, key=lambda p: (len(p), p))
        alphabet = sorted({c for w in words for c in w})
        state_name = {p: f"text{k}-s{i}" for i, p in enumerate(prefixes)}

        # A state holding an excluded literal that ends no exit (`<|X|>`, an
        # open watched here with no exit for it) is committed: the text can
        # only go on to complete an exit trigger that extends it
        # (`<|X|>calls>`), never back to free text.
        exitless = [w for w in words if w not in exits]

        def committed(prefix: str) -> bool:
            return any(w in prefix for w in exitless)

        def toward_exit(text: str) -> bool:
            return text in state_name and any(t.startswith(text) for t in exits)

        def step(state: str, char: str):
            s = state + char
            hits = [w for w in words if s.endswith(w)]
            exit_hits = [w for w in hits if w in exits]
            if exit_hits:
                return ("hit", max(exit_hits, key=len))
            if hits or committed(state):
                return ("state", s) if toward_exit(s) else ("dead", None)
            for i in range(len(s)):
                if s[i:] in state_name:
                    return ("state", s[i:])
            return ("state", "")

        for prefix in prefixes:
            if committed(prefix) and not toward_exit(prefix):
                continue  # unreachable
            options = []
            back_to_root = []  # characters that return to the root state
            for char in alphabet:
                kind, target = step(prefix, char)
                if kind == "dead":
                    continue
                if kind == "hit":
                    if target in exits:
                        options.append(f"{lit(char)} {self.exit_rule(k, target, exits[target])}".strip())
                    continue
                if target == "":
                    back_to_root.append(char)
                else:
                    options.append(f"{lit(char)} {state_name[target]}")
            if committed(prefix):
                self.extra[state_name[prefix]] = " | ".join(options)
                continue
            stay = cls(_without(CharSet.full(), [c for c in alphabet if c not in back_to_root]))
            if node.may_end:
                options.append('""')
            if prefix == "":
                # `x+` made optional, not `x*`: engines that lex GBNF (llguidance)
                # handle an optional lexeme better than one that matches nothing.
                run = state_name[prefix] + "-run"
                self.extra[run] = f"{stay}+"
                body = f"{run}? ({' | '.join(options) or chr(34) * 2})"
            else:
                body = " | ".join([f"{stay} {state_name['']}"] + options)
            self.extra[state_name[prefix]] = body
        return state_name[""]

    def render(self) -> str:
        comment = "#"
        lines = [f"{comment} {note}" for note in self.grammar.notes]
        for name, node in self.grammar.rules.items():
            lines.append(f"{self.name(name)} ::= {self.expr(node)}")
        lines += [f"{name} ::= {body}" for name, body in self.extra.items()]
        return "\n".join(lines) + "\n"


def _without(chars: CharSet, remove: list[str]) -> CharSet:
    out = []
    removed = sorted(ord(c) for c in remove)
    for lo, hi in chars.ranges:
        start = lo
        for code in removed:
            if start <= code <= hi:
                if code > start:
                    out.append((start, code - 1))
                start = code + 1
        if start <= hi:
            out.append((start, hi))
    return CharSet(tuple(out))


def _all_nodes(grammar: m.Grammar):
    seen, stack = set(), list(grammar.rules.values())
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        yield node
        stack.extend(m.children(node))
