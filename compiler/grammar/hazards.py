"""Grammar findings, reported by `check` (compiler/diagnostics/lint.py).

- text-delimiter: free text of a region is watched for a delimiter that no
  literal marks (every match of it need not contain any fixed string), so a
  grammar cannot keep the text from matching it: the parser may end the
  region inside what the model meant as text.
  A hazard of the template (`check` exits 1).
- no-structural-tag: the tool-call shape cannot be written as a structural
  tag (`{begin, schema, end}` per tool); the Lark/GBNF/EBNF grammars still
  apply. The message says which field and why. A note, not a hazard: it is a
  limit of this emitter and the template parses as intended (`check` exits 0
  for it unless `--strict`; compiler/diagnostics/lint.py classifies every
  finding).
"""

from __future__ import annotations

from ..ir import LiteralDelimiter, Program, RegexDelimiter
from . import regexconv as rc
from .model import GrammarError

PROBE_TOOL = {"type": "function", "function": {"name": "probe", "parameters": {"type": "object", "properties": {}}}}


def text_delimiter_hazards(program: Program) -> list[tuple[str, str]]:
    """(path, message) for each delimiter watched over free text that no literal marks."""
    found = []
    text_regions = []
    if program.implicit is not None and program.fields[program.implicit].content == "text":
        watched = [f.open for f in program.fields if f.open is not None]
        implicit = program.fields[program.implicit]
        if implicit.close is not None:
            watched.append(implicit.close)
        text_regions.append((implicit.name, watched))
    for field in program.fields:
        if field.open is not None and field.content == "text" and field.close is not None:
            text_regions.append((field.name, [field.close]))
    seen = set()
    for region, watched in text_regions:
        for delim in watched:
            if isinstance(delim, LiteralDelimiter) or not isinstance(delim, RegexDelimiter) or delim.ast is None:
                continue
            if rc.required_literals(delim.ast.body) or delim.path in seen:
                continue
            seen.add(delim.path)
            found.append(
                (
                    delim.path,
                    f"free text of '{region}' is watched for this delimiter, but no literal occurs in every match "
                    "of it: a grammar cannot keep the text from matching it, and text can end the region unnoticed",
                )
            )
    return found


def structural_tag_hazard(program: Program, template: dict) -> tuple[str, str] | None:
    """(path, message) when the tool-call shape has no structural tag."""
    from .build import Builder, Options, normalize_tools, binding_of
    from .structural_tag import structural_tag

    if not any(binding_of(field) is not None for field in program.fields):
        return None
    builder = Builder(program, template, normalize_tools([PROBE_TOOL]), Options(), "structural-tag")
    try:
        structural_tag(builder)
    except GrammarError as error:
        return (error.path, "no structural tag for this tool-call shape: " + str(error).split(": ", 1)[-1])
    return None
