"""Parse delimiter regexes into the AST (nodes.py) and print them back.

`parse` accepts the subset of the `regex` module's syntax that templates
use and reads it as that module does under DOTALL (checked against it in
tests/regex/test_regex_syntax.py). Anything else is a `RegexSyntaxError` with the
position of the offending token: plain errors for patterns the `regex`
module rejects too, "unsupported: ..." for valid syntax this project does not
handle (backreferences, atomic groups, possessive quantifiers, recursion,
conditionals, \\p{..}, POSIX classes, inline flags other than s, i and m...).

`to_source` prints an AST as a pattern the `regex` module (with DOTALL)
reads as the same AST: `parse(to_source(a)) == a` for every parsed `a`.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from pathlib import Path

from lark import Lark, Token, Transformer, Tree
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken, VisitError

from .errors import RegexSyntaxError
from .nodes import (
    BOS,
    END,
    EOS,
    LINE_END,
    LINE_START,
    NOT_WORD_BOUNDARY,
    START,
    WORD_BOUNDARY,
    Alt,
    Anchor,
    Category,
    Char,
    Class,
    Concat,
    Dot,
    Group,
    Look,
    Node,
    Range,
    Regex,
    Repeat,
)

MAX_REPEAT = 100_000  # larger counts are valid but no template needs them

_CONTROL = {"a": "\a", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v"}
_ANCHOR_ESCAPES = {"A": START, "Z": END, "z": END, "b": WORD_BOUNDARY, "B": NOT_WORD_BOUNDARY}
# Escapes the regex module knows and this project does not.
_UNSUPPORTED_ESCAPES = {
    "G": "\\G (search anchor)",
    "K": "\\K (keep out)",
    "X": "\\X (grapheme cluster)",
    "L": "\\L<...> (named list)",
    "m": "\\m (start of word)",
    "M": "\\M (end of word)",
    "h": "\\h",
    "H": "\\H",
    "R": "\\R",
    "V": "\\V",
    "p": "Unicode property \\p{...}",
    "P": "Unicode property \\P{...}",
}
_GROUP_EXTENSIONS = [
    ("(?P=", "backreference (?P=name)"),
    ("(?P>", "recursion (?P>name)"),
    ("(?&", "recursion (?&name)"),
    ("(?R", "recursion (?R)"),
    ("(?(", "conditional group"),
    ("(?>", "atomic group"),
    ("(?|", "branch reset group"),
]
_FLAGS = "sim"


@functools.lru_cache(maxsize=1)
def _parser() -> Lark:
    grammar = (Path(__file__).parent / "grammar.lark").read_text(encoding="utf-8")
    return Lark(grammar, parser="lalr", lexer="contextual", maybe_placeholders=False)


class _Builder(Transformer):
    """Tree -> AST. Leaf tokens carry the flags in force (see _apply_flags)."""

    def __init__(self, pattern: str, group_indexes: dict[int, int]):
        super().__init__(visit_tokens=False)
        self.pattern = pattern
        self.group_indexes = group_indexes
        self.flags_at: dict[int, tuple[bool, bool, bool]] = {}  # token start -> (dotall, icase, multiline) in force

    def fail(self, msg: str, pos: int) -> RegexSyntaxError:
        return RegexSyntaxError(msg, self.pattern, pos)

    # -- structure --------------------------------------------------------

    def start(self, children):
        return children[0]

    def alternation(self, children):
        branches = tuple(c for c in children if not isinstance(c, Token))
        return branches[0] if len(branches) == 1 else Alt(branches)

    def concat(self, children):
        items = tuple(child for child in children if child is not None)
        return items[0] if len(items) == 1 else Concat(items)

    def piece(self, children):
        atom = self.atom(children[0]) if isinstance(children[0], Token) else children[0]
        if len(children) == 1:
            return None if isinstance(atom, _Marker) else atom
        quant = children[1]
        if isinstance(atom, _Marker):
            raise self.fail("nothing to repeat", quant.pos)
        if isinstance(atom, (Anchor, Look)):
            raise self.fail("unsupported: quantified assertion", quant.pos)
        return Repeat(atom, quant.low, quant.high, quant.lazy)

    def quantifier(self, children):
        head = children[0]
        low, high = {"*": (0, None), "+": (1, None), "?": (0, 1)}.get(head.value, (-1, None))
        if low < 0:
            inner = head.value[1:-1]
            lo_text, _, hi_text = inner.partition(",")
            low = int(lo_text) if lo_text else 0
            high = low if "," not in inner else (int(hi_text) if hi_text else None)
            if high is not None and high < low:
                raise self.fail("min repeat greater than max repeat", head.start_pos + 1)
            if max(low, high or 0) > MAX_REPEAT:
                raise self.fail(f"unsupported: repeat count above {MAX_REPEAT}", head.start_pos + 1)
        lazy = False
        if len(children) == 2:
            if children[1].value == "+":
                raise self.fail("unsupported: possessive quantifier", children[1].start_pos)
            lazy = True
        return _Quant(low, high, lazy, head.start_pos)

    def group(self, children):
        opener, body = children[0], children[1]
        kind = opener.type
        if kind == "LPAREN":
            return Group(body, self.group_indexes[opener.start_pos])
        if kind == "NONCAP":
            return Group(body)
        if kind == "NAMED":
            name = opener.value[opener.value.index("<") + 1 : -1]
            if not name:
                raise self.fail("missing group name", opener.end_pos - 1)
            if not name.isidentifier():
                raise self.fail("bad character in group name", opener.start_pos + opener.value.index("<") + 1)
            return Group(body, self.group_indexes[opener.start_pos], name)
        if kind in ("LOOKAHEAD", "NEG_LOOKAHEAD", "LOOKBEHIND", "NEG_LOOKBEHIND"):
            return Look(body, behind="BEHIND" in kind, negative=kind.startswith("NEG"))
        if kind == "FLAGS_SCOPED":
            # Flags were pushed down to the leaves; keep a group only where
            # one is needed to print the body back as a single atom.
            return Group(body) if isinstance(body, (Alt, Concat)) else body
        raise self.fail(_bad_group_message(self.pattern, opener.start_pos), opener.start_pos)

    def global_flags(self, children):
        token = children[0]
        if token.value == "(?R)":
            raise self.fail("unsupported: recursion (?R)", token.start_pos)
        _check_flags(self, token.value[2:-1], token.start_pos + 2)
        if not _only_global_flags(self.pattern[: token.start_pos]):
            raise self.fail("unsupported: global flags not at the start of the pattern", token.start_pos)
        return _Marker()

    def comment(self, children):
        return _Marker()

    # -- atoms ------------------------------------------------------------

    def atom(self, token: Token) -> Node:
        dotall, icase, multiline = self.flags_at[token.start_pos]
        if token.type == "LITERAL":
            return Char(token.value, icase)
        if token.type == "DOT":
            return Dot(dotall)
        if token.type == "CARET":
            return Anchor(LINE_START if multiline else BOS)
        if token.type == "DOLLAR":
            return Anchor(LINE_END if multiline else EOS)
        node = self.escape(token, in_class=False)
        return Char(node.char, True) if icase and isinstance(node, Char) else node

    def escape(self, token: Token, in_class: bool) -> Node:
        text, pos = token.value, token.start_pos
        body = text[1:]
        head = body[0]
        if head in "dDsSwW":
            return Category(head)
        if head in _CONTROL and len(body) == 1:
            return Char(_CONTROL[head])
        if head in _ANCHOR_ESCAPES and len(body) == 1:
            if in_class:
                if head == "b":
                    return Char("\b")
                raise self.fail(f"bad escape {text}", pos)
            return Anchor(_ANCHOR_ESCAPES[head])
        if head in "xuU":
            if len(body) == 1:
                size = {"x": 2, "u": 4, "U": 8}[head]
                raise self.fail(f"incomplete escape {self.pattern[pos:pos + size + 2]}", pos)
            code = int(body[1:], 16)
            if code > 0x10FFFF:
                raise self.fail(f"bad escape {text}", pos)
            return Char(chr(code))
        if head == "N":
            if not body.startswith("N{"):
                raise self.fail("missing {", pos + 2)
            try:
                return Char(unicodedata.lookup(body[2:-1]))
            except KeyError:
                raise self.fail(f"undefined character name {body[2:-1]!r}", pos) from None
        if head.isdigit():
            if head == "0" or (len(body) == 3 and all(c in "01234567" for c in body)):
                code = int(body, 8)
                if code > 0o377:
                    raise self.fail(f"octal escape value {text} outside of range 0-0o377", pos)
                return Char(chr(code))
            raise self.fail("unsupported: backreference", pos)
        if head in _UNSUPPORTED_ESCAPES:
            raise self.fail(f"unsupported: {_UNSUPPORTED_ESCAPES[head]}", pos)
        if head.isascii() and head.isalpha():
            raise self.fail(f"bad escape {text}", pos)
        return Char(head)

    # -- classes ----------------------------------------------------------

    def char_class(self, children):
        opener, items = children[0], children[1]
        icase = self.flags_at[opener.start_pos][1]
        negated = opener.value == "[^"
        names = {item.name for item in items if isinstance(item, Category)}
        if negated and any(name.swapcase() in names for name in names):
            pair = sorted(name for name in names if name.swapcase() in names)
            raise self.fail(
                f"unsupported: [^...] holding both \\{pair[0]} and \\{pair[1]} "
                "(matches nothing, but the regex module matches anything)",
                opener.start_pos,
            )
        return Class(tuple(items), negated=negated, icase=icase)

    def class_body_bracket(self, children):
        first = children[0]
        rest = [self.class_item(c) for c in children[1:]]
        if len(rest) > 1 and rest[0] == Char("-"):
            raise self.fail("unsupported: range starting with ]", first.start_pos)
        return [Char("]")] + rest

    def class_body(self, children):
        return [self.class_item(c) for c in children]

    def class_item(self, token: Token):
        text, pos = token.value, token.start_pos
        if token.type == "CLASS_CHAR":
            if text == "[":
                raise self.fail("unsupported: '[' inside a class (nested set or POSIX class); write \\[", pos)
            if text in "&|~" and self.pattern[pos + 1 : pos + 2] == text:
                raise self.fail(f"unsupported: {text}{text} inside a class (set operation); escape it", pos)
            return Char(text)
        if token.type == "ESCAPE":
            node = self.escape(token, in_class=True)
            if not isinstance(node, (Char, Category)):
                raise self.fail(f"bad escape {text}", pos)
            return node
        # CLASS_RANGE: split at the "-" between the two atoms
        split = 1 if text[0] != "\\" else _escape_length(text)
        lo_text, hi_text = text[:split], text[split + 1 :]
        if "[" in (lo_text, hi_text):
            raise self.fail("unsupported: '[' inside a class (nested set or POSIX class); write \\[", pos)
        lo = self._range_end(lo_text, pos)
        hi = self._range_end(hi_text, pos + split + 1)
        if ord(lo) > ord(hi):
            raise self.fail("bad character range", pos + split + 1 + len(hi_text))
        return Range(lo, hi)

    def _range_end(self, text: str, pos: int) -> str:
        if text[0] != "\\":
            return text
        node = self.escape(Token("ESCAPE", text, start_pos=pos), in_class=True)
        if not isinstance(node, Char):
            raise self.fail("unsupported: class shorthand in a range", pos)
        return node.char


class _Marker:
    """A flag group or comment: matches nothing, vanishes from the AST."""


class _Quant:
    def __init__(self, low: int, high: int | None, lazy: bool, pos: int):
        self.low, self.high, self.lazy, self.pos = low, high, lazy, pos


def _escape_length(text: str) -> int:
    """Length of the escape at the start of `text` (inside a class)."""
    head = text[1]
    if head in "xuU" and len(text) > 2:
        size = {"x": 2, "u": 4, "U": 8}[head]
        body = text[2 : 2 + size]
        if len(body) == size and all(c in "0123456789abcdefABCDEF" for c in body):
            return 2 + size
    if head in "pPN" and text[2:3] == "{":
        return text.index("}") + 1
    if head in "01234567":
        n = 2
        while n < 4 and n < len(text) and text[n] in "01234567":
            n += 1
        return n
    return 2


def _bad_group_message(pattern: str, pos: int) -> str:
    rest = pattern[pos:]
    for prefix, what in _GROUP_EXTENSIONS:
        if rest.startswith(prefix):
            return f"unsupported: {what}"
    if rest[2:3].isdigit() or rest[2:4] in ("+1", "-1") or rest[2:3] in "+-" and rest[3:4].isdigit():
        return "unsupported: recursion (?N)"
    if rest[2:3].isalpha() or rest[2:3] == "-":
        return f"unsupported: inline flag {rest[:rest.find(')') + 1] if ')' in rest else rest[:3]}"
    if rest.startswith("(?P<") or rest.startswith("(?<"):
        return "missing >, unterminated name"
    if rest.startswith("(?#"):
        return "missing ), unterminated comment"
    return "unknown extension"


def _check_flags(builder, flags: str, pos: int) -> None:
    for offset, flag in enumerate(flags):
        if flag == "-":
            continue
        if flag not in _FLAGS:
            raise builder.fail(f"unsupported: inline flag (?{flag}) (only s, i and m are supported)", pos + offset)


def _only_global_flags(text: str) -> bool:
    """Whether `text` (a pattern's beginning) holds only flag groups and comments."""
    return re.fullmatch(r"(?:\(\?[a-zA-Z]+\)|\(\?#[^)]*\))*", text) is not None


# ---------------------------------------------------------------------------
# Flag scopes: applied to the token stream before building, so each node
# knows its own flags (`(?i:a)` -> Char("a", icase=True)).
# ---------------------------------------------------------------------------


def _apply_flags(tree: Tree, dotall: bool, icase: bool, builder: _Builder, multiline: bool = False) -> None:
    """Record the flags in force at every leaf token (builder.flags_at)."""
    if isinstance(tree, Token):
        return
    for child in tree.children:
        if isinstance(child, Token):
            builder.flags_at[child.start_pos] = (dotall, icase, multiline)
            continue
        if child.data == "group" and isinstance(child.children[0], Token) and child.children[0].type == "FLAGS_SCOPED":
            spec = child.children[0].value[2:-1]
            _check_flags(builder, spec, child.children[0].start_pos + 2)
            on, _, off = spec.partition("-")
            inner_dotall = (dotall or "s" in on) and "s" not in off
            inner_icase = (icase or "i" in on) and "i" not in off
            inner_multiline = (multiline or "m" in on) and "m" not in off
            _apply_flags(child, inner_dotall, inner_icase, builder, inner_multiline)
        else:
            _apply_flags(child, dotall, icase, builder, multiline)


def _global_flag(tree: Tree, pattern: str, flag: str) -> bool:
    """Whether a global flag group at the start of the pattern (before
    anything that matches) turns `flag` (i or m) on for all of it. DOTALL
    is always on."""
    flags = tree.scan_values(lambda t: isinstance(t, Token) and t.type == "FLAGS_GLOBAL")
    return any(flag in t.value and _only_global_flags(pattern[: t.start_pos]) for t in flags)


def parse(pattern: str) -> Regex:
    """The AST of a delimiter regex (read as the `regex` module reads it
    with DOTALL); RegexSyntaxError with a caret otherwise."""
    if not isinstance(pattern, str):
        raise TypeError(f"pattern must be a str, not {type(pattern).__name__}")
    try:
        tree = _parser().parse(pattern)
    except UnexpectedInput as error:
        raise _syntax_error(pattern, error) from None
    openers = sorted(
        token.start_pos for token in tree.scan_values(lambda t: isinstance(t, Token) and t.type in ("LPAREN", "NAMED"))
    )
    builder = _Builder(pattern, {pos: index + 1 for index, pos in enumerate(openers)})
    try:
        _apply_flags(tree, True, _global_flag(tree, pattern, "i"), builder, _global_flag(tree, pattern, "m"))
        body = builder.transform(tree)
    except VisitError as error:
        if isinstance(error.orig_exc, RegexSyntaxError):
            raise error.orig_exc from None
        raise
    if body is None or isinstance(body, _Marker):
        body = Concat(())
    return Regex(body, pattern)


def _syntax_error(pattern: str, error: UnexpectedInput) -> RegexSyntaxError:
    """A lark error in the `regex` module's words."""
    if isinstance(error, UnexpectedCharacters):
        pos = error.pos_in_stream
        if pattern[pos] == "\\":
            return RegexSyntaxError("bad escape (end of pattern)", pattern, pos + 1)
        return RegexSyntaxError(f"unexpected character {pattern[pos]!r}", pattern, pos)
    expected = set(getattr(error, "expected", ()) or ())
    token = getattr(error, "token", None)
    if isinstance(error, UnexpectedEOF) or (isinstance(error, UnexpectedToken) and token.type == "$END"):
        if "CLASS_CLOSE" in expected or "CLASS_CHAR" in expected:
            return RegexSyntaxError("unterminated character set", pattern, len(pattern))
        return RegexSyntaxError("missing ), unterminated subpattern", pattern, len(pattern))
    assert isinstance(error, UnexpectedToken)
    pos = token.start_pos
    if token.type in ("STAR", "PLUS", "QMARK", "BRACES"):
        before = pattern[:pos]
        if before and before[-1] in "*+?}" and not before.endswith("\\" + before[-1]):
            return RegexSyntaxError("multiple repeat", pattern, pos)
        return RegexSyntaxError("nothing to repeat", pattern, pos)
    if token.type == "RPAREN":
        return RegexSyntaxError("unbalanced parenthesis", pattern, pos)
    return RegexSyntaxError(f"unexpected {token.value!r}", pattern, pos)


# ---------------------------------------------------------------------------
# Printing
# ---------------------------------------------------------------------------

_META = set("\\.^$*+?{}[]()|")
_CLASS_META = set("\\]^-[&|~")
_NAMED_CONTROLS = {"\n": "\\n", "\t": "\\t", "\r": "\\r", "\f": "\\f", "\v": "\\v", "\a": "\\a"}


def escape_char(char: str, in_class: bool = False) -> str:
    """A character as `regex` source (printable non-ASCII kept as is)."""
    if char in _NAMED_CONTROLS:
        return _NAMED_CONTROLS[char]
    if char in (_CLASS_META if in_class else _META):
        return "\\" + char
    if char == "\b" and in_class:
        return "\\b"
    code = ord(char)
    if char.isprintable() and not (0xD800 <= code <= 0xDFFF):
        return char
    if code < 0x100:
        return f"\\x{code:02x}"
    if code < 0x10000:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


def _class_source(node: Class) -> str:
    parts = []
    for item in node.items:
        if isinstance(item, Char):
            parts.append(escape_char(item.char, in_class=True))
        elif isinstance(item, Range):
            parts.append(escape_char(item.lo, True) + "-" + escape_char(item.hi, True))
        else:
            parts.append("\\" + item.name)
    return "[" + ("^" if node.negated else "") + "".join(parts) + "]"


def _quantifier(node: Repeat) -> str:
    low, high = node.min, node.max
    if (low, high) == (0, None):
        text = "*"
    elif (low, high) == (1, None):
        text = "+"
    elif (low, high) == (0, 1):
        text = "?"
    elif high is None:
        text = f"{{{low},}}"
    elif low == high:
        text = f"{{{low}}}"
    else:
        text = f"{{{low},{high}}}"
    return text + ("?" if node.lazy else "")


def _source(node: Node) -> str:
    if isinstance(node, Char):
        text = escape_char(node.char)
        return f"(?i:{text})" if node.icase else text
    if isinstance(node, Dot):
        return "." if node.dotall else "(?-s:.)"
    if isinstance(node, Category):
        return "\\" + node.name
    if isinstance(node, Class):
        text = _class_source(node)
        return f"(?i:{text})" if node.icase else text
    if isinstance(node, Anchor):
        return node.kind
    if isinstance(node, Group):
        inner = _source(node.body)
        if node.name is not None:
            return f"(?P<{node.name}>{inner})"
        return f"({inner})" if node.index is not None else f"(?:{inner})"
    if isinstance(node, Look):
        opener = "(?" + ("<" if node.behind else "") + ("!" if node.negative else "=")
        return opener + _source(node.body) + ")"
    if isinstance(node, Alt):
        return "|".join(_source(branch) for branch in node.branches)
    if isinstance(node, Concat):
        return "".join(_source(item) if not isinstance(item, Alt) else f"(?:{_source(item)})" for item in node.items)
    if isinstance(node, Repeat):
        body = node.body
        atomic = isinstance(body, (Char, Dot, Category, Class, Group, Look))
        inner = _source(body)
        if not atomic:
            inner = f"(?:{inner})"
        return inner + _quantifier(node)
    raise TypeError(f"not a regex node: {node!r}")


def to_source(ast: Regex | Node) -> str:
    """Pattern text for the `regex` module (compiled with DOTALL)."""
    return _source(ast.body if isinstance(ast, Regex) else ast)
