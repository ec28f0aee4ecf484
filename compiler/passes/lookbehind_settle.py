"""Look-behind alternatives a buffer settles, so the Python runtime can
search it with a smaller pattern (a pure pass over the regex IR).

llama4_pythonic's tool-call open is an alternation whose last two branches
start with unbounded look-behinds:

    (?:^\\s*\\[ | \\s*<|python_start|>\\s*\\[
       | (?<=^\\s*\\[.*\\))\\s*,
       | (?<=<|python_start|>\\s*\\[(?:(?!<|python_end|>).)*\\))\\s*,)\\s*NAME\\(

At every `)` the `regex` module walks each of them back to the start of
the text, and with `partial=True` it tries every position of a whitespace
run: one search over a 74,000-character content region takes 1.8 s (the
interpreter pays the same), and a stream that keeps all of its text (as
this one must once its text starts with `[`) pays it at every `)` token.
Two shapes of such branches are settled by facts about the buffer,
searched for once per text:

Anchored. `(?<=^H.*T)` (`.` matches anything: DOTALL), `T` of fixed width
`tail`, no look-around or anchor in `H` or `T`: whether it holds at a
position `p` depends only on whether `^H` matches the buffer's start
(ending at `e`) and on `T` ending at `p`. So once `\\A(?:H)` is known to
match completely and `e + tail` is at most the read position, the branch
is `(?<=T)` (the `alive` pattern); once `\\A(?:H)` neither matches nor
partly matches, the branch never holds and is dropped (the `dead`
pattern). A partial match of `^H` (a buffer of whitespace) settles
nothing: the original pattern searches.

Headed. `(?<=L X* K (?:(?!B).)* C)` or `(?<=L (?:(?!B).)* C)`: a tempered
look-behind (compiler/passes/lookbehind_reach.py, Barrier) whose head starts with
the literal `L`. It can only match where `L` occurs before the position.
It can also be reported as a partial match with `L` nowhere: when the
repeat `X*` has taken one character or more before a `K` and gives them
back, the module searches forwards for `L` and treats "not found" as the
end of the text (compiler/regex/lookbehind_partial.py). So the branch is
dropped only when the buffer holds no `L` and no `X` character followed by
`K` (the `probe`, a two-character regex). Its tempered look-ahead cannot
reach the end of the text either: the last character of `C` is none of
`B`'s, and every position the repeat crosses lies before it.

The settled patterns keep the other branches and the rest of the pattern
exactly, so at every position they try the same alternatives in the same
order: complete and partial matches, spans and groups are the original's
whenever the facts hold (tests/passes/test_lookbehind_settle.py compares them on
random texts). Without their look-behind walks, the alternatives start
with lead characters and trigger strings again (compiler/passes/branches.py),
so the runtime runs the regex only where one occurs.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, replace

from .fast_path import fast_path_of
from ..ir import Delimiter, Program, RegexDelimiter, SettledDelimiters
from .lookbehind_reach import _has_look_or_anchor, _lookbehinds, _single_repeat, _tempered, barrier_of, dead_head_of
from ..regex.analysis import flat_items, has_lazy, max_length, min_length
from ..regex.charset import set_of
from ..regex.lookbehind_partial import backtrack_literals
from ..regex.nodes import Alt, Category, Char, Class, Concat, Dot, Group, Look, Node, Repeat, walk
from ..regex.syntax import parse, to_source

_SINGLE = (Char, Dot, Category, Class)  # one character each


@dataclass(frozen=True)
class Settled:
    """The smaller patterns of a delimiter and the facts that select them."""

    dead: str  # the pattern without its settled branches (anchored head dead)
    alive: str | None  # the anchored branch as `(?<=T)`, the headed ones dropped; None: no anchored branch
    anchored: str | None  # source of `\\A(?:H)`
    tail: int  # the width of `T`
    absent: tuple[tuple[str, str | None], ...]  # per headed branch: the literal `L`, and the probe or None


def _is_single(node: Node) -> bool:
    return isinstance(node, _SINGLE)


def _anchored(look: Look) -> tuple[str, int, Look] | None:
    """(`\\A(?:H)`, width of T, `(?<=T)`) for `(?<=^H.*T)`, else None."""
    found = dead_head_of(look.body)
    if found is None:
        return None
    items = flat_items(look.body)
    dot = next(
        index
        for index, item in enumerate(items)
        if isinstance(item, Repeat) and item.max is None and flat_items(item.body) == [Dot(True)]
    )
    tail = items[dot + 1 :]
    if not tail or any(_has_look_or_anchor(item) for item in tail):
        return None
    node = Concat(tuple(tail))
    width = max_length(node)
    if width is None or width != min_length(node) or width == 0:
        return None
    if backtrack_literals(look):
        return None  # a forward search for a literal inside it could report a partial match
    return found[0], width, Look(node, behind=True)


def _headed(look: Look) -> tuple[str, str | None] | None:
    """(`L`, probe or None) for a tempered look-behind whose head starts with
    the literal `L`, else None."""
    rule = barrier_of(look.body)
    if rule is None or rule.head is None:
        return None
    items = flat_items(look.body)
    split = max(index for index, item in enumerate(items) if max_length(item) is None)
    barrier = _tempered(items[split])
    right, left = items[split + 1 :], items[:split]
    if not right or not _is_single(right[-1]) or any(char in set_of(right[-1]) for char in barrier):
        return None  # the tempered look-ahead might read up to the end of the text
    quirks = backtrack_literals(look)
    if rule.lead is None:
        if quirks:
            return None
        return rule.head, None
    # `L X* K`: the head is K; the literal before the repeat is L.
    literal = "".join(item.char for item in left[:-2])
    repeat = left[-2]
    if set(quirks) - {id(repeat)} or _single_repeat(repeat) is None:
        return None
    if len(rule.head) != 1:
        return None
    probe = rule.lead + _escape(rule.head) if quirks else None
    return literal, probe


def _escape(char: str) -> str:
    return to_source(Char(char))


def _has_group(node: Node) -> bool:
    return any(isinstance(item, Group) and item.index is not None for item in walk(node))


def settled_of(delim: Delimiter | None) -> Settled | None:
    """The settled patterns of a regex delimiter whose leading alternation
    has anchored or headed look-behind branches (see above), else None."""
    if not isinstance(delim, RegexDelimiter) or delim.ast is None or has_lazy(delim.ast):
        return None
    body = delim.ast.body
    items = list(body.items) if isinstance(body, Concat) else [body]
    if not items:
        return None
    head = items[0]
    alternation = head.body if isinstance(head, Group) and head.index is None else head
    if not isinstance(alternation, Alt):
        return None
    alive_branches: list[Node] = []
    dead_branches: list[Node] = []
    anchored = None
    absent: list[tuple[str, str | None]] = []
    settled_looks = 0
    for branch in alternation.branches:
        branch_items = list(branch.items) if isinstance(branch, Concat) else [branch]
        first = branch_items[0] if branch_items else None
        if isinstance(first, Look) and first.behind and not first.negative and not _has_group(branch):
            found = _anchored(first)
            if found is not None and anchored is None:
                anchored = found
                alive_branches.append(Concat((found[2], *branch_items[1:])))
                settled_looks += 1
                continue
            rule = _headed(first)
            if rule is not None:
                absent.append(rule)
                settled_looks += 1
                continue
        alive_branches.append(branch)
        dead_branches.append(branch)
    looks: list[Look] = []
    _lookbehinds(body, looks)
    if not settled_looks or len(looks) != settled_looks or not dead_branches:
        return None  # another look-behind walks on, or nothing would be left

    def rebuilt(branches: list[Node]) -> str:
        if len(branches) == 1:  # no alternation left: its items lead (so the analyses read its leads)
            branch = branches[0]
            node = Concat((*(branch.items if isinstance(branch, Concat) else (branch,)), *items[1:]))
        else:
            node = Concat((Group(Alt(tuple(branches))), *items[1:]))
        source = to_source(node)
        parse(source)  # the project's grammar reads it back
        return source

    return Settled(
        dead=rebuilt(dead_branches),
        alive=rebuilt(alive_branches) if anchored is not None else None,
        anchored=anchored[0] if anchored is not None else None,
        tail=anchored[1] if anchored is not None else 0,
        absent=tuple(absent),
    )


def settled_delimiter(delim: RegexDelimiter, source: str) -> RegexDelimiter:
    """A settled pattern as a delimiter of its own, with its whole-pattern
    hint (compiler/passes/fast_path.py) when it has one."""
    settled = RegexDelimiter(delim.path, source, delim.group_names, -1, ast=parse(source))
    return replace(settled, hint=fast_path_of(settled))


def _with_settled(delim: Delimiter | None) -> Delimiter | None:
    settled = settled_of(delim)
    if settled is None:
        return delim
    alive = None if settled.alive is None else settled_delimiter(delim, settled.alive)
    facts = SettledDelimiters(
        settled_delimiter(delim, settled.dead), alive, settled.anchored, settled.tail, settled.absent
    )
    return replace(delim, settled=facts)


def plan_settled(program: Program) -> Program:
    """Pass: RegexDelimiter.settled of every open and close delimiter."""
    fields = tuple(
        dataclasses.replace(field, open=_with_settled(field.open), close=_with_settled(field.close))
        for field in program.fields
    )
    return dataclasses.replace(program, fields=fields)
