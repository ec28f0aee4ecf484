"""`python -m compiler check`: findings about a template that compiles but
is likely to parse wrongly or parse differently depending on chunking, and
notes about what this compiler cannot do for it. Each finding names its JSON
path.

A finding is of one of two kinds, fixed per code (`KINDS` below):

- a *hazard* is a fault of the template itself: the reference parser (and so
  every port) reads some output wrongly, or differently depending on how the
  stream is chunked. `check` exits 1 when a template has one.
- a *note* is a limit of this compiler, not of the template: the reference
  parses the template's output as intended, but a port, the regex analysis
  or the grammar emitter cannot do everything for it. `check` prints notes as
  `note:` lines and exits 0 for them; `check --strict` counts them as
  hazards (exit 1).

Hazards:

- implicit-overwrite: whitespace between blocks opens a new implicit region
  whose empty value overwrites the earlier one (a template fault: the
  delimiters do not absorb the whitespace the model writes).
- open-prefix: a literal open is a prefix of another field's open, so a chunk
  ending after it commits the shorter field (the result depends on chunking).
- unused-group: named groups of an open that no transform reads (the template
  asks for a capture and drops it: almost always a typo in the transform).
- close-group: named groups in a close pattern, which are ignored.
- empty-match: a delimiter that can match the empty string.
- backtracking: a delimiter prone to catastrophic backtracking in the
  reference's own engine.
- regex-quirk: a pattern the `regex` module itself misreads, so the
  reference's answer is not what the pattern says.
- chunk-dependent: a delimiter whose match depends on where the stream is cut
  (a lookahead satisfied by `$`, an optional multi-character tail).
- text-delimiter: free text is watched for a delimiter that no literal marks,
  so the parser may end a region inside what the model meant as text (the
  model can write it by accident; no grammar can prevent it).

Notes (our limits):

- regex-unsupported: the pattern is outside this compiler's regex grammar
  (back-references, atomic groups, ...). The Python parser still uses it
  through `regex`; the analyses above and the JS/Go ports cannot.
- js-unsupported, go-unsupported: the JavaScript or Go port's matcher cannot
  reproduce the reference on the pattern, so `build --lang js|go` refuses the
  template; the Python parser is unaffected.
- no-structural-tag: the grammar emitter cannot write the tool-call shape as
  a structural tag (`{begin, schema, end}` per tool); the Lark/GBNF/EBNF
  grammars still apply, and the template parses as intended.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..passes.fast_path import fast_path_of
from ..frontend.check import CheckedTemplate
from ..ir import LiteralDelimiter, Program, RegexDelimiter, TDict, TList, TPlaceholder, Transform

WHITESPACE = " \t\n\r"


HAZARD = "hazard"  # a fault of the template: `check` exits 1
NOTE = "note"  # a limit of this compiler: `check` exits 0 unless --strict

# Every finding code and its kind (the module docstring says why).
KINDS = {
    "implicit-overwrite": HAZARD,
    "open-prefix": HAZARD,
    "unused-group": HAZARD,
    "close-group": HAZARD,
    "empty-match": HAZARD,
    "backtracking": HAZARD,
    "regex-quirk": HAZARD,
    "chunk-dependent": HAZARD,
    "text-delimiter": HAZARD,
    "regex-unsupported": NOTE,
    "js-unsupported": NOTE,
    "go-unsupported": NOTE,
    "no-structural-tag": NOTE,
}


@dataclass(frozen=True)
class Finding:
    code: str  # stable identifier, e.g. "implicit-overwrite"
    path: str  # JSON path
    message: str

    @property
    def kind(self) -> str:
        """HAZARD or NOTE (KINDS)."""
        return KINDS[self.code]

    @property
    def is_hazard(self) -> bool:
        return self.kind == HAZARD

    def __str__(self) -> str:
        prefix = "" if self.is_hazard else "note: "
        return f"{prefix}{self.path}: [{self.code}] {self.message}"


def _placeholder_roots(node: Transform | None) -> set[str]:
    if isinstance(node, TPlaceholder):
        return {node.path.split(".")[0]}
    if isinstance(node, TDict):
        return set().union(*(_placeholder_roots(value) for _, value in node.items))
    if isinstance(node, TList):
        return set().union(*(_placeholder_roots(value) for value in node.items))
    return set()


def _absorbs_leading_whitespace(delim) -> bool:
    """Whether the delimiter starts with a repeat that swallows whitespace (`\\s*<tool_call>`)."""
    if not isinstance(delim, RegexDelimiter):
        return False
    hint = fast_path_of(delim)
    return hint is not None and any(all(char in lead.ascii for char in WHITESPACE) for lead in hint.leads)


def _implicit_overwrite(program: Program) -> list[Finding]:
    if program.implicit is None:
        return []
    implicit = program.fields[program.implicit]
    if implicit.repeats:
        return []
    # Repeating blocks are the ones that follow content, separated by
    # newlines; a single block (reasoning) normally comes first.
    explicit = [field for field in program.fields if field.open is not None]
    unguarded = [
        field.name for field in explicit if field.repeats and not _absorbs_leading_whitespace(field.open)
    ]
    close_guarded = implicit.close is None or _absorbs_leading_whitespace(implicit.close)
    if not explicit or (not unguarded and close_guarded):
        return []
    where = []
    if unguarded:
        where.append(f"the opens of {', '.join(unguarded)} do not start with \\s*")
    if not close_guarded:
        where.append("its close does not start with \\s*")
    return [
        Finding(
            "implicit-overwrite",
            implicit.path,
            f"the implicit field '{implicit.name}' is not repeating, so whitespace between blocks opens a new "
            f"region whose (empty) value overwrites the earlier one ({'; '.join(where)})",
        )
    ]


def _open_prefixes(program: Program) -> list[Finding]:
    findings = []
    literal_opens = [
        (field, literal)
        for field in program.fields
        if isinstance(field.open, LiteralDelimiter)
        for literal in field.open.literals
    ]
    for field, literal in literal_opens:
        for other, other_literal in literal_opens:
            if other is not field and other_literal != literal and other_literal.startswith(literal):
                findings.append(
                    Finding(
                        "open-prefix",
                        field.open.path,
                        f"open {literal!r} is a prefix of field '{other.name}''s open {other_literal!r}: "
                        "a chunk ending after it commits this field before the longer one can arrive",
                    )
                )
    return findings


def _named_groups(program: Program) -> list[Finding]:
    findings = []
    for field in program.fields:
        if isinstance(field.open, RegexDelimiter) and field.open.group_names:
            unused = sorted(set(field.open.group_names) - _placeholder_roots(field.transform))
            if unused and not field.transform_each:
                findings.append(
                    Finding("unused-group", field.open.path, f"named group(s) {unused} are used by no transform placeholder")
                )
        if isinstance(field.close, RegexDelimiter) and field.close.group_names:
            findings.append(
                Finding(
                    "close-group",
                    field.close.path,
                    f"named group(s) {sorted(field.close.group_names)} in a close pattern are ignored: only the "
                    "open's captures reach the transform",
                )
            )
    return findings


def _regex_delimiters(program: Program):
    for field in program.fields:
        for delim in (field.open, field.close):
            if isinstance(delim, RegexDelimiter):
                yield field, delim


def _ends_in_lookahead_end(node) -> bool:
    """A positive lookahead that `$` or `\\Z` can satisfy."""
    from ..regex.nodes import EOS, END, Anchor, Look, walk

    for look in walk(node):
        if isinstance(look, Look) and not look.behind and not look.negative:
            if any(isinstance(n, Anchor) and n.kind in (EOS, END) for n in walk(look.body)):
                return True
    return False


def _skippable(node) -> bool:
    """Whether the node can match nothing without any condition (a look-around
    or anchor matches nothing only where its condition holds)."""
    from ..regex.nodes import Alt, Concat, Group, Repeat

    if isinstance(node, Repeat):
        return node.min == 0 or _skippable(node.body)
    if isinstance(node, Group):
        return _skippable(node.body)
    if isinstance(node, Concat):
        return all(map(_skippable, node.items))
    if isinstance(node, Alt):
        return any(map(_skippable, node.branches))
    return False


def _optional_tail(node):
    """The trailing part of a match that may be absent but spans several
    characters when present (`(?:json)?`), or None."""
    from ..regex.analysis import max_length
    from ..regex.nodes import Alt, Class, Category, Char, Concat, Dot, Group, Repeat

    if isinstance(node, Group):
        return _optional_tail(node.body)
    if isinstance(node, Alt):
        return next((tail for tail in map(_optional_tail, node.branches) if tail is not None), None)
    if isinstance(node, Concat) and node.items:
        last = node.items[-1]
        if _skippable(last) and not _skippable(node):
            single_char_repeat = isinstance(last, Repeat) and isinstance(last.body, (Char, Class, Category, Dot))
            longest = max_length(last)
            if not single_char_repeat and (longest is None or longest >= 2):
                return last
        return _optional_tail(last)
    return None


def _regex_findings(program: Program) -> list[Finding]:
    from ..regex import RegexSyntaxError, parse, to_source
    from ..regex.info import analyze

    findings = []
    for field, delim in _regex_delimiters(program):
        path = delim.path
        try:
            ast = parse(delim.pattern)
        except RegexSyntaxError as error:
            findings.append(Finding("regex-unsupported", path, f"outside the compiler's regex grammar:\n{error}"))
            continue
        info = analyze(ast)
        if info.can_match_empty:
            findings.append(Finding("empty-match", path, "can match the empty string (a zero-width delimiter)"))
        if info.backtracking_risk:
            findings.append(Finding("backtracking", path, f"prone to catastrophic backtracking: {info.backtracking_risk}"))
        if info.regex_module_quirk:
            findings.append(Finding("regex-quirk", path, info.regex_module_quirk))
        for problem in info.js_problems:
            findings.append(Finding("js-unsupported", path, f"JavaScript cannot express it: {problem}"))
        for problem in info.go_problems:
            findings.append(Finding("go-unsupported", path, f"Go (RE2) cannot express it: {problem}"))
        if _ends_in_lookahead_end(ast.body):
            findings.append(
                Finding(
                    "chunk-dependent",
                    path,
                    "a lookahead accepts $ or \\Z, which streaming satisfies at the end of the text received so "
                    "far: the result depends on chunking (use `X(?:(?=...)|\\s*\\Z)` instead)",
                )
            )
        tail = _optional_tail(ast.body)
        if tail is not None:
            findings.append(
                Finding(
                    "chunk-dependent",
                    path,
                    f"ends in the optional {to_source(tail)!r}: a chunk ending inside it commits the shorter "
                    "match, so the result depends on chunking (end the delimiter with a fixed literal or a lookahead)",
                )
            )
    return findings


def _grammar_hazards(program: Program) -> list[Finding]:
    """Free text a grammar cannot keep from matching a delimiter, and tool
    calls with no structural tag (compiler/grammar/hazards.py)."""
    import json

    from ..grammar.hazards import structural_tag_hazard, text_delimiter_hazards

    findings = [Finding("text-delimiter", path, message) for path, message in text_delimiter_hazards(program)]
    hazard = structural_tag_hazard(program, json.loads(program.template_json))
    if hazard is not None:
        findings.append(Finding("no-structural-tag", *hazard))
    return findings


RULES = [_implicit_overwrite, _open_prefixes, _named_groups, _regex_findings, _grammar_hazards]


def lint(program: Program, checked: CheckedTemplate | None = None) -> list[Finding]:
    """Every finding for a compiled template, in a stable order."""
    findings: list[Finding] = []
    for rule in RULES:
        findings.extend(rule(program))
    return findings
