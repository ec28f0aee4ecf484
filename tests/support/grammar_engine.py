"""llguidance as the engine that checks emitted grammars: a byte-level
vocabulary (one token per byte), a matcher per grammar, full-match tests and
random generation through the matcher's own token masks."""

from __future__ import annotations

import json
import random

import llguidance as llg
from llguidance import StructTag

EOS = 256


class _ByteTokenizer:
    eos_token_id = EOS
    bos_token_id = None
    tokens = [bytes([i]) for i in range(256)] + [b"<eos>"]
    special_token_ids = [EOS]

    def __call__(self, text):
        return list(text.encode("utf-8") if isinstance(text, str) else text)


TOKENIZER = llg.LLTokenizer(llg.TokenizerWrapper(_ByteTokenizer()))


def to_llguidance(text: str, fmt: str) -> str:
    """The emitted grammar as llguidance's grammar JSON."""
    if fmt == "lark":
        return llg.grammar_from("lark", text)
    if fmt in ("gbnf", "ebnf"):
        return llg.grammar_from("gbnf", text)
    if fmt == "structural-tag":
        tag = json.loads(text)
        tags = []
        for s in tag["structures"]:
            trigger = next(t for t in tag["triggers"] if s["begin"].startswith(t))
            tags.append(StructTag(trigger=trigger, begin=s["begin"], grammar=s["schema"], end=s["end"]))
        return StructTag.to_grammar(tags, assume_special=False)
    raise ValueError(fmt)


def matcher(grammar_json: str) -> llg.LLMatcher:
    found = llg.LLMatcher(TOKENIZER, grammar_json, log_level=0)
    if found.is_error():
        raise ValueError(found.get_error())
    return found


_MATCHERS: dict[str, llg.LLMatcher] = {}


def accepts(grammar_json: str, text: str) -> bool:
    """The whole text is a complete match (one matcher per grammar, reset)."""
    m = _MATCHERS.get(grammar_json)
    if m is None or not m.reset() or m.is_error():
        m = _MATCHERS[grammar_json] = matcher(grammar_json)
    for byte in text.encode("utf-8"):
        if not m.consume_token(byte):
            _MATCHERS.pop(grammar_json, None)  # an errored matcher is not reused
            return False
    return m.is_accepting()


def _allowed(mask: bytes) -> list[int]:
    return [i for i in range(257) if mask[i // 8] >> (i % 8) & 1]


def generate(grammar_json: str, rng: random.Random, max_bytes: int = 400, stop_bias: float = 0.15) -> str | None:
    """A random complete string of the grammar, byte by byte through the
    matcher's masks (None when it ran past max_bytes)."""
    m = matcher(grammar_json)
    out = bytearray()
    while len(out) < max_bytes:
        if m.is_stopped():
            break
        allowed = _allowed(m.compute_bitmask())
        if not allowed:
            return None
        if EOS in allowed and (len(allowed) == 1 or rng.random() < stop_bias):
            break
        choices = [t for t in allowed if t != EOS]
        # Prefer printable ASCII so text stays readable; sometimes take anything.
        nice = [t for t in choices if 0x20 <= t < 0x7F or t == 0x0A]
        byte = rng.choice(nice if nice and rng.random() < 0.9 else choices)
        if not m.consume_token(byte):
            return None
        out.append(byte)
    else:
        return None
    try:
        return out.decode("utf-8")
    except UnicodeDecodeError:
        return None


SAFE = "abc xyz.\n,;0123_"


def walk(grammar, rng: random.Random, node=None, depth: int = 0, budget=None) -> str:
    """A random string of a model grammar (compiler.grammar.model), read off
    its nodes: free text from a small alphabet, then one of its exits."""
    from compiler.grammar import model as m

    if budget is None:
        budget = [600]
    node = grammar.rules["start"] if node is None else node
    budget[0] -= 1
    deep = depth > 40 or budget[0] < 0
    if isinstance(node, m.Lit):
        return node.text
    if isinstance(node, m.Chars):
        options = [c for c in SAFE + '\t"{}[]<>:/' if c in node.chars]
        if options:
            return rng.choice(options)
        lo, hi = node.chars.ranges[0]
        return chr(lo)
    if isinstance(node, m.Seq):
        return "".join(walk(grammar, rng, item, depth + 1, budget) for item in node.items)
    if isinstance(node, m.Alt):
        items = node.items
        if deep:  # finish: the grammar lists the option that ends a loop last
            items = items[-1:]
        return walk(grammar, rng, rng.choice(items), depth + 1, budget)
    if isinstance(node, m.Rep):
        high = node.max if node.max is not None else node.min + 3
        count = node.min if deep else rng.randint(node.min, min(high, node.min + 3))
        return "".join(walk(grammar, rng, node.body, depth + 1, budget) for _ in range(count))
    if isinstance(node, m.Ref):
        return walk(grammar, rng, grammar.rules[node.name], depth + 1, budget)
    if isinstance(node, m.Until):
        alphabet = [c for c in SAFE if (node.chars is None or c in node.chars) and c not in node.exclude]
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 12))) if alphabet else ""
        if any(e in text for e in node.exclude):
            text = ""
        if node.may_end and (not node.exits or deep or rng.random() < 0.2):
            return text
        trigger, exit = node.exits[0] if deep else rng.choice(node.exits)  # calls come first: they end
        return text + trigger + walk(grammar, rng, exit, depth + 1, budget)
    raise TypeError(node)


# --------------------------------------------------------------------------
# GBNF / EBNF at character level
# --------------------------------------------------------------------------
# llama.cpp and xgrammar run GBNF at character level, with no lexer: a rule
# alternative that fails after some characters is simply dropped. llguidance
# reads GBNF by converting it to its Lark dialect, whose lexer is greedy, so
# `"<"` (free text) next to `"<think>"` is lost there. The grammars are
# therefore also run through the `lark` package's Earley parser with one
# terminal per character class or string, which parses at character level
# like llama.cpp does.

import re as _re

from lark import Lark

_TOKEN = _re.compile(
    r'\s+|#[^\n]*|(?P<rule>[A-Za-z][A-Za-z0-9-]*)\s*::=|(?P<name>[A-Za-z][A-Za-z0-9-]*)|(?P<string>"(?:\\.|[^"\\])*")'
    r"|(?P<cls>\[(?:\\.|[^\]\\])*\])|(?P<rep>\{\d+(?:,\d*)?\})|(?P<op>[()|*+?])"
)


def _unescape(body: str) -> str:
    out, i = [], 0
    while i < len(body):
        c = body[i]
        if c != "\\":
            out.append(c)
            i += 1
            continue
        nxt = body[i + 1]
        if nxt in "xuU":
            width = {"x": 2, "u": 4, "U": 8}[nxt]
            out.append(chr(int(body[i + 2 : i + 2 + width], 16)))
            i += 2 + width
        else:
            out.append({"n": "\n", "t": "\t", "r": "\r"}.get(nxt, nxt))
            i += 2
    return "".join(out)


def _class_char(code: int) -> str:
    """One character of a class as the `lark` package's regexes read it: the
    character itself, escaped (its `\\u` escapes do not match)."""
    char = chr(code)
    if code < 0x20 or 0x7F <= code <= 0xA0:
        return f"\\x{code:02x}"
    return _re.escape(char) if not char.isalnum() else char


def _class_from(body: str, negated: bool) -> str:
    parts, i = [], 0
    while i < len(body):
        if body[i] == "\\":
            nxt = body[i + 1]
            width = {"x": 2, "u": 4, "U": 8}.get(nxt)
            if width:
                code = int(body[i + 2 : i + 2 + width], 16)
                i += 2 + width
            else:
                code = ord({"n": "\n", "t": "\t", "r": "\r"}.get(nxt, nxt))
                i += 2
            parts.append(_class_char(code))
        elif body[i] == "-":
            parts.append("-")
            i += 1
        else:
            code = ord(body[i])
            parts.append(_class_char(code))
            i += 1
    return "[" + ("^" if negated else "") + "".join(parts) + "]"


def gbnf_to_lark(text: str) -> str:
    """GBNF (as this project emits it) in the `lark` package's syntax, one
    terminal per string or character class."""
    rules: list[str] = []
    terminals: dict[str, str] = {}
    current: list[str] = []

    def terminal(pattern: str) -> str:
        if pattern not in terminals:
            terminals[pattern] = f"T{len(terminals)}"
        return terminals[pattern]

    for match in _TOKEN.finditer(text):
        kind = match.lastgroup
        if kind is None:
            continue
        value = match.group(kind)
        if kind == "rule":
            name = value.replace("-", "_")
            current = [("start" if name == "root" else name) + ":"]
            rules.append(current)
        elif kind == "name":
            name = value.replace("-", "_")
            current.append("start" if name == "root" else name)
        elif kind == "string":
            literal = _unescape(value[1:-1])
            current.append(terminal(json.dumps(literal, ensure_ascii=False)) if literal else "empty")
        elif kind == "cls":
            current.append(
                terminal(
                    "/"
                    + _class_from(value[1:-1][1:] if value[1] == "^" else value[1:-1], value[1] == "^").replace(
                        "/", "\\/"
                    )
                    + "/"
                )
            )
        elif kind == "rep":
            low, _, high = value[1:-1].partition(",")
            if not _:
                current.append(f"~{low}")
            elif high:
                current.append(f"~{low}..{high}")
            else:
                # x{m,} -> x~m x* : repeat the previous atom
                atom = _last_atom(current)
                current.append(f"~{low} {atom}*")
        else:
            current.append(value)
    lines = [" ".join(rule) for rule in rules]
    lines.append("empty:")
    lines += [f"{name}: {pattern}" for pattern, name in terminals.items()]
    return "\n".join(lines) + "\n"


def _last_atom(tokens: list[str]) -> str:
    if tokens[-1] != ")":
        return tokens[-1]
    depth = 0
    for i in range(len(tokens) - 1, -1, -1):
        depth += tokens[i] == ")"
        depth -= tokens[i] == "("
        if depth == 0:
            return " ".join(tokens[i:])
    raise ValueError("unbalanced")


def char_level_parser(gbnf_text: str) -> Lark:
    return Lark(gbnf_to_lark(gbnf_text), parser="earley", lexer="dynamic", start="start")


def char_level_accepts(parser: Lark, text: str) -> bool:
    from lark.exceptions import LarkError

    try:
        parser.parse(text)
        return True
    except LarkError:
        return False
