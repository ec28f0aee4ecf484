"""JavaScript backend: IR -> an ES module of tables over runtime/js/.

The module (`<name>.mjs`) holds the template's data: fields, literal
delimiters, regex delimiters as pattern trees the runtime's matcher runs
(JavaScript's RegExp has no partial matching, and its `\\w`, `\\s`, case
folding differ from Python's), watch sets and defaults. `<name>.d.mts`
declares its API. With `vendor`, the runtime is copied beside it.
"""

from __future__ import annotations

import json
from pathlib import Path

import jinja2

from ...version import __version__
from ...errors import Problem, TemplateError, json_path
from ...ir import OPEN, LiteralDelimiter, Program, RegexDelimiter, TDict, TList, TLiteral, TPlaceholder, Transform
from ...regex import RegexSyntaxError, parse
from ...regex.charset import CharSet, set_of

# Regex-emission helpers, run while rendering a regex tree (the attempt entry
# set, the literals a repeat gives back, what the matcher cannot reproduce):
# part of rendering a regex AST, so they stay in the backend. Every fact
# about the template's delimiters and states is read off the IR.
from ...regex.automaton import partial_problem
from ...regex.emit import js_problems
from ...regex.lazy_partial import char_alternation, lazy_lead, opens_lazily, repeat_strings
from ...regex.required_partial import required_string
from ...regex.lookbehind_partial import attempt_entry
from ...regex.nodes import (
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
    Regex,
    Repeat,
    root_of,
)
from ...resources import GENERATED_DIR, RUNTIME_DIR as RUNTIMES
from ..literals import js_literal, js_string

DEFAULT_OUT = GENERATED_DIR / "js"
RUNTIME_DIR = RUNTIMES / "js"
RUNTIME_PACKAGE = "response-template-runtime"
VENDOR_DIR = RUNTIME_PACKAGE  # where --vendor puts the runtime, beside the module
RUNTIME_FILES = (
    "index.mjs",
    "content.mjs",
    "typing.mjs",
    "driver.mjs",
    "recover.mjs",
    "whole.mjs",
    "regex.mjs",
    "regex_parts.mjs",
    "regex_search.mjs",
    "pyjson.mjs",
    "unicode.mjs",
    "index.d.mts",
    "package.json",
    "README.md",
)

_env = jinja2.Environment(
    loader=jinja2.FileSystemLoader(Path(__file__).parent),
    undefined=jinja2.StrictUndefined,
    trim_blocks=True,
    lstrip_blocks=True,
    keep_trailing_newline=True,
    autoescape=False,
)

_ANCHOR_CODES = {BOS: 0, START: 0, END: 1, EOS: 2, WORD_BOUNDARY: 3, NOT_WORD_BOUNDARY: 4, LINE_START: 5, LINE_END: 6}


class _Sets:
    """Character sets hoisted to module constants (`\\w` appears many times)."""

    def __init__(self) -> None:
        self.names: dict[CharSet, str] = {}

    def name(self, chars: CharSet) -> str:
        if chars not in self.names:
            self.names[chars] = f"SET_{len(self.names)}"
        return self.names[chars]

    def constants(self) -> list[dict]:
        return [
            {"var": var, "code": "[" + ",".join(f"{lo},{hi}" for lo, hi in chars.ranges) + "]"}
            for chars, var in self.names.items()
        ]


def _tree(node: Node, sets: _Sets, give_back: dict[int, str] | None = None) -> str:
    """The runtime's pattern tree (runtime/js/regex.mjs) as JavaScript source.
    `give_back` (lazy_partial.repeat_strings): repeats that carry the literal
    the `regex` module searches for when they give back, or a lazy tail's test."""
    if give_back is None:
        give_back = repeat_strings(node)

    def tree(node: Node) -> str:
        if isinstance(node, (Char, Dot, Category, Class)):
            return f"[0, {sets.name(set_of(node))}]"
        if isinstance(node, Concat):
            return "[1, [" + ", ".join(tree(item) for item in node.items) + "]]"
        if isinstance(node, Alt):
            return "[2, [" + ", ".join(tree(item) for item in node.branches) + "]]"
        if isinstance(node, Group):
            if node.index is None:
                return tree(node.body)
            return f"[3, {node.index}, {js_literal(node.name)}, {tree(node.body)}]"
        if isinstance(node, Repeat):
            high = -1 if node.max is None else node.max
            literal = ""
            if id(node) in give_back:
                literal = ", " + _literal_code(give_back[id(node)], sets)
            chars = char_alternation(node.body) if node.lazy else None  # the module's set (lazy_partial)
            body = f"[0, {sets.name(chars)}]" if chars is not None else tree(node.body)
            return f"[4, {node.min}, {high}, {int(node.lazy)}, {body}{literal}]"
        if isinstance(node, Anchor):
            return f"[5, {_ANCHOR_CODES[node.kind]}]"
        if isinstance(node, Look):
            return f"[6, {int(node.behind)}, {int(node.negative)}, {tree(node.body)}]"
        raise TypeError(f"not a regex node: {node!r}")

    return tree(node)


def _literal_code(literal: str | tuple, sets: _Sets) -> str:
    """A literal the matcher searches for: a string, or ignoring case (a
    tuple of character sets) an array of each character's cases."""
    if isinstance(literal, tuple):
        return "[" + ", ".join(sets.name(chars) for chars in literal) + "]"
    return js_string(literal)


def _required_code(required, sets: _Sets) -> str:
    """[string, offset, starts, ahead, aheadAt, minWidth] for the matcher
    (required_partial.Required)."""
    starts = "null" if required.starts is None else sets.name(required.starts)
    ahead = "null" if required.ahead is None else _literal_code(required.ahead, sets)
    return (
        f"[{_literal_code(required.literal, sets)}, {required.offset}, {starts}, {ahead}, "
        f"{required.ahead_at}, {required.min_width}]"
    )


def regex_code(ast: Regex, source: str, path: str, origin: str, sets: _Sets, hint=None, ends=()) -> str:
    """`new Regex(...)` for a parsed pattern, or TemplateError naming `path`.
    `hint` (analysis.FastPath of a delimiter): complete matches are searched
    only where its trigger strings occur; `ends` (RegexDelimiter.ends): no
    complete match is looked for in a text without one of them."""
    problems = js_problems(ast)
    if problems:
        raise TemplateError([Problem(path, f"cannot compile for JavaScript: {p}") for p in problems], origin)
    root = root_of(ast)
    first = attempt_entry(root)
    entry = "null" if first is None else sets.name(first)
    lead = first_lead(root)
    lazy = lazy_lead(root)
    required = required_string(root)
    if opens_lazily(root) or required is not None:
        hint = None  # where the module attempts matches decides (lazy_partial.opens_lazily, required_string)
    tree = _tree(root, sets)
    optional = [
        None if hint is None else _hint_code(hint, sets, ends),
        None if lead is None else sets.name(lead),
        None if lazy is None else f"[{sets.name(lazy[0])}, {lazy[1]}]",
        None if required is None else _required_code(required, sets),
    ]
    while optional and optional[-1] is None:
        optional.pop()
    args = [js_string(source), tree, entry] + ["null" if arg is None else arg for arg in optional]
    return f"new Regex({', '.join(args)})"


def first_lead(root: Node) -> CharSet | None:
    """The class of a greedy, unbounded one-character repeat the pattern
    starts with (the `\\s` of `\\s*<tool_call>`): an attempt from inside a
    run of it reads a subset of what the attempt from the run's start reads,
    so only the run's first position needs trying (the Python runtime's
    `Pattern.first_lead`)."""
    head = root.items[0] if isinstance(root, Concat) and root.items else root
    if not isinstance(head, Repeat) or head.max is not None or head.lazy:
        return None
    if not isinstance(head.body, (Char, Dot, Category, Class)):
        return None
    return set_of(head.body)


def _hint_code(hint, sets: _Sets, ends=()) -> str:
    leads = CharSet()
    for lead in hint.leads:
        leads = leads | set_of(root_of(parse(lead.source)))
    shown = sets.name(leads) if hint.leads else "null"
    closing = f", ends: {js_literal(list(ends))}" if ends else ""
    return f"{{ triggers: {js_literal(list(hint.triggers))}, leads: {shown}{closing} }}"


def _hold_lead_code(program: Program, state, sets: _Sets) -> str | None:
    """A state's hold lead (State.hold_lead, decided as the Python backend
    plans it: whole patterns, else their alternatives): while the held text
    and new text are all of that class and hold none of the state's trigger
    characters, no delimiter can match and the partial match of the
    delimiter that starts with an unbounded repeat of the class stays at the
    read position, so such text is held without a search. States with
    alternatives read by their look-behind (`(?<=\\})\\s*\\Z`) get none: those
    could match right after the character before the read position."""
    if state.hold_lead is None:
        return None
    plan = state.search_plan
    lead = set_of(root_of(parse(state.hold_lead.source)))
    # Only trigger characters of the class can occur in text that is all of it.
    inside = [trigger for trigger in plan.triggers if ord(trigger) in lead]
    return f"{{ lead: {sets.name(lead)}, triggers: {js_literal(inside)} }}"


def _parsed(pattern: str, path: str, origin: str) -> Regex:
    try:
        return parse(pattern)
    except RegexSyntaxError as error:
        raise TemplateError([Problem(path, f"regex outside the grammar the JavaScript backend runs: {error}")], origin)


def _delimiter_code(delim, origin: str, sets: _Sets) -> str:
    if isinstance(delim, LiteralDelimiter):
        grows = ", { growsAtEdge: true }" if delim.grows_at_edge else ""
        return f"new Literals({js_literal(list(delim.literals))}{grows})"
    assert isinstance(delim, RegexDelimiter)
    ast = delim.ast if delim.ast is not None else _parsed(delim.pattern, delim.path, origin)
    return regex_code(ast, delim.pattern, delim.path, origin, sets, hint=delim.hint, ends=delim.ends)


def _watched_code(delim, origin: str, sets: _Sets) -> str:
    """An open or close delimiter: searched with partial matching, so the
    `regex` module's own partial rules must be ones the matcher reproduces.
    A pattern the whole-pattern analysis gives up on is searched by its
    alternatives' trigger strings when they bound it (as in the Python
    backend; not when an alternative is read by its look-behind)."""
    if isinstance(delim, RegexDelimiter) and delim.ast is not None:
        why = partial_problem(delim.ast, ports=True)
        if why:
            raise TemplateError([Problem(delim.path, f"cannot compile for JavaScript: {why}")], origin)
        if delim.hint is None and not opens_lazily(delim.ast):
            branches = delim.branches
            if branches is not None and not branches.behind:
                return regex_code(delim.ast, delim.pattern, delim.path, origin, sets, hint=branches, ends=delim.ends)
    return _delimiter_code(delim, origin, sets)


def _content_regexes(args: object, path: str, origin: str, sets: _Sets, out: dict[str, str]) -> None:
    """xml-inline tag patterns anywhere in content_args (value_parser nests them)."""
    if not isinstance(args, dict):
        return
    pattern = args.get("tag_pattern")
    if isinstance(pattern, str) and pattern not in out:
        where = f"{path}.tag_pattern"
        out[pattern] = regex_code(_parsed(pattern, where, origin), pattern, where, origin, sets)
    parser = args.get("value_parser")
    if isinstance(parser, dict):
        _content_regexes(parser.get("args"), f"{path}.value_parser.args", origin, sets, out)


def transform_code(node: Transform) -> str:
    if isinstance(node, TLiteral):
        return js_literal(json.loads(node.json))
    if isinstance(node, TPlaceholder):
        return f"new Placeholder({js_string(node.path)})"
    if isinstance(node, TList):
        return "[" + ", ".join(transform_code(item) for item in node.items) + "]"
    assert isinstance(node, TDict)
    items = []
    for key, value in node.items:
        shown = f"[{js_string(key)}]" if key == "__proto__" else js_string(key)
        items.append(f"{shown}: {transform_code(value)}")
    return "{" + ", ".join(items) + "}"


def _identifier(name: str) -> str:
    import re

    return re.sub(r"\W", "_", name, flags=re.ASCII).upper().strip("_") or "FIELD"


def runtime_files() -> dict[str, str]:
    """The runtime package's files, for --vendor."""
    return {name: (RUNTIME_DIR / name).read_text(encoding="utf-8") for name in RUNTIME_FILES}


def render(program: Program, *, vendor: bool = False) -> dict[str, str]:
    """Output-relative path -> file text: `<name>.mjs`, `<name>.d.mts` (and the runtime with `vendor`)."""
    origin = program.origin
    sets = _Sets()
    delimiters = []
    delimiter_vars: dict[tuple[str, int], str] = {}
    used: set[str] = set()
    for field in program.fields:
        for kind, delim in (("open", field.open), ("close", field.close)):
            if delim is None:
                continue
            var = f"{_identifier(field.name)}_{kind.upper()}"
            if var in used:
                var = f"{var}_{field.index}"
            used.add(var)
            delimiter_vars[(kind, field.index)] = var
            delimiters.append({"var": var, "code": _watched_code(delim, origin, sets), "path": delim.path})
    start_anchor = _delimiter_code(program.start_anchor, origin, sets)
    content_regexes: dict[str, str] = {}
    fields = []
    for field in program.fields:
        options = []
        if field.content != "text":
            options.append(f"content: {js_string(field.content)}")
        content_args = json.loads(field.content_args_json)
        if content_args != {} or type(content_args) is not dict:
            options.append(f"contentArgs: {js_literal(content_args)}")
        if field.content == "xml-inline":
            _content_regexes(content_args, f"{field.path}.content_args", origin, sets, content_regexes)
        if field.repeats:
            options.append("repeats: true")
        if field.join is not None:
            options.append(f"join: {js_string(field.join)}")
        if not field.optional:
            options.append("optional: false")
        if field.transform is not None:
            options.append(f"transform: {transform_code(field.transform)}")
        if field.transform_each:
            options.append("transformEach: true")
        for kind in ("open", "close"):
            if (kind, field.index) in delimiter_vars:
                options.append(f"{kind}: {delimiter_vars[(kind, field.index)]}")
        fields.append({"name": js_string(field.name), "options": options})
    names = [field.name for field in program.fields]
    states = []
    for state in program.states:
        watch = [
            f"[{'OPEN' if w.kind == OPEN else 'CLOSE'}, {w.field}, {delimiter_vars[(w.kind, w.field)]}]"
            for w in state.watch
        ]
        region = "implicit region" if state.region is None else names[state.region]
        comment = f"{region}: " + (", ".join(f"{w.kind} {names[w.field]}" for w in state.watch) or "nothing")
        fast = None
        if state.fast is not None:
            leads = CharSet()
            for lead in state.fast.leads:
                leads = leads | set_of(root_of(parse(lead.source)))
            fast = f"{{ triggers: {js_literal(list(state.fast.triggers))}, leads: {sets.name(leads)} }}"
        states.append(
            {
                "key": -1 if state.region is None else state.region,
                "watch": watch,
                "tie_order": [watch[i] for i in state.tie_order],
                "comment": comment,
                "fast": fast,
                "hold_lead": _hold_lead_code(program, state, sets),
            }
        )
    runtime = f"./{VENDOR_DIR}/index.mjs" if vendor else RUNTIME_PACKAGE
    context = {
        "version": __version__,
        "origin": origin,
        "sha256": program.sha256,
        "name": program.name,
        "vendor": vendor,
        "runtime": js_string(runtime),
        "template": js_literal(json.loads(program.template_json)),
        "sets": sets.constants(),
        "delimiters": delimiters,
        "fields": fields,
        "implicit": "null" if program.implicit is None else str(program.implicit),
        "defaults": js_literal(json.loads(program.defaults_json)),
        "start_anchor": start_anchor,
        "context": program.context,
        "states": states,
        "anchor_from_end": "true" if program.anchor_from_end else "false",
        "content_regexes": list(content_regexes.values()),
    }
    files = {
        f"{program.name}.mjs": _env.get_template("module.mjs.j2").render(**context),
        f"{program.name}.d.mts": _env.get_template("module.d.mts.j2").render(**context),
    }
    if vendor:
        files.update({f"{VENDOR_DIR}/{name}": text for name, text in runtime_files().items()})
    return files


def render_index(names: list[str], out: Path | None = None) -> dict[str, str]:
    """`index.mjs` of a folder of generated modules (build --all): every
    template's module by name, for pages and tools that offer them all."""
    lines = [
        f"// Generated by the response-template compiler {__version__}. Do not edit.",
        "// Every generated parser module in this folder, by template name.",
        "",
    ]
    lines += [f"import * as parser{i} from {js_string(f'./{name}.mjs')};" for i, name in enumerate(names)]
    lines += ["", "export const PARSERS = {"] + [f"  {js_string(name)}: parser{i}," for i, name in enumerate(names)]
    lines += ["};", ""]
    return {"index.mjs": "\n".join(lines)}
