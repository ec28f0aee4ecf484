"""`python -m compiler check`: findings about a template that compiles but
is likely to parse wrongly, parse differently depending on chunking, or not
port to every backend. Each finding names its JSON path."""

from __future__ import annotations

from dataclasses import dataclass

from .analysis import fast_path_of
from .check import CheckedTemplate
from .ir import LiteralDelimiter, Program, RegexDelimiter, TDict, TList, TPlaceholder, Transform

WHITESPACE = " \t\n\r"


@dataclass(frozen=True)
class Finding:
    code: str  # stable identifier, e.g. "implicit-overwrite"
    path: str  # JSON path
    message: str

    def __str__(self) -> str:
        return f"{self.path}: [{self.code}] {self.message}"


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


RULES = [_implicit_overwrite, _open_prefixes, _named_groups]


def lint(program: Program, checked: CheckedTemplate | None = None) -> list[Finding]:
    """Every finding for a compiled template, in a stable order."""
    findings: list[Finding] = []
    for rule in RULES:
        findings.extend(rule(program))
    return findings
