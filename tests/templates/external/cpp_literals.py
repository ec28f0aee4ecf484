"""A small tokenizer for the C++ subset llama.cpp's chat tests are written in.

It reads string literals (escapes, raw strings, adjacent-literal
concatenation), identifiers, numbers and punctuation, and skips comments, so
the harvester can read each test's input and expected values as data
without compiling anything.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_SIMPLE_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "\\": "\\", '"': '"', "'": "'", "0": "\0", "a": "\a", "b": "\b", "f": "\f", "v": "\v", "?": "?"}


@dataclass(frozen=True)
class Token:
    kind: str  # "str", "id", "num", "punct"
    value: str
    line: int


def _unescape(body: str) -> str:
    out: list[str] = []
    i = 0
    raw = bytearray()

    def flush_raw():
        if raw:
            out.append(raw.decode("utf-8", errors="surrogateescape"))
            raw.clear()

    while i < len(body):
        ch = body[i]
        if ch != "\\":
            flush_raw()
            out.append(ch)
            i += 1
            continue
        nxt = body[i + 1]
        if nxt == "x":
            m = re.match(r"[0-9a-fA-F]+", body[i + 2 :])
            raw.append(int(m.group(0), 16) & 0xFF)
            i += 2 + len(m.group(0))
        elif nxt in "01234567" and re.match(r"[0-7]{1,3}", body[i + 1 :]).group(0) != "0":
            m = re.match(r"[0-7]{1,3}", body[i + 1 :])
            raw.append(int(m.group(0), 8) & 0xFF)
            i += 1 + len(m.group(0))
        elif nxt == "u":
            flush_raw()
            out.append(chr(int(body[i + 2 : i + 6], 16)))
            i += 6
        elif nxt == "U":
            flush_raw()
            out.append(chr(int(body[i + 2 : i + 10], 16)))
            i += 10
        else:
            flush_raw()
            out.append(_SIMPLE_ESCAPES[nxt])
            i += 2
    flush_raw()
    return "".join(out)


_TOKEN = re.compile(
    r"""
    (?P<ws>\s+)
  | (?P<line_comment>//[^\n]*)
  | (?P<block_comment>/\*.*?\*/)
  | (?P<raw>(?:u8|u|U|L)?R"(?P<delim>[^(\s]*)\()
  | (?P<str>(?:u8|u|U|L)?"(?:[^"\\\n]|\\.)*")
  | (?P<chr>'(?:[^'\\\n]|\\.)*')
  | (?P<id>[A-Za-z_]\w*)
  | (?P<num>\d[\w.]*)
  | (?P<punct>::|->|&&|\|\||[{}()\[\];,.<>=&*+\-!?:/%|^~#])
    """,
    re.VERBOSE | re.DOTALL,
)


def tokenize(source: str) -> list[Token]:
    """Tokens with adjacent string literals already concatenated."""
    tokens: list[Token] = []
    pos = 0
    line = 1
    while pos < len(source):
        m = _TOKEN.match(source, pos)
        if not m:
            raise ValueError(f"cannot tokenize at line {line}: {source[pos:pos + 40]!r}")
        kind = m.lastgroup
        text = m.group(0)
        if m.group("raw") is not None:
            end_marker = ")" + m.group("delim") + '"'
            end = source.index(end_marker, m.end())
            value = source[m.end() : end]
            full_end = end + len(end_marker)
            _push_str(tokens, value, line)
            line += source[pos:full_end].count("\n")
            pos = full_end
            continue
        if m.group("str") is not None:
            body = text[text.index('"') + 1 : -1]
            _push_str(tokens, _unescape(body), line)
        elif m.group("chr") is not None:
            tokens.append(Token("chr", _unescape(text[1:-1]), line))
        elif kind == "id":
            tokens.append(Token("id", text, line))
        elif kind == "num":
            tokens.append(Token("num", text, line))
        elif kind == "punct":
            tokens.append(Token("punct", text, line))
        line += text.count("\n")
        pos = m.end()
    return tokens


def _push_str(tokens: list[Token], value: str, line: int) -> None:
    if tokens and tokens[-1].kind == "str":
        tokens[-1] = Token("str", tokens[-1].value + value, tokens[-1].line)
    else:
        tokens.append(Token("str", value, line))


def matching(tokens: list[Token], index: int) -> int:
    """Index of the bracket closing the one at `index`."""
    pairs = {"(": ")", "{": "}", "[": "]"}
    opener = tokens[index].value
    closer = pairs[opener]
    depth = 0
    for j in range(index, len(tokens)):
        tok = tokens[j]
        if tok.kind != "punct":
            continue
        if tok.value in pairs:
            depth += 1
        elif tok.value in pairs.values():
            depth -= 1
            if depth == 0:
                if tok.value != closer:
                    raise ValueError(f"bracket mismatch at line {tok.line}")
                return j
    raise ValueError(f"unclosed bracket at line {tokens[index].line}")


def split_args(tokens: list[Token], start: int, end: int) -> list[list[Token]]:
    """Split tokens[start:end] on top-level commas."""
    parts: list[list[Token]] = [[]]
    depth = 0
    for tok in tokens[start:end]:
        if tok.kind == "punct" and tok.value in "({[":
            depth += 1
        elif tok.kind == "punct" and tok.value in ")}]":
            depth -= 1
        if depth == 0 and tok.kind == "punct" and tok.value == ",":
            parts.append([])
            continue
        parts[-1].append(tok)
    if parts and not parts[-1]:
        parts.pop()
    return parts
