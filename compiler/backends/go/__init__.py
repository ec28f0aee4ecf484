"""Go backend: IR -> one Go package per template, tables over runtime/go.

The package holds the template's fields, delimiters and watch sets as
composite literals of the runtime's types; regex delimiters (and the
xml-inline tag patterns of content_args) are emitted as node trees from the
compiler's regex AST, with every character class as code point ranges read
off the `regex` module, so Go needs no regex engine of its own syntax.
With `vendor`, the runtime's files are copied into the package (same package
name), which then needs only the Go standard library.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import jinja2

from ...errors import Problem, TemplateError
from ...ir import OPEN, LiteralDelimiter, Program, TDict, TList, TLiteral, TPlaceholder, Transform
from ...regex import RegexSyntaxError, parse
from ...regex.charset import CharSet, regex_set, word_set

# Regex-emission helpers, run while rendering a regex tree (the attempt entry
# set, the literals a repeat gives back, the rt.Node tree itself): part of
# rendering a regex AST, so they stay in the backend. Every fact about the
# template's delimiters and states (hints, branches, the state plan) is read
# off the IR.
from ...regex.automaton import partial_problem
from ...regex.lazy_partial import lazy_lead, opens_lazily, repeat_strings
from ...regex.required_partial import Required, required_string
from ...regex.lookbehind_partial import attempt_entry
from ...regex.node_tree import ALT, ASSERT, CONCAT, EMPTY, GROUP, LIT, REPEAT, SET, GoNode, go_tree
from ...regex.nodes import Group, Regex, walk
from ...resources import GENERATED_DIR, RUNTIME_DIR as RUNTIMES
from ...version import __version__
from .literals import go_runes, go_string

RUNTIME_MODULE = "github.com/response-template-compiler/response-template-compiler/runtime/go"
RUNTIME_DIR = RUNTIMES / "go"
DEFAULT_OUT = GENERATED_DIR / "go"
GO_KEYWORDS = frozenset(
    "break case chan const continue default defer else fallthrough for func go goto if import interface map "
    "package range return select struct switch type var".split()
)

_env = jinja2.Environment(
    loader=jinja2.FileSystemLoader(Path(__file__).parent),
    undefined=jinja2.StrictUndefined,
    trim_blocks=True,
    lstrip_blocks=True,
    keep_trailing_newline=True,
    autoescape=False,
)


def branch_search_hint(delim):
    """A search hint for a regex delimiter the whole-pattern analysis left
    without one (a look-around between its leads and its trigger, as in
    gpt_oss's content open), read off its branches (RegexDelimiter.branches): every
    match, complete or partial, is a run of lead characters then a trigger
    string, or a proper prefix of one at the end. The Go search then runs the
    regex only at each position of the lead run before each trigger (no
    first-lead shortcut, never exact), instead of at every position; a held
    tool-call header is scanned again at every token, so that is most of a
    template's slow path. None when a branch is read by its look-behind or a
    trigger can start inside another's prefix (the search looks for the
    leftmost trigger prefix at the end only)."""
    branches = delim.branches
    if branches is None or branches.behind or not branches.branches or not branches.triggers:
        return None
    firsts = {t[0] for t in branches.triggers}
    if any(c in firsts for t in branches.triggers for c in t[1:]):
        return None
    return branches


def package_name(name: str) -> str:
    """The Go package (and directory) name of a template."""
    return name + "_" if name in GO_KEYWORDS else name


class _Emitter:
    """Regex ASTs -> Go expressions; character sets shared as package vars."""

    def __init__(self, q: str):
        self.q = q  # "rt." or "" (vendored)
        self.sets: dict[tuple, str] = {}
        self.give_back: dict[int, str] = {}  # lazy_partial.repeat_strings of the regex being emitted

    def set_var(self, ranges: tuple) -> str:
        if ranges not in self.sets:
            self.sets[ranges] = f"set{len(self.sets)}"
        return self.sets[ranges]

    def regex(self, ast: Regex, source: str) -> str:
        self.give_back = repeat_strings(ast)
        names = [""]
        for node in walk(ast.body):
            if isinstance(node, Group) and node.index is not None:
                while len(names) <= node.index:
                    names.append("")
                names[node.index] = node.name or ""
        q = self.q
        names_go = ", ".join(go_string(n) for n in names)
        first = attempt_entry(ast)
        entry = "" if first is None else f", Entry: {self.set_var(first.ranges)}"
        if opens_lazily(ast):  # where the module attempts matches decides (lazy_partial.opens_lazily)
            entry += ", LazyOpen: true"
            lazy = lazy_lead(ast)
            if lazy is not None:
                entry += f", LazyLead: {self.set_var(lazy[0].ranges)}, LazyMax: {lazy[1]}"
        required = required_string(ast)
        if required is not None:  # where the module's partial search attempts (required_partial.required_string)
            entry += f", Required: {self.required(required)}"
        return f"&{q}Regex{{Source: {go_string(source)}, Root: {self.node(ast.body)}, Names: []string{{{names_go}}}{entry}}}"

    def required(self, required: Required) -> str:
        """`&rt.Required{...}` (runtime/go/required.go) for a pattern's required string."""
        if isinstance(required.literal, tuple):
            folds = ", ".join(self.set_var(chars.ranges) for chars in required.literal)
            literal = f"Fold: [][]rune{{{folds}}}"
        else:
            literal = f"String: {go_string(required.literal)}"
        more = ""
        if required.starts is not None:
            more += f", Starts: {self.set_var(required.starts.ranges)}"
        if required.ahead is not None:
            ahead = ", ".join(self.set_var(chars.ranges) for chars in required.ahead)
            more += f", Ahead: [][]rune{{{ahead}}}, AheadAt: {required.ahead_at}"
        return f"&{self.q}Required{{{literal}, Offset: {required.offset}{more}, MinWidth: {required.min_width}}}"

    def node(self, node) -> str:
        """An AST node as Go source: its rt.Node tree (compiler/regex/node_tree.py), rendered."""
        return self.render(go_tree(node, self.give_back))

    def render(self, n: GoNode) -> str:
        q = self.q
        if n.op == LIT:
            return f"&{q}Node{{Op: {q}OpLit, Lit: {go_string(n.lit)}}}"
        if n.op == SET:
            return f"&{q}Node{{Op: {q}OpSet, Set: {self.set_var(n.set)}}}"
        if n.op == EMPTY:
            return f"&{q}Node{{Op: {q}OpEmpty}}"
        if n.op == CONCAT:
            return (
                f"&{q}Node{{Op: {q}OpConcat, Subs: []*{q}Node{{\n"
                + ",\n".join(self.render(s) for s in n.subs)
                + ",\n}}"
            )
        if n.op == ALT:
            subs = ",\n".join(self.render(b) for b in n.subs)
            return f"&{q}Node{{Op: {q}OpAlt, Subs: []*{q}Node{{\n{subs},\n}}}}"
        if n.op == REPEAT:
            lazy = ", Lazy: true" if n.lazy else ""
            if n.give_back is not None:
                lazy += f", GiveBack: {go_string(n.give_back)}"
            if n.lazy_tail is not None:
                lazy += ", LazyTest: true" + (f", LazyTail: {go_string(n.lazy_tail)}" if n.lazy_tail else "")
            if n.lazy_fold is not None:
                folds = ", ".join(self.set_var(ranges) for ranges in n.lazy_fold)
                lazy += f", LazyTest: true, LazyFold: [][]rune{{{folds}}}"
            return f"&{q}Node{{Op: {q}OpRepeat, Min: {n.min}, Max: {n.max}{lazy}, Subs: []*{q}Node{{{self.render(n.subs[0])}}}}}"
        if n.op == GROUP:
            return f"&{q}Node{{Op: {q}OpGroup, Group: {n.group}, Subs: []*{q}Node{{{self.render(n.subs[0])}}}}}"
        if n.op == ASSERT:
            return f"&{q}Node{{Op: {q}OpAssert, Kind: '{n.kind}'}}"
        flags = (", Behind: true" if n.behind else "") + (", Negative: true" if n.negative else "")
        return f"&{q}Node{{Op: {q}OpLook{flags}, Subs: []*{q}Node{{{self.render(n.subs[0])}}}}}"


def _tag_patterns(content: str, args, path: str, out: dict[str, str]) -> None:
    """Every xml-inline tag_pattern in a field's content_args (value parsers included)."""
    if not isinstance(args, dict):
        return
    if content == "xml-inline" and isinstance(args.get("tag_pattern"), str):
        out.setdefault(args["tag_pattern"], f"{path}.tag_pattern")
    parser = args.get("value_parser")
    if isinstance(parser, dict) and isinstance(parser.get("name", "text"), str):
        _tag_patterns(parser.get("name", "text"), parser.get("args", {}), f"{path}.value_parser.args", out)


def _transform(node: Transform, q: str) -> str:
    if isinstance(node, TLiteral):
        return f"{q}TValue({go_string(node.json)})"
    if isinstance(node, TPlaceholder):
        return f"{q}TPlaceholder({go_string(node.path)})"
    if isinstance(node, TList):
        return f"{q}TList(" + ", ".join(_transform(item, q) for item in node.items) + ")"
    keys = ", ".join(go_string(key) for key, _ in node.items)
    values = "".join(", " + _transform(value, q) for _, value in node.items)
    return f"{q}TDict([]string{{{keys}}}{values})"


def runtime_files() -> dict[str, str]:
    """The runtime package's non-test Go files, by file name."""
    return {
        path.name: path.read_text(encoding="utf-8")
        for path in sorted(RUNTIME_DIR.glob("*.go"))
        if not path.name.endswith("_test.go")
    }


def gofmt(source: str, origin: str = "<generated>") -> str:
    tool = shutil.which("gofmt")
    if tool is None:
        raise TemplateError([Problem("", "building for Go needs gofmt (the Go toolchain) on PATH")], origin)
    done = subprocess.run([tool], input=source.encode("utf-8"), capture_output=True)
    if done.returncode != 0:
        raise RuntimeError(f"gofmt rejected generated Go for {origin}:\n{done.stderr.decode()}")
    return done.stdout.decode("utf-8")


def render(program: Program, *, vendor: bool = False) -> dict[str, str]:
    """Output-relative path -> file text: `<pkg>/<pkg>.go` (and the runtime's files when vendored)."""
    pkg = package_name(program.name)
    q = "" if vendor else "rt."
    emit = _Emitter(q)
    problems: list[Problem] = []

    def delimiter(delim) -> str:
        if isinstance(delim, LiteralDelimiter):
            lits = ", ".join(go_string(lit) for lit in delim.literals)
            grows = ", GrowsAtEdge: true" if delim.grows_at_edge else ""
            return f"&{q}Delimiter{{Literals: []string{{{lits}}}{grows}}}"
        if delim.ast is None:
            problems.append(
                Problem(delim.path, "this regex uses syntax outside the project's regex grammar; Go cannot run it")
            )
            return "nil"
        why = partial_problem(delim.ast, ports=True)
        if why:  # the module's partial matches that the matcher does not reproduce (as for JavaScript)
            problems.append(Problem(delim.path, f"cannot compile for Go: {why}"))
            return "nil"
        hint = ""
        if opens_lazily(delim.ast) or required_string(delim.ast) is not None:
            pass  # searched at every position the module attempts (no trigger hint)
        elif delim.hint is not None:
            h = delim.hint
            triggers = ", ".join(go_string(t) for t in h.triggers)
            leads = CharSet.of(r for lead in h.leads for r in regex_set(lead.source).ranges)
            first = "nil" if h.hold_lead is None else emit.set_var(regex_set(h.hold_lead.source).ranges)
            exact = h.exact and (not h.leads or tuple(h.leads) == (h.hold_lead,))
            lead_var = emit.set_var(leads.ranges) if h.leads else "nil"
            hint = (
                f", Hint: &{q}Hint{{Triggers: []string{{{triggers}}}, Leads: {lead_var}, FirstLead: {first}"
                + (", Exact: true" if exact else "")
                + "}"
            )
        else:
            branches = branch_search_hint(delim)
            if branches is not None:
                leads = CharSet.of(r for lead in branches.leads for r in regex_set(lead.source).ranges)
                lead_var = emit.set_var(leads.ranges) if branches.leads else "nil"
                triggers = ", ".join(go_string(t) for t in branches.triggers)
                hint = f", Hint: &{q}Hint{{Triggers: []string{{{triggers}}}, Leads: {lead_var}, FirstLead: nil}}"
        return f"&{q}Delimiter{{Regex: {emit.regex(delim.ast, delim.pattern)}{hint}}}"

    fields = []
    patterns: dict[str, str] = {}
    for field in program.fields:
        args = json.loads(field.content_args_json)
        _tag_patterns(field.content, args, f"{field.path}.content_args", patterns)
        fields.append(
            {
                "name": go_string(field.name),
                "content": go_string(field.content),
                "args": go_string(field.content_args_json),
                "repeats": field.repeats,
                "join": None if field.join is None else go_string(field.join),
                "optional": field.optional,
                "transform": None if field.transform is None else _transform(field.transform, q),
                "each": field.transform_each,
                "open": None if field.open is None else delimiter(field.open),
                "close": None if field.close is None else delimiter(field.close),
                "comment": field.path,
            }
        )
    compiled_patterns = []
    for pattern, path in patterns.items():
        try:
            ast = parse(pattern)
        except RegexSyntaxError as error:
            problems.append(Problem(path, f"Go needs the pattern in the project's regex grammar: {error}"))
            continue
        compiled_patterns.append({"key": go_string(pattern), "regex": emit.regex(ast, pattern)})
    start_anchor = delimiter(program.start_anchor)
    if problems:
        raise TemplateError(problems, program.origin)
    fast, hold_runs, ahead = [], [], []
    for state in program.states:
        key = -1 if state.region is None else state.region
        if state.fast is not None:
            leads = CharSet.of(r for lead in state.fast.leads for r in regex_set(lead.source).ranges)
            hold = (
                "nil" if state.fast.hold_lead is None else emit.set_var(regex_set(state.fast.hold_lead.source).ranges)
            )
            triggers = ", ".join(go_string(t) for t in state.fast.triggers)
            fast.append(
                {
                    "key": key,
                    "code": f"&{q}FastPath{{Triggers: []string{{{triggers}}}, Leads: {emit.set_var(leads.ranges)}, HoldLead: {hold}}}",
                    "comment": "",
                }
            )
        elif state.tree_fast is not None:
            derived = state.tree_fast
            leads_var = "nil" if derived.leads is None else emit.set_var(derived.leads)
            triggers = ", ".join(go_string(t) for t in derived.triggers)
            fast.append(
                {
                    "key": key,
                    "code": f"&{q}FastPath{{Triggers: []string{{{triggers}}}, Leads: {leads_var}, HoldLead: {leads_var if derived.hold_lead else 'nil'}}}",
                    # The generated text still names the plan's old home, so that
                    # generated/ stays byte-identical; it is now compiler/passes/state_plan.py
                    # (change both with the next regeneration of generated/go).
                    "comment": " // derived from the delimiter trees (compiler/passes/state_plan.py)",
                }
            )
        if state.hold_run is not None:
            hold_runs.append({"key": key, "set": emit.set_var(state.hold_run)})
        if state.ahead:
            ahead.append(key)
    states = [
        {
            "key": -1 if state.region is None else state.region,
            "watch": ", ".join(
                f"{{Kind: {q}{'Open' if w.kind == OPEN else 'Close'}, Field: {w.field}}}" for w in state.watch
            ),
        }
        for state in program.states
    ]
    source = _env.get_template("package.go.j2").render(
        version=__version__,
        origin=program.origin,
        sha256=program.sha256,
        name=program.name,
        name_lit=go_string(program.name),
        pkg=pkg,
        q=q,
        vendored=vendor,
        runtime_module=RUNTIME_MODULE,
        template=go_string(json.dumps(json.loads(program.template_json), ensure_ascii=False)),
        defaults=go_string(program.defaults_json),
        fields=fields,
        implicit=-1 if program.implicit is None else program.implicit,
        start_anchor=start_anchor,
        states=states,
        context=program.context,
        patterns=compiled_patterns,
        fast=fast,
        hold_runs=hold_runs,
        ahead=ahead,
        sets=[{"var": var, "runes": go_runes(ranges)} for ranges, var in emit.sets.items()],
    )
    files = {f"{pkg}/{pkg}.go": gofmt(source, program.origin)}
    if vendor:
        for name, text in runtime_files().items():
            text = text.replace("package rt\n", f"package {pkg}\n", 1)
            files[f"{pkg}/rt_{name}"] = text
    return files


def word_table_source() -> str:
    """runtime/go/wordset.go: the `regex` module's \\w set (for \\b and unquoted_keys)."""
    ranges = word_set().ranges
    body = "".join(f"\t0x{lo:x}, 0x{hi:x},\n" for lo, hi in ranges)
    return (
        "// Code generated by `python -m compiler.backends.go` from the regex module's \\w; DO NOT EDIT.\n\n"
        "package rt\n\n"
        "// wordSet is \\w of Python's `regex` module (Unicode), as inclusive ranges.\n"
        f"var wordSet = []rune{{\n{body}}}\n"
    )


if __name__ == "__main__":  # regenerate the runtime's tables
    (RUNTIME_DIR / "wordset.go").write_text(word_table_source(), encoding="utf-8")


GENERATED_MODULE = "github.com/response-template-compiler/response-template-compiler/generated/go"


def render_index(names: list[str], out: Path | None = None) -> dict[str, str]:
    """go.mod, parsers.go and vectors_test.go of generated/go/ (build --all into the default folder):
    the module around the packages, every package's New by template name, and the shared vectors
    run through every package by `go test ./...`. Nothing for another folder (-o): go.mod
    refers to the runtime by a path relative to generated/go/."""
    if out is not None:
        return {}
    pkgs = sorted((name, package_name(name)) for name in names)
    imports = "".join(f'\t"{GENERATED_MODULE}/{pkg}"\n' for _, pkg in pkgs)
    entries = "".join(f"\t{json.dumps(name)}: {pkg}.New,\n" for name, pkg in pkgs)
    width = max((len(json.dumps(name)) for name, _ in pkgs), default=0)
    entries = "".join(f"\t{(json.dumps(name) + ':').ljust(width + 1)} {pkg}.New,\n" for name, pkg in pkgs)
    return {
        "go.mod": (
            f"module {GENERATED_MODULE}\n\ngo 1.22\n\nrequire {RUNTIME_MODULE} v0.0.0\n\n"
            f"replace {RUNTIME_MODULE} => ../../runtime/go\n"
        ),
        "parsers.go": (
            "// Code generated by `python -m compiler build --all`; DO NOT EDIT.\n\n"
            "// Package parsers lists the generated parser of every bundled template.\n"
            "package parsers\n\nimport (\n"
            f'\t"{RUNTIME_MODULE}/conformance"\n\n{imports})\n\n'
            "// All maps a template name to its package's New.\n"
            f"var All = map[string]conformance.NewFunc{{\n{entries}}}\n"
        ),
        "vectors_test.go": (
            "// Code generated by `python -m compiler build --all`; DO NOT EDIT.\n\n"
            'package parsers\n\nimport (\n\t"testing"\n\n'
            f'\t"{RUNTIME_MODULE}/conformance"\n)\n\n'
            "// TestVectors runs every case of compiler/conformance/vectors whose template is bundled;\n"
            "// compiler/conformance/failures/go.txt lists cases that may not pass, each with its reason.\n"
            "// Twice: the second run meets the scan answers the first left in each\n"
            "// program's shared memo (every case's tails), which must change nothing,\n"
            "// and feeds through AppendFeed, which must give what Feed gives.\n"
            "func TestVectors(t *testing.T) {\n"
            "\tfor run := 0; run < 2; run++ {\n"
            "\t\tconformance.Appending = run == 1\n"
            '\t\tconformance.RunVectors(t, All, "../../compiler/conformance/vectors", "../../compiler/conformance/failures/go.txt")\n\t}\n'
            "\tconformance.Appending = false\n}\n\n"
            "// TestRecoveryVectors runs the recovery-mode cases (compiler/conformance/recovery, WithRecover)\n"
            "// whose template is bundled, with Feed and with AppendFeed.\n"
            "func TestRecoveryVectors(t *testing.T) {\n"
            "\tfor run := 0; run < 2; run++ {\n"
            "\t\tconformance.Appending = run == 1\n"
            '\t\tconformance.RunVectors(t, All, "../../compiler/conformance/recovery", "../../compiler/conformance/failures/go.txt")\n\t}\n'
            "\tconformance.Appending = false\n}\n"
        ),
    }
