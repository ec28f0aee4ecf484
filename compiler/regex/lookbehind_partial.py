"""Where the `regex` module (2026.5.9) reports a partial match from inside a
look-behind, decided once here so every port reproduces it from data.

The module matches a look-behind's body backwards. When a greedy
one-character repeat there (`\\s*`, `[^\\s<]+`, `[ ]{0,3}`) gives characters
back after its tail failed, and the tail (the item just left of it in the
pattern) is a literal string of two or more characters, the module does not
step back one character at a time: it searches *forwards* for the string
(`string_search` in the GREEDY_REPEAT_ONE backtrack of `_regex.c`), from
just right of where the repeat ended up to where its minimum count would
end. That search treats "not found before the limit" as running into the
end of the text, so with `partial=True` the whole attempt is reported as a
partial match at its start, although nothing reads the end of the text.
`(?<=ab[ ]*c)` on "x c.": no complete match; a partial one at 3 ("." is
held back), where a plain backtracking engine finds nothing.

Precisely, for such a repeat that matched `count` characters ending (going
left) at L, started at R, with minimum `min` (limit = R - min): on
backtracking, occurrences of the string S (length n) whose end e lies in
L < e <= limit (and e >= n) are tried in order of increasing e; when one is
found the match goes on from it; when none is left, partial=True turns the
attempt into a partial match, unless the last occurrence tried ended at the
limit (the repeat is then at its minimum: a plain failure) or limit < n
(nothing to search: a plain failure). Without partial the same search is a
plain failure, so complete matches are unaffected.

The literal is the run of plain (case-sensitive) literal characters just
left of the repeat, non-capturing groups being transparent; a capturing
group's boundary right next to the repeat is skipped, any other boundary
ends the run (`(?<=(ab)[ ]*c)` has the quirk, `(?<=a(b)[ ]*c)` does not).
Repeats inside a look-ahead nested in the look-behind read forwards and are
not concerned. Such a look-ahead is read as any look-ahead is: where it
reaches the end of the text, the module reports a partial match
(`a(?<=(?=ab)a)` on "a": partial at 0), and the ports do the same (the
matcher cases in tests/js/fixtures/make_regex_cases.py pin it).

The module only attempts a match at a position whose character can start
one (`attempt_entry`, a look-behind being skipped: `(?<=ab[ ]*c)z` on
"x c." is not attempted at 3, so the partial match above does not appear
there); the ports test the same set before each attempt.
"""

from __future__ import annotations

from .analysis import first_set, nullable
from .charset import CharSet, case_closure
from .nodes import Alt, Category, Char, Class, Concat, Dot, Group, Look, Node, Range, Regex, Repeat, root_of

_OPEN, _CLOSE = "open", "close"  # capturing group boundary markers in the flattened sequence


def _single_char(node: Node) -> bool:
    while isinstance(node, Group) and node.index is None:
        node = node.body
    return isinstance(node, (Char, Dot, Category, Class))


def _flatten(node: Node, out: list) -> None:
    """The sequence the module sees: concatenations and non-capturing groups
    opened up, capturing groups as boundary markers around their body."""
    if isinstance(node, Concat):
        for item in node.items:
            _flatten(item, out)
    elif isinstance(node, Group) and node.index is None:
        _flatten(node.body, out)
    elif isinstance(node, Group):
        out.append(_OPEN)
        _flatten(node.body, out)
        out.append(_CLOSE)
    else:
        out.append(node)


def _literal_left_of(sequence: list, index: int) -> str:
    at = index - 1
    while at >= 0 and sequence[at] in (_OPEN, _CLOSE):
        at -= 1
    chars = []
    while at >= 0 and isinstance(sequence[at], Char) and not sequence[at].icase:
        chars.append(sequence[at].char)
        at -= 1
    return "".join(reversed(chars))


def _visit(node: Node, backwards: bool, out: dict[int, str]) -> None:
    if isinstance(node, Look):
        _visit(node.body, node.behind, out)
        return
    if backwards and isinstance(node, (Concat, Group)):
        sequence: list = []
        _flatten(node, sequence)
        for index, item in enumerate(sequence):
            if isinstance(item, Repeat) and not item.lazy and item.max != item.min and _single_char(item.body):
                literal = _literal_left_of(sequence, index)
                if len(literal) >= 2:
                    out[id(item)] = literal
        for item in sequence:
            if item not in (_OPEN, _CLOSE):
                _visit(item, backwards, out)
        return
    if isinstance(node, (Concat, Alt)):
        for child in node.items if isinstance(node, Concat) else node.branches:
            _visit(child, backwards, out)
    elif isinstance(node, (Group, Repeat)):
        _visit(node.body, backwards, out)


def backtrack_literals(ast: Regex | Node) -> dict[int, str]:
    """id(Repeat node) -> the literal the module searches for forwards when
    that repeat, inside a look-behind, gives characters back (see above)."""
    out: dict[int, str] = {}
    _visit(root_of(ast), False, out)
    return out


def attempt_entry(ast: Regex | Node) -> CharSet | None:
    """The characters at which a search attempts a match (any when None):
    those a match or partial match may read first, consumed or looked
    ahead at; None when the pattern can match empty, or when the module
    builds no first set for it: one of the items a match may start with is
    a negated single character (`[^q]`, `_check_firstset` in
    _regex_core.py), and the module attempts a match everywhere. That
    matters where an attempt reports a partial match without reading the
    end of the text (a lazy repeat opening the pattern: `[^q]*?x` on "q"
    is a partial match at 0, `[^qr]*?x` on "q" none)."""
    root = root_of(ast)
    if nullable(root):
        return None
    negated, _, icase = _negated_first(root)
    if negated:
        return None
    first = first_set(root, lookaheads=True)
    # One member ignoring case makes the module's whole first set do so
    # (`_check_firstset`): `(?:x|[ab])*?(?i:k)` is attempted at "X".
    return case_closure(first) if icase else first


def _bare_negated(node: Node) -> bool:
    """A class the module parses as a negated single character (`[^q]`)."""
    while isinstance(node, Group) and node.index is None:
        node = node.body
    return isinstance(node, Class) and node.negated and len(node.items) == 1 and isinstance(node.items[0], Char)


def _single(node: Node) -> bool:
    while isinstance(node, Group) and node.index is None:
        node = node.body
    return isinstance(node, (Char, Category, Class)) and not (
        isinstance(node, Class) and len(node.items) == 1 and isinstance(node.items[0], Range)
    )


def _negated_first(node: Node) -> tuple[bool, bool, bool]:
    """(whether the module's first set of `node` (`get_firstset`) holds a
    negated single character, whether it holds None: `node` may start
    without reading a character, whether a member ignores case: the module
    then makes the whole first set ignore case)."""
    if isinstance(node, (Char, Class)):
        return isinstance(node, Class) and _bare_negated(node), False, node.icase
    if isinstance(node, (Dot, Category)):
        return False, False, False
    if isinstance(node, Group):
        return _negated_first(node.body)
    if isinstance(node, Concat):
        found = folded = False
        for item in node.items:
            negated, empty, icase = _negated_first(item)
            found, folded = found or negated, folded or icase
            if not empty:
                return found, False, folded
        return found, True, folded
    if isinstance(node, Alt):
        # Adjacent single-character branches are merged into one set first
        # (Branch._reduce_to_set): a negated one among them is no member.
        found = empty = folded = False
        branches = list(node.branches)
        for at, branch in enumerate(branches):
            negated, nothing, icase = _negated_first(branch)
            if _single(branch):
                merged = (at > 0 and _single(branches[at - 1])) or (at + 1 < len(branches) and _single(branches[at + 1]))
                negated = negated and not merged
            found, empty, folded = found or negated, empty or nothing, folded or icase
        return found, empty, folded
    if isinstance(node, Repeat):
        if node.max == 0:
            return False, True, False
        negated, empty, icase = _negated_first(node.body)
        return negated, empty or node.min == 0, icase
    if isinstance(node, Look) and not node.behind and not node.negative:
        return _negated_first(node.body)
    return False, True, False
