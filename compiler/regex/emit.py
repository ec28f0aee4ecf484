"""Emit a delimiter regex for each target's engine, with the `regex` module's
meaning (DOTALL, no MULTILINE, Unicode classes).

- `to_python`: `regex` module source (compile with DOTALL).
- `to_js`: a JavaScript RegExp source for flags "su". `\\w \\d \\s` become
  the Unicode property classes that define them in the `regex` module
  (`\\w` = Alphabetic + Mark + Decimal_Number + Connector_Punctuation +
  Join_Control, `\\s` = White_Space, `\\d` = Decimal_Number; checked
  against it over every code point in tests/regex/test_regex_emit.py), `\\b`/`\\B`
  become lookarounds over that `\\w`, `$` becomes `(?=\\n?$)`, `\\A`/`\\Z`
  become `^`/`$`, `(?P<n>` becomes `(?<n>`; case-insensitive parts become
  explicit classes of the characters the `regex` module folds together.
- `to_go`: Go RE2 syntax, prefixed with `(?s)`. Classes are written as
  explicit code point ranges read off the `regex` module (exact whatever
  Unicode version Go ships: Go 1.26 has Unicode 15, the module 17). RE2 has no lookaround: a lookaround or `\\b`
  is dropped when its neighbours decide it (`(?=<)<a>`, `(?<=\\})` right
  after `\\}`), and `$` becomes `\\z` when a greedy run that can eat a final
  "\\n" precedes it at the very end; otherwise `UnsupportedPattern`.

Both refuse a repeated subpattern that can match empty when an optional
iteration may be empty: the `regex` module ends the repeat at such an
iteration, JavaScript rejects the iteration and backtracks (`(?:|a)*` on
"aa": 0-0 in Python, 0-2 in JavaScript). RE2 agreed on every such case
tried, but nothing documents it, so Go refuses them too. Both refuse the
patterns the `regex` module itself misreads (analysis.regex_module_quirk):
no other engine can agree with it there.
The `*_problems` functions list every reason at once; `to_*` raise
`UnsupportedPattern` with all of them, and callers add the field path.
"""

from __future__ import annotations

import functools

from .analysis import first_set, last_set, nullable, regex_module_quirk
from .charset import CharSet, category_set, set_of, word_set
from .errors import UnsupportedPattern
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
    root_of,
)
from .syntax import to_source

GO_MAX_REPEAT = 1000  # RE2's limit on {m,n} counts


def to_python(ast: Regex | Node) -> str:
    """Source for `regex.compile(..., regex.DOTALL)`."""
    return to_source(ast)


# ---------------------------------------------------------------------------
# Shared walk: each target fills in atoms; structure is the same everywhere.
# ---------------------------------------------------------------------------


class _Emitter:
    target = ""

    def __init__(self, root: Node):
        self.root = root
        self.problems: list[str] = []
        self.names: set[str] = set()

    def problem(self, text: str) -> str:
        if text not in self.problems:
            self.problems.append(text)
        return ""

    def run(self) -> str:
        quirk = regex_module_quirk(self.root)
        if quirk:
            self.problem(quirk)
        return self.node(self.root, at_end=True)

    def node(self, node: Node, at_end: bool = False) -> str:
        if isinstance(node, Char):
            if node.icase:
                return self.charset(set_of(node))
            return self.char(node.char)
        if isinstance(node, Dot):
            return "." if node.dotall else "[^\\n]"
        if isinstance(node, Category):
            return self.category(node.name)
        if isinstance(node, Class):
            return self.klass(node)
        if isinstance(node, Group):
            inner = self.node(node.body, at_end)
            if node.name is not None:
                return self.named_group(node.name, inner)
            return f"({inner})" if node.index is not None else f"(?:{inner})"
        if isinstance(node, Alt):
            return "|".join(self.node(branch, at_end) for branch in node.branches)
        if isinstance(node, Concat):
            return self.concat(node, at_end)
        if isinstance(node, Repeat):
            return self.repeat(node)
        if isinstance(node, Anchor):
            return self.anchor(node, None, None, at_end)
        if isinstance(node, Look):
            return self.look(node, None, None)
        raise TypeError(f"not a regex node: {node!r}")

    def concat(self, node: Concat, at_end: bool) -> str:
        parts = []
        items = node.items
        for index, item in enumerate(items):
            before = items[index - 1] if index > 0 else None
            after = items[index + 1] if index + 1 < len(items) else None
            last = at_end and index == len(items) - 1
            if isinstance(item, Anchor):
                parts.append(self.anchor(item, before, after, last))
            elif isinstance(item, Look):
                parts.append(self.look(item, before, after))
            else:
                text = self.node(item, last)
                parts.append(f"(?:{text})" if isinstance(item, Alt) else text)
        return "".join(parts)

    def repeat(self, node: Repeat) -> str:
        if nullable(node.body) and (node.max is None or node.max > node.min):
            self.problem(
                f"{to_source(node)}: a repeated subpattern that can match empty "
                f"(empty iterations end the repeat in the regex module, not in {self.target})"
            )
        body = self.node(node.body)
        if not isinstance(node.body, (Char, Dot, Category, Class, Group)):  # those print as one atom
            body = f"(?:{body})"
        low, high = node.min, node.max
        if (low, high) == (0, None):
            quant = "*"
        elif (low, high) == (1, None):
            quant = "+"
        elif (low, high) == (0, 1):
            quant = "?"
        elif high is None:
            quant = f"{{{low},}}"
        elif low == high:
            quant = f"{{{low}}}"
        else:
            quant = f"{{{low},{high}}}"
        return body + quant + ("?" if node.lazy else "")

    # target hooks
    def char(self, char: str) -> str:
        raise NotImplementedError

    def charset(self, chars: CharSet) -> str:
        raise NotImplementedError

    def category(self, name: str) -> str:
        raise NotImplementedError

    def klass(self, node: Class) -> str:
        raise NotImplementedError

    def named_group(self, name: str, inner: str) -> str:
        raise NotImplementedError

    def anchor(self, node: Anchor, before: Node | None, after: Node | None, at_end: bool) -> str:
        raise NotImplementedError

    def look(self, node: Look, before: Node | None, after: Node | None) -> str:
        raise NotImplementedError


# ---------------------------------------------------------------------------
# JavaScript (flags "su")
# ---------------------------------------------------------------------------

_JS_SYNTAX = set("^$\\.*+?()[]{}|/")
_JS_CLASS_SPECIAL = set("\\]^-[")
_CONTROL_ESCAPES = {"\n": "\\n", "\t": "\\t", "\r": "\\r", "\f": "\\f", "\v": "\\v"}
_JS_WORD_ITEMS = "\\p{Alphabetic}\\p{M}\\p{Nd}\\p{Pc}\\p{Join_Control}"
_JS_WORD = f"[{_JS_WORD_ITEMS}]"
_JS_CATEGORY_ITEMS = {
    "d": "\\p{Nd}",
    "D": "\\P{Nd}",
    "s": "\\p{White_Space}",
    "S": "\\P{White_Space}",
    "w": _JS_WORD_ITEMS,
}


def _js_char(char: str, in_class: bool) -> str:
    if char in _CONTROL_ESCAPES:
        return _CONTROL_ESCAPES[char]
    if char in (_JS_CLASS_SPECIAL if in_class else _JS_SYNTAX):
        return "\\" + char
    code = ord(char)
    if char.isprintable() and not 0xD800 <= code <= 0xDFFF and code != 0x2028 and code != 0x2029:
        return char
    return f"\\u{{{code:x}}}"


def _js_ranges(chars: CharSet) -> str:
    parts = []
    for lo, hi in chars.ranges:
        if lo == hi:
            parts.append(_js_char(chr(lo), True))
        else:
            parts.append(_js_char(chr(lo), True) + ("-" if hi > lo + 1 else "") + _js_char(chr(hi), True))
    return "[" + "".join(parts) + "]"


class _JSEmitter(_Emitter):
    target = "JavaScript"

    def char(self, char: str) -> str:
        return _js_char(char, False)

    def charset(self, chars: CharSet) -> str:
        return _js_ranges(chars)

    def category(self, name: str) -> str:
        if name == "W":
            return f"[^{_JS_WORD_ITEMS}]"
        if name == "w":
            return _JS_WORD
        return _JS_CATEGORY_ITEMS[name]

    def klass(self, node: Class) -> str:
        if node.icase or any(isinstance(i, Category) and i.name == "W" for i in node.items):
            return _js_ranges(set_of(node))
        parts = []
        for item in node.items:
            if isinstance(item, Char):
                parts.append(_js_char(item.char, True))
            elif isinstance(item, Range):
                parts.append(_js_char(item.lo, True) + "-" + _js_char(item.hi, True))
            else:
                parts.append(_JS_CATEGORY_ITEMS[item.name])
        return "[" + ("^" if node.negated else "") + "".join(parts) + "]"

    def named_group(self, name: str, inner: str) -> str:
        if name in self.names:
            self.problem(f"group name {name!r} used twice (JavaScript needs unique names)")
        self.names.add(name)
        return f"(?<{name}>{inner})"

    def anchor(self, node, before, after, at_end) -> str:
        kind = node.kind
        if kind in (BOS, START):
            return "^"
        if kind == END:
            return "$"
        if kind == EOS:
            return "(?=\\n?$)"
        if kind == LINE_START:
            return "(?<![^\\n])"
        if kind == LINE_END:
            return "(?![^\\n])"
        if kind == WORD_BOUNDARY:
            return f"(?:(?<={_JS_WORD})(?!{_JS_WORD})|(?<!{_JS_WORD})(?={_JS_WORD}))"
        return f"(?:(?<={_JS_WORD})(?={_JS_WORD})|(?<!{_JS_WORD})(?!{_JS_WORD}))"

    def look(self, node, before, after) -> str:
        opener = "(?" + ("<" if node.behind else "") + ("!" if node.negative else "=")
        return opener + self.node(node.body) + ")"


# ---------------------------------------------------------------------------
# Go (RE2)
# ---------------------------------------------------------------------------

_GO_PUNCT = set("\\.+*?()|[]{}^$")
_GO_CLASS_SPECIAL = set("\\]^-[")


def _go_char(char: str, in_class: bool) -> str:
    if char in _CONTROL_ESCAPES:
        return _CONTROL_ESCAPES[char]
    if char in (_GO_CLASS_SPECIAL if in_class else _GO_PUNCT):
        return "\\" + char
    if char.isascii() and char.isprintable():
        return char
    return f"\\x{{{ord(char):x}}}"


@functools.lru_cache(maxsize=64)
def _go_ranges(chars: CharSet) -> str:
    if not chars:
        return "[^\\x{0}-\\x{10ffff}]"
    if chars.is_full():
        return "(?s:.)"
    if len(chars.ranges) == 1 and chars.ranges[0][0] == chars.ranges[0][1]:
        return _go_char(chr(chars.ranges[0][0]), False)
    # Write the smaller of the set and its complement.
    negate = len(chars.complement().ranges) < len(chars.ranges)
    shown = chars.complement() if negate else chars
    parts = []
    for lo, hi in shown.ranges:
        parts.append(_go_char(chr(lo), True) if lo == hi else _go_char(chr(lo), True) + "-" + _go_char(chr(hi), True))
    return "[" + ("^" if negate else "") + "".join(parts) + "]"


class _GoEmitter(_Emitter):
    target = "Go RE2"

    def char(self, char: str) -> str:
        return _go_char(char, False)

    def charset(self, chars: CharSet) -> str:
        return _go_ranges(chars)

    def category(self, name: str) -> str:
        return _go_ranges(category_set(name))

    def klass(self, node: Class) -> str:
        return _go_ranges(set_of(node))

    def named_group(self, name: str, inner: str) -> str:
        if not (name.isascii() and name.replace("_", "a").isalnum()):
            self.problem(f"group name {name!r}: Go allows only ASCII letters, digits and _")
        return f"(?P<{name}>{inner})"

    def repeat(self, node: Repeat) -> str:
        if max(node.min, node.max or 0) > GO_MAX_REPEAT:
            self.problem(f"{to_source(node)}: Go RE2 allows repeat counts up to {GO_MAX_REPEAT}")
        return super().repeat(node)

    def anchor(self, node, before, after, at_end) -> str:
        kind = node.kind
        if kind == BOS:
            return "^"
        if kind == START:
            return "\\A"
        if kind == END:
            return "\\z"
        if kind in (LINE_START, LINE_END):
            return f"(?m:{kind[-2]})"
        if kind == EOS:
            if at_end and _eats_final_newline(before):
                return "\\z"
            return self.problem(
                "$ (end, or before a final newline): Go RE2 has no lookahead; "
                "only a trailing $ after a greedy run that can match \\n becomes \\z"
            )
        # \b / \B: decided by the neighbours, or not expressible
        if before is not None and after is not None and not nullable(before) and not nullable(after):
            words = word_set()
            left, right = last_set(before), first_set(after)
            left_word = left.issubset(words)
            left_other = left.isdisjoint(words)
            right_word = right.issubset(words)
            right_other = right.isdisjoint(words)
            boundary_always = (left_word and right_other) or (left_other and right_word)
            inside_always = (left_word and right_word) or (left_other and right_other)
            if (kind == WORD_BOUNDARY and boundary_always) or (kind == NOT_WORD_BOUNDARY and inside_always):
                return ""
        return self.problem(f"{kind}: Go RE2's word boundaries are ASCII-only and it has no lookaround")

    def look(self, node, before, after) -> str:
        what = "lookbehind" if node.behind else "lookahead"
        source = to_source(node)
        single = _single_set(node.body)
        if single is not None:
            if node.behind and before is not None and not nullable(before):
                near = last_set(before)
                if (near.issubset(single) and not node.negative) or (near.isdisjoint(single) and node.negative):
                    return ""
            if not node.behind and after is not None and not nullable(after):
                near = first_set(after)
                if (near.issubset(single) and not node.negative) or (near.isdisjoint(single) and node.negative):
                    return ""
        return self.problem(f"{what} {source}: Go RE2 has no lookaround")


def _single_set(node: Node) -> CharSet | None:
    while isinstance(node, Group):
        node = node.body
    if isinstance(node, (Char, Dot, Category, Class)):
        return set_of(node)
    return None


def _eats_final_newline(node: Node | None) -> bool:
    """A greedy unbounded run that can match "\\n": before a trailing `$` it
    already ran to the end whenever `$` could match before a final "\\n"."""
    if not isinstance(node, Repeat) or node.lazy or node.max is not None:
        return False
    chars = _single_set(node.body)
    return chars is not None and "\n" in chars


# ---------------------------------------------------------------------------


def js_problems(ast: Regex | Node) -> tuple[str, ...]:
    emitter = _JSEmitter(root_of(ast))
    emitter.run()
    return tuple(emitter.problems)


def go_problems(ast: Regex | Node) -> tuple[str, ...]:
    emitter = _GoEmitter(root_of(ast))
    emitter.run()
    return tuple(emitter.problems)


def to_js(ast: Regex | Node) -> str:
    """JavaScript RegExp source, for `new RegExp(source, "su")`."""
    emitter = _JSEmitter(root_of(ast))
    source = emitter.run()
    if emitter.problems:
        raise UnsupportedPattern("; ".join(emitter.problems))
    return source


def to_go(ast: Regex | Node) -> str:
    """Go `regexp` source (RE2 syntax), `(?s)` included."""
    emitter = _GoEmitter(root_of(ast))
    source = emitter.run()
    if emitter.problems:
        raise UnsupportedPattern("; ".join(emitter.problems))
    return "(?s)" + source
