"""The whole output: the segments between blocks, a state per segment (calls
written, content written), and the blocks and closes leading from one to the next.
A part of `Builder` (build.py), kept apart for its size.
"""

from __future__ import annotations

import json

import regex

from ..ir import Delimiter, Field, LiteralDelimiter, RegexDelimiter
from ..regex import to_source
from ..regex.nodes import Concat, Look
from . import model as m
from . import regexconv as rc
from .binding import Tool
from .schema import WS
from .witness import LETTER, LOOKBEHIND_CONTEXTS, TEXT_AFTER, _close_matches, _compiled, _grown, _nonempty, _reads_name


class OutputRules:
    """`Builder`'s rules for the output as a whole, from `build()` down."""

    # -- the whole output -------------------------------------------------------------
    # Between blocks the parser is back in the implicit region (or the null
    # sink). That stretch is a segment whose rule depends on a state (cs, cd):
    # cs = calls written so far (0 none; 1 some, more allowed; 2 some, no
    # more), cd = a content block was written (a non-repeating one is not
    # written twice). Every block returns to a segment, as the parser
    # returns to the implicit region after every close.

    def build(self) -> m.Grammar:
        self.classify()
        self.low, self.high = self.call_counts()
        reasoning_mode = self.options.reasoning
        if reasoning_mode == "require" and self.reasoning is None:
            raise m.GrammarError(
                "fields", "--reasoning require: the template has no reasoning field with an open delimiter"
            )
        open_now = self.open_region()
        self.end_close = self.implicit.close if self.implicit is not None else None
        self.exclude_all = self.watched_literals()
        self.prepare_calls(self.active_tools() if self.high != 0 else [])
        first = (0, False)
        if open_now is not None:
            if open_now is self.reasoning:
                start = self.block(self.reasoning, first)
            elif open_now is self.content_block:
                start = self.block(self.content_block, (0, True))
            elif open_now is self.tool_field:
                start = self.prefilled_call()
            else:
                raise m.GrammarError(
                    "prefix",
                    f"the prompt leaves field '{open_now.name}' open; the grammar starts only in reasoning or content",
                )
        else:
            options = []
            if (
                self.reasoning is not None
                and reasoning_mode != "forbid"
                and (reasoning_mode == "require" or not self.reasoning_again())
            ):
                rest = self.block(self.reasoning, first)
                for _, opened in self.delimiter_variants(self.reasoning.open, at_start=True):
                    options.append(m.seq(WS, opened, rest))
            if reasoning_mode != "require" or self.reasoning is None:
                first_seg = self.seg(first)
                dead = self.g.rules[first_seg.name]
                if not (isinstance(dead, m.Until) and not dead.exits and not dead.may_end):
                    options.append(first_seg)  # (dead when a call is required and may only open at the start)
                options.extend(self.start_calls)
            start = m.alt(*options)
        self.g.rules = {"start": start, **self.g.rules}
        return self.g

    def watched_literals(self) -> tuple[str, ...]:
        """Literals free text of the implicit region never holds: one of them
        is in every match of a delimiter watched there."""
        watched = [f.open for f in self.program.fields if f.open is not None]
        if self.end_close is not None:
            watched.append(self.end_close)
        exclude: set[str] = set()
        for delim in watched:
            found = self.excluded(delim)
            ends_only = isinstance(delim, RegexDelimiter) and rc.literal_free_branch(self.ast(delim)) is None
            if not found and not ends_only:
                raise m.GrammarError(delim.path, self.no_literal(delim))
            exclude.update(found)
        return tuple(sorted(exclude))

    def no_literal(self, delim: Delimiter) -> str:
        """Why free text cannot be kept from matching a delimiter: the
        variant of its pattern that requires no literal, when there is one."""
        why = "no literal that every match contains: free text cannot be kept from matching it"
        branch = rc.literal_free_branch(self.ast(delim)) if isinstance(delim, RegexDelimiter) else None
        return why if branch is None else f"{why} (the branch `{to_source(branch)}` requires none)"

    def prepare_calls(self, tools: list[Tool]) -> None:
        """Bodies, open groups and witnesses of the calls; `start_calls` for
        opens that only match at the start of the output (llama3)."""
        self.call_tools, self.start_calls = [], []
        if not tools:
            return
        field = self.tool_field
        bodies = {t.name: self.body(t, self.options.parallel) for t in tools}
        if self.binding.name[0] == "content" and field.content == "json" and not self.binding.each and len(tools) > 1:
            # One JSON value for all tools (anyOf): alternatives of embedded
            # schemas would make the engine pick one at the first '{'.
            items = [self.element_schema(t) for t in tools]
            args = json.loads(field.content_args_json) or {}
            shared = m.seq(WS, self.json_value({"anyOf": items}, self.dialect(args)), WS)
            bodies = {t.name: shared for t in tools}
            tools = tools[:1]
        self.call_tools = tools
        self.bodies = bodies
        self.opens = {t.name: self.open_for(t, field.open) for t in tools}
        self.body_witness = {t.name: self.shortest(bodies[t.name]) for t in tools}
        if isinstance(field.open, RegexDelimiter):
            self.start_calls = [
                m.seq(node, self.call_rest(t, (self.next_calls(), False)))
                for t in tools
                for branch in rc.variants(self.ast(field.open))
                if (node := rc.to_node(branch, self.opens[t.name], at_start=True)) is not None
                and rc.to_node(branch, self.opens[t.name], at_start=False) is None
            ]

    def delimiter_variants(self, delim: Delimiter | None, groups=None, *, at_end=False, at_start=False):
        """(regex source or None, node) for each variant of a delimiter."""
        if delim is None:
            return []
        if isinstance(delim, LiteralDelimiter):
            return [(None, m.Lit(lit)) for lit in delim.literals]
        out = []
        for variant in rc.variants(self.ast(delim)):
            node = rc.to_node(variant, groups, at_end=at_end, at_start=at_start)
            if node is not None:
                out.append((to_source(variant), node))
        return out

    def open_variants(self, tool: Tool, groups: dict) -> list[m.Node]:
        """Variants of the call open for `tool` whose witness the open pattern
        reads back with the right name (a word written right after the name
        would otherwise run into it)."""
        field, out = self.tool_field, []
        for source, node in self.delimiter_variants(field.open, groups):
            contexts = LOOKBEHIND_CONTEXTS
            if source is not None:
                contexts += tuple(self.lookbehind_witnesses(rc.ast_of(source)))
            if source is not None and groups:
                group = next(iter(groups))
                matcher = regex.compile(source, regex.DOTALL)
                texts = {self.shortest(node)}
                try:
                    texts.add(_grown(node))
                except TypeError:
                    pass
                if not any(
                    all(_reads_name(matcher, text, group, tool.name, before) for text in texts) for before in contexts
                ):
                    continue
            out.append(node)
        return out

    def lookbehind_witnesses(self, variant) -> list[str]:
        """Shortest texts a leading look-behind of a variant accepts."""
        out = []
        for item in rc._items(variant):
            if isinstance(item, Look) and item.behind and not item.negative:
                node = rc.to_node(item.body, at_start=True, at_end=True)
                if node is not None:
                    out.append(self.shortest(node))
            elif not rc.conditional_empty(item):
                break
        return out

    # -- states ------------------------------------------------------------------------
    def calls_allowed(self, cs: int) -> bool:
        return bool(self.call_tools) and cs in (0, 1)

    def next_calls(self) -> int:
        return 1 if self.high is None else 2

    def may_end(self, cs: int) -> bool:
        return self.low == 0 or cs > 0

    def content_allowed(self, cd: bool) -> bool:
        return self.content_block is not None and (not cd or self.content_block.repeats)

    def reasoning_again(self) -> bool:
        return self.reasoning is not None and self.reasoning.repeats and self.options.reasoning != "forbid"

    def state_name(self, state, suffix: str = "") -> str:
        cs, cd = state
        return (
            ("before_calls", "after_call", "calls_done")[cs]
            + ("_content_done" if cd and self.content_block else "")
            + suffix
        )

    def _rule(self, name: str, make) -> m.Ref:
        """A named rule built once; a placeholder while it is built breaks cycles."""
        if name not in self.g.rules:
            self.g.rules[name] = m.EMPTY
            self.g.rules[name] = make()
        return m.Ref(name)

    def entries(self, state) -> list[tuple]:
        """What may open from the segment of `state`: (delimiter, groups,
        node after it, witness of what follows it, at_end, whole variants)."""
        cs, cd = state
        out = []
        if self.calls_allowed(cs):
            for t in self.call_tools:
                groups = self.opens[t.name]
                out.append(
                    (
                        self.tool_field.open,
                        groups,
                        self.call_rest(t, (self.next_calls(), cd)),
                        self.body_witness[t.name],
                        False,
                        self.open_variants(t, groups),
                    )
                )
        if self.content_allowed(cd):
            block = self.block(self.content_block, (cs, True))
            out.append(
                (
                    self.content_block.open,
                    None,
                    block,
                    "x",
                    False,
                    [n for _, n in self.delimiter_variants(self.content_block.open)],
                )
            )
        if self.reasoning_again():
            block = self.block(self.reasoning, state)
            out.append(
                (
                    self.reasoning.open,
                    None,
                    block,
                    "x",
                    False,
                    [n for _, n in self.delimiter_variants(self.reasoning.open)],
                )
            )
        if self.may_end(cs) and self.end_close is not None:
            # After the implicit field's close the parser is back in the same
            # region (ernie45 closes content with `</response>`, then calls):
            # so is the grammar. Variants that need the end of the output
            # (`\s*$`) end it.
            out.append(
                (
                    self.end_close,
                    None,
                    self.seg(state),
                    "x",
                    False,
                    [n for _, n in self.delimiter_variants(self.end_close)],
                )
            )
            out.append(
                (
                    self.end_close,
                    None,
                    m.EMPTY,
                    "",
                    True,
                    [n for _, n in self.delimiter_variants(self.end_close, at_end=True)],
                )
            )
        return out

    def call_rest(self, tool: Tool, state) -> m.Ref:
        """A call's body after its open, its close, then the segment of `state`."""
        index = self.call_tools.index(tool)
        ref = self._rule(
            f"call_{index}_{self.state_name(state)}", lambda: m.seq(self.bodies[tool.name], self.after_call(state))
        )
        self.call_bodies[ref] = self.body_witness[tool.name]
        return ref

    def open_not_closing(self, variant: m.Node, then: m.Node, before: str) -> m.Node | None:
        """A call open written right after a call's close, narrowed so that
        the close does not match again at once (minimax_m1's zero-width close
        `(?<=\\})(?=\\s*\\{"name")` and open `(?<=\\})\\s*` read `}{` as an
        empty call body): an optional leading run becomes required, or the
        variant is dropped (None)."""
        body = self.call_bodies.get(then)
        field = self.tool_field
        if body is None or not isinstance(field.close, RegexDelimiter):
            return variant
        close = _compiled(to_source(self.ast(field.close)))

        def closes_at_once(node: m.Node) -> bool:
            written = before + self.shortest(node)
            return close.match(written + body, len(written)) is not None

        if not closes_at_once(variant):
            return variant
        narrowed = _nonempty(variant)
        if narrowed is None or closes_at_once(narrowed):
            return None
        return narrowed

    def direct(self, state) -> list[tuple[str | None, m.Node, m.Node]]:
        """The segment's continuations written with no text first: (witness or
        None for the end of the output, delimiter variant, node after it)."""
        out = []
        for _, _, then, after_w, at_end, variants in self.entries(state):
            for variant in variants:
                # Right after a close, the end of turn ends the output (text
                # after it, allowed after free text, confuses greedy lexers).
                out.append((self.shortest(variant) + after_w, variant, m.EMPTY if at_end else then))
        if self.may_end(state[0]):
            out.append((None, m.EMPTY if self.implicit is not None else self.null_end(), m.EMPTY))
        return out

    def grouped(self, found: list[tuple[m.Node, m.Node]]) -> list[m.Node]:
        """(variant, then) pairs as one alternative per `then`."""
        by_then: dict[m.Node, list[m.Node]] = {}
        for variant, then in found:
            by_then.setdefault(then, []).append(variant)
        return [m.seq(self.shared(variants), then) for then, variants in by_then.items()]

    def seg(self, state, must_exit: bool = False) -> m.Ref:
        """Implicit-region text (or dropped whitespace) up to the next block,
        the end of turn or (when the state allows) the end of the output."""

        def make():
            entries = self.entries(state)
            may_end = self.may_end(state[0]) and not must_exit
            if self.implicit is not None:
                exits = []
                for delim, groups, then, after_w, at_end, _ in entries:
                    exits += self.exits(delim, then, groups, at_end=at_end, follow=after_w)
                return m.Until(self.exclude_all, tuple(_merge_exits(exits)), may_end)
            if not may_end:
                # Calls last: where the output may not end yet, a call is what
                # leads to an end (the option that ends a loop comes last).
                calls = [e for e in entries if e[0] is self.tool_field.open and e[1] is not None]
                entries = [e for e in entries if not any(e is c for c in calls)] + calls
            whole = [
                m.seq(WS, node)
                for node in self.grouped([(v, then) for _, _, then, _, _, variants in entries for v in variants])
            ]
            if may_end:
                whole.append(self.null_end())
            return m.alt(*whole) if whole else m.EMPTY

        return self._rule(self.state_name(state, "_then_block" if must_exit else ""), make)

    def close_variants(self, delim: Delimiter):
        """(regex source or None, node before more text, node at the end of the output, witness)."""
        if isinstance(delim, LiteralDelimiter):
            return [(None, m.Lit(lit), m.Lit(lit), lit) for lit in delim.literals]
        out = []
        for variant in rc.variants(self.ast(delim)):
            mid, end = rc.to_node(variant), rc.to_node(variant, at_end=True)
            if mid is None and end is None:
                continue
            out.append((to_source(variant), mid, end, self.shortest(end if end is not None else mid)))
        return out

    def after_call(self, state) -> m.Ref:
        """A call's close, then the segment of `state`. A close that matches
        before any text (look-arounds checked on witnesses) leads to free
        text; one that looks ahead at the next block leads to that block."""

        def make():
            field = self.tool_field
            if field.close is None:
                return m.EMPTY  # the call runs to the end of the output
            witness = self.body_witness[self.call_tools[0].name]
            cs = state[0]
            universal, specific, at_eos, universal_texts = [], [], [], []
            direct = self.direct(state)
            for source, mid, end, text in self.close_variants(field.close):
                valid = lambda follow: source is None or _close_matches(source, witness, text, follow)
                if mid is not None and self.implicit is not None:
                    if all(map(valid, TEXT_AFTER)) and (not self.may_end(cs) or valid(None)):
                        universal.append(m.seq(mid, self.seg(state)))
                        universal_texts.append(text)
                        continue
                    if valid("\nx"):
                        specific.append((text, m.seq(mid, m.Lit("\n"), LETTER, self.seg(state))))
                found = []
                for follow, variant, then in direct:
                    if follow is None:
                        if end is not None and valid(None):
                            if self.implicit is not None:
                                at_eos.append((text, end))
                                continue
                            # The turn's end literals after the close (`<|end|>`)
                            # only where the close still matches before them
                            # (gpt_oss: `<|call|>` then only whitespace).
                            tails = [
                                v
                                for v in (variant.items if isinstance(variant, m.Alt) else (variant,))
                                if valid(self.shortest(v) or None)
                            ]
                            if tails:
                                at_eos.append((text, m.seq(end, m.alt(*tails))))
                    elif mid is not None and valid(follow):
                        variant = self.open_not_closing(variant, then, witness + text)
                        if variant is not None:
                            found.append((variant, then))
                specific.extend((text, m.seq(mid, node)) for node in self.grouped(found))
                if mid is not None and self.implicit is not None and source is not None:
                    # Checked after a long run of the whitespace a body may end
                    # in, too: a look-behind bounding it (`\s{0,8}`) is not kept.
                    grown = lambda follow: valid(follow) and _close_matches(source, witness + " " * 40, text, follow)
                    specific.extend((text, m.seq(mid, node)) for node in self.text_then_block(source, direct, grown))
            # A close that writes what a close followed by free text writes
            # (and more) is left out: a greedy lexer would take the longer
            # one and never see the text.
            kept = [node for text, node in specific + at_eos if not any(text.startswith(u) for u in universal_texts)]
            options = kept + universal  # the ones that lead to the end last (random walks end on them)
            if not options:
                raise m.GrammarError(
                    field.close.path, "no variant of the close matches before anything the grammar can write next"
                )
            return m.alt(*options)

        return self._rule("close_" + self.state_name(state), make)

    def text_then_block(self, source: str, direct, valid) -> list[m.Node]:
        r"""After a close that looks ahead at free text, then a block or the
        end of turn (qwen3_5's `(?=\s*[^\s<][^<]*(?:<tool_call>|<\|im_end\|>))`):
        that text, then what the literal opens. The text is the look-ahead's
        own (its characters start no watched literal, so the parser reads it
        as free text), and the close is checked on its witness."""
        items = rc._items(rc.ast_of(source))
        if not items or not isinstance(items[-1], Look) or items[-1].behind or items[-1].negative:
            return []
        ahead = rc._items(items[-1].body)
        if len(ahead) < 2:
            return []
        literals = [rc.to_node(branch) for branch in rc.branches(ahead[-1])]
        text = rc.to_node(Concat(tuple(ahead[:-1])))
        if text is None or not literals or not all(isinstance(lit, m.Lit) for lit in literals):
            return []
        if not self.exclude_all or _reads_any(text, {lit[0] for lit in self.exclude_all}):
            return []
        written = self.shortest(text)
        found = [
            (variant, then)
            for follow, variant, then in direct
            if follow is not None and any(follow.startswith(lit.text) for lit in literals) and valid(written + follow)
        ]
        return [m.seq(text, node) for node in self.grouped(found)]

    def block(self, field: Field, state) -> m.Ref:
        """The body of a text field up to its close, then the segment of
        `state` (or the end of the output, which closes the region, when the
        state may end). A close that only looks ahead at the next block
        (`(?=\\s*<tool_call>)`) ends the text at that block's trigger."""

        def make():
            if field.close is None:
                return m.Until((), (), True)
            if isinstance(field.close, LiteralDelimiter):
                exits = list(self.exits(field.close, self.seg(state)))
            else:
                exits = []
                for variant in rc.variants(self.ast(field.close)):
                    found = rc.splits(variant)
                    if found is None:
                        continue
                    if not rc.ends_in_lookahead(variant):
                        exits += self.variant_exits(variant, self.seg(state))
                        continue
                    # A literal then a look-ahead at the next block
                    # (`<calls>(?=\s*<invoke)`): that block follows at once.
                    matcher = regex.compile(to_source(variant), regex.DOTALL)
                    for trigger, post in self.variant_exits(variant, m.EMPTY):
                        written = trigger + self.shortest(post)
                        for follow, node, then in self.direct(state):
                            hit = None if follow is None else matcher.match(written + follow)
                            if hit is not None and hit.end() == len(written):
                                exits.append((trigger, m.seq(post, node, then)))
            if isinstance(field.close, RegexDelimiter):
                for variant in rc.variants(self.ast(field.close)):
                    if rc.splits(variant) is not None:
                        continue
                    matcher = regex.compile(to_source(variant), regex.DOTALL)
                    for delim, groups, then, after_w, at_end, _ in self.entries(state):
                        rests: dict[str, list[m.Node]] = {}
                        for trigger, post in self.split_parts(delim, groups, at_end=at_end, follow=after_w):
                            hit = matcher.match(trigger + self.shortest(post) + after_w)
                            if hit is not None and hit.end() == 0:
                                rests.setdefault(trigger, []).append(post)
                        exits += [(trigger, m.seq(self.shared(posts), then)) for trigger, posts in rests.items()]
            if not exits:
                raise m.GrammarError(field.close.path, self.no_literal(field.close))
            return m.Until(tuple(sorted({t for t, _ in exits})), tuple(_merge_exits(exits)), self.may_end(state[0]))

        return self._rule(f"{field.name}_then_{self.state_name(state)}", make)

    def variant_exits(self, variant, then: m.Node) -> list[tuple[str, m.Node]]:
        """(trigger, rest + `then`) for one variant of a close that ends text."""
        out = []
        for s in rc.splits(variant) or []:
            if s.start_only or any(isinstance(item, Look) and item.behind and not item.negative for item in s.pre):
                continue
            post = rc.to_node(Concat(s.post))
            if post is not None:
                out.append((s.trigger, m.seq(post, then)))
        return out

    def split_parts(
        self, delim: Delimiter, groups=None, *, at_end=False, follow: str | None = None
    ) -> list[tuple[str, m.Node]]:
        """(trigger, rest) for each way a delimiter starts with a literal
        (what comes before it is absorbed by the free text). With `follow`
        (a witness of the call body after a call open), a way is kept only
        when the open reads it back before that body with the tool's name
        (its look-ahead may need a body the grammar does not write)."""
        if isinstance(delim, LiteralDelimiter):
            found = [(None, s) for s in self.split(delim)]
        else:
            found = [(branch, s) for branch in rc.variants(self.ast(delim)) for s in (rc.splits(branch) or [])]
        names = {g: n.text for g, n in (groups or {}).items() if isinstance(n, m.Lit)}
        out = []
        for branch, s in found:
            if s.start_only or any(isinstance(item, Look) and item.behind and not item.negative for item in s.pre):
                continue  # only at the start, or only after a given character: not after free text
            post = rc.to_node(Concat(s.post), groups, at_end=at_end)
            if post is None:
                continue
            if follow is not None and names and branch is not None:
                matcher = _compiled(to_source(branch))
                texts = {s.trigger + self.shortest(post)}
                try:
                    texts.add(s.trigger + _grown(post))
                except TypeError:
                    pass
                hits = [(text, matcher.match(text + follow)) for text in texts]
                if not all(
                    hit is not None and hit.end() == len(text) and all(hit.group(g) == v for g, v in names.items())
                    for text, hit in hits
                ):
                    continue
            out.append((s.trigger, post))
        return out

    def null_end(self) -> m.Node:
        """Without an implicit field, the content block's close literals may
        still end the turn (the parser drops them)."""
        if self.content_block is not None and self.content_block.close is not None:
            end = self.full(self.content_block.close, at_end=True)
            if end is not None:
                return m.alt(m.seq(WS, end, WS), WS)
        return WS

    def tail(self) -> m.Ref:
        """After an end-of-turn close the parser reads text again: allow more
        text and closes, but no more blocks."""

        def make():
            exits = self.exits(self.end_close, m.Ref("tail"), at_end=True)
            return m.Until(self.exclude_all, tuple(_merge_exits(exits)), True)

        return self._rule("tail", make)


def _reads_any(node: m.Node, chars: set[str]) -> bool:
    """A regular node may read one of `chars` (True where it cannot tell)."""
    if isinstance(node, m.Lit):
        return any(c in chars for c in node.text)
    if isinstance(node, m.Chars):
        return any(c in node.chars for c in chars)
    if isinstance(node, (m.Seq, m.Alt, m.Rep)):
        return any(_reads_any(child, chars) for child in m.children(node))
    return True


def _merge_exits(exits: list[tuple[str, m.Node]]) -> list[tuple[str, m.Node]]:
    """One exit per trigger. A trigger that extends a shorter one
    (`<|X|>calls>` after `<|X|>`) becomes the rest of the shorter one's exit:
    text ends at the first of them anyway, and a lazy lexer would stop at
    the shorter one and lose the longer."""
    triggers = {t for t, _ in exits}
    merged: dict[str, list[m.Node]] = {}
    for trigger, node in exits:
        shorter = [t for t in triggers if t != trigger and trigger.startswith(t)]
        if shorter:
            base = min(shorter, key=len)
            node, trigger = m.seq(m.Lit(trigger[len(base) :]), node), base
        merged.setdefault(trigger, []).append(node)
    return [(t, m.alt(*nodes)) for t, nodes in merged.items()]
