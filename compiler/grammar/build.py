"""Template IR + tools + options -> the grammar (model.py) of what the model may write.

The output is read in the parser's own terms: blocks (an explicit field's
open, body and close) separated by text of the implicit region (or, without
one, whitespace that the parser drops). The grammar writes them in one
canonical order: reasoning, then content, then tool calls, then the
end-of-turn close. Free text stops at the first occurrence of any literal
that every match of a watched delimiter contains, so it can never hold one.
Conditions a grammar cannot state (look-arounds) are checked on witness
strings with the `regex` module: a call's close is only used before what its
look-ahead accepts.

The builder is in four modules besides this one: binding.py (tools, options,
where a call's name and arguments come from), witness.py (witness strings),
bodies.py (call bodies) and output.py (the whole output); this module keeps
the `Builder` class and the names other modules import.
"""

from __future__ import annotations

import json

import regex

from ..ir import Delimiter, Field, LiteralDelimiter, Program, RegexDelimiter
from ..regex import to_source
from . import model as m
from . import regexconv as rc
from .binding import REASONING, TOOL_CHOICES, Binding, Options, Tool, binding_of, normalize_tools
from .bodies import CallBodies
from .output import OutputRules
from .schema import Expander
from .witness import _pick

__all__ = ["REASONING", "TOOL_CHOICES", "Binding", "Builder", "Options", "Tool", "binding_of", "normalize_tools"]


class Builder(CallBodies, OutputRules):
    """The grammar of a template's output for given tools and options: `build()`.

    Here: witnesses, delimiters, the template's fields and the call counts; the
    rules for call bodies are in bodies.py, those for the whole output in output.py.
    """

    def __init__(self, program: Program, template: dict, tools: list[Tool], options: Options, fmt: str):
        self.program = program
        self.template = template
        self.tools = tools
        self.options = options
        self.fmt = fmt
        self.g = m.Grammar()
        self.call_bodies: dict[m.Ref, str] = {}  # call_rest rule -> witness of its body
        self._shortest: dict[str, str] = {}

    # -- witnesses -----------------------------------------------------------
    def shortest(self, node: m.Node, depth: int = 0) -> str:
        if depth > 60:
            raise RecursionError
        if isinstance(node, m.Lit):
            return node.text
        if isinstance(node, m.Chars):
            return _pick(node.chars)
        if isinstance(node, m.Seq):
            return "".join(self.shortest(item, depth + 1) for item in node.items)
        if isinstance(node, m.Alt):
            best = None
            for item in node.items:
                try:
                    text = self.shortest(item, depth + 1)
                except RecursionError:
                    continue
                if best is None or len(text) < len(best):
                    best = text
            if best is None:
                raise RecursionError
            return best
        if isinstance(node, m.Rep):
            return self.shortest(node.body, depth + 1) * node.min if node.min else ""
        if isinstance(node, m.Ref):
            if node.name not in self._shortest:
                self._shortest[node.name] = self.shortest(self.g.rules[node.name], depth + 1)
            return self._shortest[node.name]
        if isinstance(node, m.Json):
            scratch = Expander(m.Grammar(), "witness")
            value = scratch.value(json.loads(node.schema), "schema")
            saved, self.g = self.g, scratch.grammar
            try:
                return self.shortest(value, depth + 1)
            finally:
                self.g = saved
        if isinstance(node, m.Until):
            if node.may_end:
                return ""
            trigger, exit = node.exits[0]
            return trigger + self.shortest(exit, depth + 1)
        raise TypeError(node)

    # -- delimiters ------------------------------------------------------------
    def ast(self, delim: RegexDelimiter):
        if delim.ast is None:
            raise m.GrammarError(delim.path, "the pattern is outside the compiler's regex grammar (see `check`)")
        return delim.ast.body

    def full(self, delim: Delimiter, groups=None, *, at_end=False, at_start=False) -> m.Node | None:
        if isinstance(delim, LiteralDelimiter):
            return m.alt(*(m.Lit(lit) for lit in delim.literals))
        return rc.to_node(self.ast(delim), groups, at_end=at_end, at_start=at_start)

    def split(self, delim: Delimiter) -> list[rc.Split] | None:
        if isinstance(delim, LiteralDelimiter):
            return [rc.Split((), lit, ()) for lit in delim.literals]
        return rc.splits(self.ast(delim))

    def excluded(self, delim: Delimiter | None) -> list[str]:
        if delim is None:
            return []
        if isinstance(delim, LiteralDelimiter):
            return list(delim.literals)
        return rc.required_literals(self.ast(delim))

    def exits(
        self, delim: Delimiter, then: m.Node, groups=None, *, at_end=False, follow=None
    ) -> list[tuple[str, m.Node]]:
        """(trigger, rest of the delimiter + `then`) for text that `delim` ends;
        the rests after one trigger become one shared rule."""
        rests: dict[str, list[m.Node]] = {}
        for trigger, post in self.split_parts(delim, groups, at_end=at_end, follow=follow):
            rests.setdefault(trigger, []).append(post)
        return [(trigger, m.seq(self.shared(posts), then)) for trigger, posts in rests.items()]

    def shared(self, nodes: list[m.Node]) -> m.Node:
        """Alternatives of a delimiter's variants, a rule of their own when
        they are many (the same rule wherever the delimiter is written)."""
        node = m.alt(*nodes)
        return self.g.add("delimiter", node) if len(set(nodes)) > 2 else node

    def close_for(self, field: Field, body_witness: str, follow: str | None) -> m.Node | None:
        """The close of `field` usable before `follow` (a witness of what comes
        next; None: the end of the output)."""
        delim = field.close
        if delim is None:
            return m.EMPTY if follow is None else None
        at_end = follow is None
        if isinstance(delim, LiteralDelimiter):
            return self.full(delim)
        options = []
        for branch in rc.variants(self.ast(delim)):
            node = rc.to_node(branch, at_end=at_end)
            if node is None:
                continue
            text = self.shortest(node)
            matcher = regex.compile(to_source(branch), regex.DOTALL)
            subject = body_witness + text + (follow or "")
            found = matcher.match(subject, len(body_witness))
            if found is not None and found.end() == len(body_witness) + len(text):
                options.append(node)
        if not options:
            return m.EMPTY if at_end else None  # the end of the output closes the region
        return m.alt(*options)

    # -- fields ------------------------------------------------------------------
    def classify(self):
        p = self.program
        self.implicit = p.fields[p.implicit] if p.implicit is not None else None
        self.tool_field = next((f for f in p.fields if binding_of(f) is not None), None)
        self.binding = binding_of(self.tool_field) if self.tool_field else None
        self.reasoning = next(
            (f for f in p.fields if f.name in ("reasoning_content", "reasoning", "thinking") and f.open is not None),
            None,
        )
        self.content_block = next(
            (f for f in p.fields if f.name == "content" and f.open is not None and f is not self.implicit), None
        )
        if self.implicit is not None and self.implicit.content != "text":
            raise m.GrammarError(self.implicit.path + ".content", "an implicit field whose content is not text")

    def open_region(self) -> Field | None:
        """The explicit field the prefix leaves open, if any."""
        if not self.options.prefix:
            return None
        from ..pipeline import compile_template

        module = compile_template(self.template)
        parser = module.ResponseParser(self.options.prefix)
        current = None
        # A regex open that ends the prompt is held back until more text
        # arrives: one neutral character commits it.
        for event in list(parser.initial_events) + list(parser.feed("x")):
            if event["type"] == "region_open":
                current = event["field"]
            elif event["type"] == "region_close":
                current = None
        self.prefix_captures = dict(getattr(parser, "captures", None) or {})
        field = next((f for f in self.program.fields if f.name == current), None)
        return None if field is None or field is self.implicit else field

    def prefilled_call(self) -> m.Node:
        """The rest of a call whose open the prompt wrote (`{"name": "f",
        "parameters": `): its body for the tool the open names, then what
        follows a call."""
        if not self.call_tools:
            raise m.GrammarError(
                "prefix", "the prompt opens a tool call, but no call may be written (tool_choice or tools)"
            )
        tool = self.call_tools[0]
        if self.binding.name[0] == "capture":
            name = self.prefix_captures.get(self.binding.name[1][0])
            tool = next((t for t in self.call_tools if t.name == name), None)
            if tool is None:
                raise m.GrammarError("prefix", f"the prompt opens a call of {name!r}, which is not a tool allowed here")
        return self.call_rest(tool, (self.next_calls(), False))

    # -- tool calls ----------------------------------------------------------------
    def call_counts(self) -> tuple[int, int | None]:
        choice = self.options.tool_choice
        if choice == "none" or self.tool_field is None or not self.tools:
            if choice not in TOOL_CHOICES[:3] or choice == "required":
                if self.tool_field is None:
                    raise m.GrammarError("fields", "the template has no tool-call field (a transform with 'function')")
                raise m.GrammarError("tools", f"tool_choice {choice!r} needs tools")
            return 0, 0
        low = 0 if choice == "auto" else 1
        high = None if self.options.parallel else 1
        if self.binding.each or not self.tool_field.repeats:
            high = 1 if high is None or high >= 1 else high  # one block (holding a list when `each`)
        return low, high

    def active_tools(self) -> list[Tool]:
        choice = self.options.tool_choice
        if choice in TOOL_CHOICES:
            return self.tools
        chosen = [t for t in self.tools if t.name == choice]
        if not chosen:
            raise m.GrammarError(
                "tool_choice", f"{choice!r} is not the name of a tool ({[t.name for t in self.tools]})"
            )
        return chosen
