"""Every runtime cites the format inventory's rules where it implements them.

The Python runtime (runtime/*.py) names the rules its code implements by inventory id in its
comments ([content.kv-lines.first-separator, ...]; the ids are the entries
of compiler/conformance/inventory.json). Each port's runtime does the same, and
this test checks, per language, that

- every id the runtime cites exists in the inventory, and
- every id the Python runtime cites is cited by the port too, unless the
  port does not implement that rule in its runtime at all (the compiler or
  the generated code does): such ids are listed in NOT_IN_RUNTIME with the
  reason.

To add a language, list its runtime's source files in SOURCES (and its
comment syntax in COMMENT when it is not `//`).
"""

from __future__ import annotations

import io
import re
import tokenize

import pytest

from compiler.conformance.coverage import load_inventory
from compiler.resources import PROJECT_ROOT

RUNTIME = PROJECT_ROOT / "runtime"

# lang -> the runtime's source files (tests left out: they cite nothing).
SOURCES = {
    "go": lambda: sorted(p for p in (RUNTIME / "go").glob("*.go") if not p.name.endswith("_test.go")),
    "js": lambda: sorted((RUNTIME / "js").glob("*.mjs")),
}

# lang -> {id the Python runtime cites: why the port's runtime does not implement it}.
NOT_IN_RUNTIME: dict[str, dict[str, str]] = {
    "go": {},
    "js": {
        "transform.braces-literal": (
            "which transform strings are placeholders is decided at build time (compiler/ir.py TPlaceholder); "
            "the generated module hands the runtime Placeholder objects and literal strings"
        ),
    },
}

# An id: dotted words, or an area that is an entry itself (transform, transform_each).
ID = re.compile(r"[a-z][a-z0-9_-]*(\.[A-Za-z0-9_-]+)+|transform(_each)?")
GROUP = re.compile(r"\[([a-z][^\]\[]*)\]")


def _ids_in(text: str) -> set[str]:
    """The ids of every bracketed list of ids in text (a comment's words)."""
    cited: set[str] = set()
    for group in GROUP.findall(text):
        parts = [part for part in re.split(r"[,\s]+", group) if part]
        if parts and all(ID.fullmatch(part) for part in parts):
            cited.update(parts)
    return cited


def python_citations() -> set[str]:
    """What the Python runtime (runtime/*.py) cites, in comments and docstrings (as tests/conformance/test_inventory.py reads it)."""
    text = "\n".join(path.read_text(encoding="utf-8") for path in sorted(RUNTIME.glob("*.py")))
    comments = []
    for token in tokenize.generate_tokens(io.StringIO(text).readline):
        if token.type == tokenize.COMMENT:
            comments.append(token.string.lstrip("#"))
        elif token.type == tokenize.STRING:
            comments.append(token.string)
        else:
            comments.append("\x00")  # a list of ids does not run across code
    return _ids_in(_joined(comments))


def _joined(parts: list[str]) -> str:
    """Consecutive comment lines as one text (a list of ids may wrap), code as a break."""
    return " ".join(parts)


def slash_comments(text: str) -> str:
    """The `//` and `/* */` comments of C-like source, consecutive lines joined."""
    out: list[str] = []
    block = False
    for line in text.splitlines():
        if block:
            end = line.find("*/")
            body = line if end < 0 else line[:end]
            out.append(body.strip().removeprefix("*"))  # a JSDoc line's leading " * "
            block = end < 0
            continue
        at = line.find("//")
        start = line.find("/*")
        if start >= 0 and (at < 0 or start < at):
            end = line.find("*/", start + 2)
            out.append(line[start + 2 :] if end < 0 else line[start + 2 : end])
            block = end < 0
        elif at >= 0:
            out.append(line[at + 2 :])
        else:
            out.append("\x00")
    return _joined(out)


def runtime_citations(lang: str) -> dict[str, set[str]]:
    """File name -> the ids its comments cite."""
    return {path.name: _ids_in(slash_comments(path.read_text(encoding="utf-8"))) for path in SOURCES[lang]()}


INVENTORY = {entry["id"] for entry in load_inventory()}

def test_python_runtime_cites_known_ids():
    cited = python_citations()
    assert cited, "the Python runtime cites no inventory id"
    assert sorted(cited - INVENTORY) == []


@pytest.mark.parametrize("lang", sorted(SOURCES))
def test_cited_ids_exist(lang):
    unknown = {name: sorted(ids - INVENTORY) for name, ids in runtime_citations(lang).items() if ids - INVENTORY}
    assert unknown == {}, f"{lang} runtime cites ids the inventory does not have"


@pytest.mark.parametrize("lang", sorted(SOURCES))
def test_port_cites_what_python_cites(lang):
    cited = set().union(*runtime_citations(lang).values())
    allowed = NOT_IN_RUNTIME[lang]
    assert sorted(set(allowed) - INVENTORY) == [], "NOT_IN_RUNTIME names ids the inventory does not have"
    assert sorted(set(allowed) & cited) == [], "NOT_IN_RUNTIME names ids the runtime cites: drop them from the list"
    missing = sorted(python_citations() - cited - set(allowed))
    assert missing == [], (
        f"the Python runtime (runtime/*.py) cites rules the {lang} runtime does not: cite each where the {lang} runtime "
        f"implements it, or list it in NOT_IN_RUNTIME[{lang!r}] with the reason"
    )
