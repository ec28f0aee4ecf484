"""How the `regex` module (2026.5.9) reports partial matches for a lazy
one-character repeat, decided once here so every port reproduces it from data.

A lazy repeat whose body reads one character (`[^<]+?`, `.*?`, `\\s{0,3}?`,
`[ab]??`, `(?:x)*?`, `(?:a|b)*?` whose branches the optimiser merges into
one set (char_alternation); not a capturing group) is the module's
LAZY_REPEAT_ONE (the module emits the minimum count as plain copies before
it, so `x??`, `x{0,1}?` and `x{2,3}?` are all such repeats). A lazy repeat
of anything else is its LAZY_REPEAT, which backtracks iteration by
iteration as the ports' general repeat does. Entering
it matches the minimum count (running into the end of the text there is an
ordinary partial match) and goes on with the tail. When the tail fails and
the matcher backtracks into the repeat at `pos` (the repeat started at
`start` with maximum `max`), the module does not simply read one more body
character and retry the tail: it looks at the tail's *test*, the first
thing the tail reads (`_regex.c`, `set_test_node`), read as the module's
optimiser leaves the pattern (an alternation whose branches share leading
items has them hoisted out, `_split_common_prefix`: `(?:<a>|<b>)` tests
"<", `(?:<ab>|<ac>)` the string "<a", `y(?:xa|xb)` the string "yx"; a run
of characters is one string node as Sequence.pack_characters makes it,
under a case state carried along the sequence: a character whose case
flag differs ends the run unless it is case-sensitive and has no other
cases; a case-insensitive test is read with each character's cases, the
module's CHARACTER_IGN / STRING_IGN, by the same rules), and

- test is one character (a literal, `[x]`, `(x)`, a repeat `x+` / `x{2}`
  of one): before reading `text[pos]` it checks whether `pos + 1 >=
  len(text)`; if so, partial=True makes the attempt a partial match,
  *whether or not* the body matches `text[pos]` (`a[^q]*?x` on "aq": a
  partial match at 0, though `[^q]` cannot read "q"). Otherwise: at the
  maximum, or when the body does not match
  `text[pos]`, the repeat fails; else it takes the character and goes on
  (the tail is only tried where its character is).
- test is a literal string of two or more characters S (a run of literal
  characters after the repeat, capturing-group boundaries ending the run,
  non-capturing groups transparent, entering a repeated group of count at
  least one): it searches forwards for the first occurrence of S starting
  at `pos + 1` or later (for a bounded repeat: and ending by `start + max
  + len(S)`, where `start` is where the repeat began). If
  there is none, partial=True makes the attempt a partial match (again
  whatever the body would say of the characters in between: `\\s*?<a>` on
  " x" is a partial match at 0, `a[^q]*?xy` on "aqqqqqz" one at 0). If
  there is one at `p`, the
  body must match every character of `text[pos:p]` (else the repeat fails)
  and the tail is tried at `p`; when it fails, the search goes on from `p`.
  Without partial, "none" is a plain failure, so complete matches are the
  ordinary backtracking ones.
- any other test (a class, an alternation, an anchor, a look-around, an
  optional item, the end of the pattern or of an enclosing repeat or
  look-around): the module reads one body character and retries the tail,
  as an ordinary backtracking matcher does, with one difference: it stops
  when the repeat reaches the end of the text, so a body that would read
  one more character there makes no partial match (`\\[\\[.*?\\b` on
  "?b[[ ": none), unless the tail failed right where the minimum count
  ended and that is the end of the text (then the body asks for a
  character there: `\\[\\[.*?\\b` on "[[[" is a partial match at 1).

The partial search stays as everywhere else: a complete match anywhere wins
(the leftmost); otherwise the leftmost start whose attempt reports a partial
match, the quirk above included (the end of the partial match is the end of
the text). Inside a look-behind (matched backwards) the module reports no
partial match at all, so nothing changes there.

The module's partial search also starts late for some patterns, where its
*required string* says a match cannot start earlier; a partial match a
bounded lazy repeat reports without reading the end of the text then
depends on it (`(?:x[^q]??xy|zz)y` on "xxxxx": a partial match at 1, not
0). required_partial.py models that search.

`lazy_tails(ast)` gives, for each lazy one-character repeat outside
look-behinds, the literal its tail's test is (one character: the first
rule; more: the second; "": the third). Where the test's run of
characters starts, the case state is the one the characters before it in
the same optimised sequence left (`(?i:a).*?<b` tests "<" alone: the
case-insensitive "a" leaves the state ignoring case, and the
case-sensitive "b" then starts a string of its own; `case_states`).

Where a match is attempted matters when an attempt can open with a lazy
repeat of minimum 0 (opens_lazily): the module attempts at its first
set's characters, or everywhere when it builds none (a negated single
character among the members, `[^q]*?x` on "q": a partial match at 0;
none for `[^qr]*?x`; lookbehind_partial.attempt_entry); when the repeat is
the pattern's first node it skips, after a failed attempt, the run of body
characters from there, and a run reaching the end of the text makes a
partial match at that attempt (`\\s*?\\b` on "|\\n": one at 1; lazy_lead).

How this was read: from `_regex.c` (the LAZY_REPEAT_ONE backtrack case and
`simple_string_search`, which reports "off the end of the text" for a
string it does not find; `locate_required_string`; the FAILURE case of
`basic_match`, which skips the leading repeat's run) and `_regex_core.py`
(`Branch.optimise`, `Sequence.pack_characters`, `get_required_string`,
`_check_firstset`) of the 2026.5.9 source distribution, a build of it with
`VERBOSE` tracing, then corrected and bounded by the module's answers; tests/regex/test_partial_search_ports.py checks both ports against
the module on generated lazy patterns of every shape (regex_strategies.
random_lazy_pattern), every prefix of each text.
"""

from __future__ import annotations

from .analysis import max_length, nullable
from .charset import CharSet, set_of
from .lookbehind_partial import backtrack_literals
from .nodes import Alt, Anchor, Category, Char, Class, Concat, Dot, Group, Look, Node, Range, Regex, Repeat, children, root_of

_CLOSE = "close"  # a capturing group ends: skipped, but ends a literal run
_STOP = "stop"  # the end of a repeat body or look-around: the test is not a literal
_JOIN = "join"  # the end of an alternative: the run ends, the test goes on


class Branches:
    """An alternation's branches after the prefix the optimiser hoists out of
    them (each branch's remaining items): ends a literal run. `width`: the
    widest text they read (None: unbounded)."""

    def __init__(self, rests: list[list], width: int | None = None):
        self.rests = rests
        self.width = width


def one_char(node: Node) -> bool:
    while isinstance(node, Group) and node.index is None:
        node = node.body
    return isinstance(node, (Char, Dot, Category, Class)) or char_alternation(node) is not None


def char_alternation(node: Node) -> CharSet | None:
    """The set an alternation of single characters is (`(?:a|b|\\s)`), or
    None: the module's optimiser reduces such branches to one set
    (Branch._reduce_to_set; all of one case flag), so a lazy repeat of it is
    a one-character repeat. The ports emit it as that set."""
    while isinstance(node, Group) and node.index is None:
        node = node.body
    if not isinstance(node, Alt):
        return None
    out = CharSet.of(())
    flags = set()
    for branch in node.branches:
        while isinstance(branch, Group) and branch.index is None:
            branch = branch.body
        # What the module merges: a character (`a`, `[a]`, `[^a]`), a
        # property (`\\s`, `\\W`) or a set of several items (`[ab]`, `[a-z0]`);
        # not a class of one range (`[a-z]`) nor `.`.
        if isinstance(branch, Class):
            if len(branch.items) == 1 and isinstance(branch.items[0], Range):
                return None
        elif not isinstance(branch, (Char, Category)):
            return None
        flags.add(bool(getattr(branch, "icase", False)))
        out = out | set_of(branch)
    return out if len(flags) == 1 else None


def literal_char(node: Node) -> tuple[str, bool] | None:
    """(character, ignores case) for a literal character or a one-character
    positive class, else None."""
    if isinstance(node, Char):
        return node.char, node.icase
    if isinstance(node, Class) and not node.negated and len(node.items) == 1 and isinstance(node.items[0], Char):
        return node.items[0].char, node.icase or node.items[0].icase
    return None


def _expand(items: list) -> list:
    """Open up the first item until it is a marker or a leaf. An alternation
    whose branches share leading items is read as the module's optimiser
    leaves it: the shared items, then the rest of the branches (a marker
    that ends a literal run)."""
    while items:
        head = items[0]
        if isinstance(head, Concat):
            items = list(head.items) + items[1:]
        elif isinstance(head, Group):
            items = [head.body] + ([] if head.index is None else [_CLOSE]) + items[1:]
        elif isinstance(head, Repeat) and head.min == head.max == 1:
            items = [head.body] + items[1:]
        elif isinstance(head, Alt):
            prefix, rests = split_alternation(head)
            if not prefix:
                return items
            items = prefix + [Branches(rests)] + items[1:]
        else:
            return items
    return items


def _affix(node) -> bool:
    """An item the module's optimiser may move out of alternatives (its
    `can_be_affix`): not a repeat, a capturing group or a sequence."""
    return isinstance(node, (Char, Dot, Category, Class, Anchor))


def _normal(node: Node) -> Node:
    found = literal_char(node) if isinstance(node, Class) else None
    return Char(found[0], found[1]) if found else node


def _sequence(node: Node) -> list:
    """A branch's items as the module's parser sees them: concatenations and
    non-capturing groups opened up."""
    if isinstance(node, Group) and node.index is None:
        return _sequence(node.body)
    if isinstance(node, Concat):
        return [item for child in node.items for item in _sequence(child)]
    if isinstance(node, Alt):
        prefix, rests = split_alternation(node)
        if prefix:
            return prefix + [Branches(rests)]  # the module's Sequence(prefix, Branch), flattened
    return [node]


def split_alternation(node: Alt) -> tuple[list, list]:
    """(the items common to the start of every branch, the branches' item
    lists), as `regex`'s Branch.optimise splits them (`_split_common_prefix`,
    after flattening branches that are alternations themselves). The items
    are the pattern's own nodes (the prefix: the first branch's)."""
    branches: list[list] = []
    for branch in node.branches:
        inner = branch
        while isinstance(inner, Group) and inner.index is None:
            inner = inner.body
        if isinstance(inner, Alt):
            prefix, rest = split_alternation(inner)
            if not prefix:  # still an alternation: its branches join this one's
                branches.extend(rest)
                continue
        branches.append(_sequence(branch))
    count = 0
    while (
        count < min(len(b) for b in branches)
        and _affix(branches[0][count])
        and all(_normal(b[count]) == _normal(branches[0][count]) for b in branches)
    ):
        count += 1
    return branches[0][:count], [b[count:] for b in branches]


def _cased(char: str) -> bool:
    """Whether the character has other cases (the module's is_cased_i)."""
    return len(set_of(Char(char, True))) > 1


def carried_literal(run: list[str], icase: bool) -> str | tuple[CharSet, ...]:
    """The test as the ports carry it: the string, or when it ignores case
    the set of each character's cases (the module's same_char_ign)."""
    if not icase:
        return "".join(run)
    return tuple(set_of(Char(char, True)) for char in run)


def _test(follow: list, states: dict[int, bool]) -> str | tuple[CharSet, ...]:
    """The literal the tail's test reads ("" when the test is not a literal);
    a tuple of character sets when it ignores case. `states`: case_states."""
    items = _expand(follow)
    while items and items[0] in (_CLOSE, _JOIN):
        items = _expand(items[1:])
    if not items or items[0] == _STOP:
        return ""
    head = items[0]
    if isinstance(head, Repeat):
        if head.min == 0:
            return ""
        if one_char(head.body):
            body = head.body
            while isinstance(body, Group):
                body = body.body
            found = literal_char(body)
            return carried_literal([found[0]], found[1]) if found else ""
        return _test([head.body, _STOP], states)
    if isinstance(head, Alt):
        return ""  # no common prefix (_expand): the branches or a set of their first characters
    first = literal_char(head)
    if first is None:
        return ""
    chars = [first]
    items = _expand(items[1:])
    while items:
        nxt = literal_char(items[0])  # None for the markers
        if nxt is None:
            break
        chars.append(nxt)
        items = _expand(items[1:])
    # The module packs a run of characters into one string node
    # (Sequence.pack_characters) under a case state carried along the
    # sequence: a character whose case flag differs from it ends the run
    # and sets it, unless it is case-sensitive and has no other cases.
    return carried_literal(*pack_run(chars, states.get(id(head), False)))


def pack_run(chars: list[tuple[str, bool]], state: bool) -> tuple[list[str], bool]:
    """The first string node `regex` packs from these characters when its
    case state is `state` (True: ignoring case) before them."""
    run: list[str] = []
    for char, icase in chars:
        if icase != state and (icase or _cased(char)):
            if run:
                break
            state = icase
        run.append(char)
    return run, state and any(_cased(char) for char in run)


def _visit(node: Node, follow: list, out: dict, states: dict[int, bool]) -> None:
    if isinstance(node, Look):
        if not node.behind:
            _visit(node.body, [_STOP], out, states)
        return
    if isinstance(node, Concat):
        for at, item in enumerate(node.items):
            _visit(item, list(node.items[at + 1 :]) + follow, out, states)
    elif isinstance(node, Alt):
        for branch in node.branches:
            _visit(branch, [_JOIN] + follow, out, states)
    elif isinstance(node, Group):
        _visit(node.body, ([] if node.index is None else [_CLOSE]) + follow, out, states)
    elif isinstance(node, Repeat):
        if node.lazy and node.min != node.max and one_char(node.body):
            out[id(node)] = _test(follow, states)
        else:
            # A lazy repeat of a group (the module's LAZY_REPEAT) backtracks
            # iteration by iteration, as the ports' general repeat does.
            _visit(node.body, [_STOP], out, states)


def optimised_items(node: Node) -> list:
    """The items of the sequence the module's optimiser makes of `node`:
    concatenations, non-capturing groups and `{1}` opened up (Sequence.
    optimise), an alternation's hoisted prefix moved out of it."""
    if isinstance(node, Concat):
        return [item for child in node.items for item in optimised_items(child)]
    if isinstance(node, Group) and node.index is None or isinstance(node, Repeat) and node.min == node.max == 1:
        return optimised_items(node.body)
    if isinstance(node, Alt):
        prefix, rests = split_alternation(node)
        if prefix:
            whole = max_length(node)
            width = None if whole is None else whole - sum(max_length(item) or 0 for item in prefix)
            return prefix + [Branches(rests, width)]
    return [node]


def case_states(root: Node) -> dict[int, bool]:
    """id(literal character) -> whether the module's case state ignores case
    right before it. Sequence.pack_characters carries the state along one
    optimised sequence (optimised_items), starting case-sensitive: a
    case-insensitive character sets it, a case-sensitive one with other
    cases clears it; the sequences inside other items (groups that capture,
    repeats, branches, look-arounds) start afresh."""
    states: dict[int, bool] = {}

    def sequence(items: list) -> None:
        state = False
        for item in items:
            found = literal_char(item)
            if found is not None:
                states.setdefault(id(item), state)
                char, icase = found
                if icase != state and (icase or _cased(char)):
                    state = icase
            elif isinstance(item, Branches):
                for rest in item.rests:
                    sequence([inner for part in rest for inner in optimised_items(part)])
            else:
                for child in children(item):
                    sequence(optimised_items(child))

    sequence(optimised_items(root))
    return states


def lazy_tails(ast: Regex | Node) -> dict[int, str]:
    """id(lazy one-character Repeat) -> the literal its tail's test reads, ""
    when the test is not a literal (see above)."""
    out: dict = {}
    root = root_of(ast)
    _visit(root, [], out, case_states(root))
    return out


def repeat_strings(ast: Regex | Node) -> dict[int, str]:
    """id(Repeat) -> the string the ports' matchers carry on that repeat: the
    literal a greedy repeat gives back to (lookbehind_partial.backtrack_literals)
    or a lazy one-character repeat's tail test (lazy_tails). What the JS and Go
    backends render beside each repeat of a regex tree."""
    return {**backtrack_literals(ast), **lazy_tails(ast)}


def walk_nodes(node: Node):
    yield node
    for child in children(node):
        yield from walk_nodes(child)


def opens_lazily(ast: Regex | Node) -> bool:
    """Whether an attempt can open with a lazy one-character repeat of
    minimum 0: the module's attempt positions then matter (attempt_entry,
    lazy_lead), so the backends search such a pattern at every position
    its entry allows, with no trigger-string hint."""
    root = root_of(ast)
    return _opens_with(root, lazy_tails(root)) is not None


def lazy_lead(ast: Regex | Node) -> tuple[CharSet, int] | None:
    """(the body's set, the maximum or -1) of a lazy one-character repeat of
    minimum 0 that is the module's first node, when the module builds no
    first set (attempt_entry is None). After a failed attempt at p the
    module then skips the run of body characters from p (at most the
    maximum; `basic_match`, "skip over any repeated leading characters"):
    the next attempt is one past the run, unless the run is the maximum
    long; and when the run reaches the end of the text, a partial search
    reports a partial match at p (`\\s*?\\b` on "|\\n": one at 1)."""
    from .lookbehind_partial import attempt_entry

    root = root_of(ast)
    if attempt_entry(root) is not None:
        return None
    head = root
    while True:
        if isinstance(head, Group) and head.index is None:
            head = head.body
        elif isinstance(head, Concat) and head.items:
            head = head.items[0]
        else:
            break
    if not isinstance(head, Repeat) or not head.lazy or head.min != 0 or not one_char(head.body):
        return None
    body = head.body
    while isinstance(body, Group) and body.index is None:
        body = body.body
    chars = char_alternation(body)
    return (set_of(body) if chars is None else chars), (-1 if head.max is None else head.max)


def _negated_single(node: Node) -> bool:
    while isinstance(node, Group) and node.index is None:
        node = node.body
    return isinstance(node, Class) and node.negated and len(node.items) == 1 and isinstance(node.items[0], Char)


def _opens_with(node: Node, tails: dict[int, str]) -> Repeat | None:
    """A lazy repeat of `tails` with minimum 0 that an attempt can open with."""
    if isinstance(node, Repeat):
        return node if id(node) in tails and node.min == 0 else None
    if isinstance(node, Group):
        return _opens_with(node.body, tails)
    if isinstance(node, Alt):
        for branch in node.branches:
            found = _opens_with(branch, tails)
            if found is not None:
                return found
        return None
    if isinstance(node, Concat):
        for item in node.items:
            found = _opens_with(item, tails)
            if found is not None or not nullable(item):
                return found
    return None


__all__ = ["lazy_lead", "lazy_tails", "opens_lazily", "repeat_strings"]
