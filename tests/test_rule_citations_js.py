"""The JavaScript runtime's rule citations against the format inventory.

runtime/core.py names, in comments like `[content.text.strip, ...]`, the
entries of tests/vectors/inventory.json whose rule the code beside them
implements; runtime/js/*.mjs does the same. Every id the JavaScript runtime
cites must exist in the inventory, and every rule the Python runtime cites
must be cited by the JavaScript runtime too, unless it is listed below with
the reason it is not implemented in the JavaScript runtime at all.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
INVENTORY = ROOT / "tests" / "vectors" / "inventory.json"
CORE = ROOT / "runtime" / "core.py"
JS_RUNTIME = ROOT / "runtime" / "js"

# Rules runtime/core.py cites that no code of runtime/js implements.
NOT_IN_JS_RUNTIME = {
    "transform.braces-literal": (
        "which transform strings are placeholders is decided at build time (compiler/ir.py TPlaceholder); "
        "the generated module hands the runtime Placeholder objects and literal strings"
    ),
}

# An id as the inventory writes them: `transform`, `content.text.strip-false`, `typing.null.None`.
ID_SHAPE = re.compile(r"[a-z][A-Za-z0-9_]*(?:[.\-][A-Za-z0-9_]+)*")
BRACKETS = re.compile(r"\[([^\[\]]*)\]")


def inventory_ids() -> set[str]:
    return {entry["id"] for entry in json.loads(INVENTORY.read_text(encoding="utf-8"))["entries"]}


def citation_groups(text: str, ids: set[str]) -> list[list[str]]:
    """Bracketed lists that are citations: every item shaped like an id, and
    one of them dotted or all of them known (so `[start, end]` is not one)."""
    groups = []
    for match in BRACKETS.finditer(text):
        items = [item.strip() for item in match.group(1).split(",")]
        if not all(ID_SHAPE.fullmatch(item) for item in items):
            continue
        if any("." in item for item in items) or all(item in ids for item in items):
            groups.append(items)
    return groups


def core_citations(ids: set[str]) -> set[str]:
    """Ids runtime/core.py cites: bracketed lists of known ids in its comments
    and docstrings, a list continued over `#` comment lines included."""
    text = re.sub(r"\n[ \t]*#?[ \t]*", " ", CORE.read_text(encoding="utf-8"))
    return {item for group in citation_groups(text, ids) if all(item in ids for item in group) for item in group}


def js_comments(source: str) -> list[str]:
    """The comments of a runtime module, each run of comment lines (`//`
    lines, a `/** ... */` block) joined into one line; trailing `// ...`
    comments after code each on their own."""
    runs: list[str] = []
    current: list[str] = []
    in_block = False
    for line in source.splitlines():
        stripped = line.strip()
        if in_block or stripped.startswith("/*"):
            in_block = "*/" not in stripped
            current.append(re.sub(r"^/\*+|\*+/$|^\*", "", stripped).strip())
            continue
        if stripped.startswith("//"):
            current.append(stripped.lstrip("/").strip())
            continue
        if current:
            runs.append(" ".join(current))
            current = []
        if " // " in line:
            runs.append(line.split(" // ", 1)[1])
    if current:
        runs.append(" ".join(current))
    return runs


def js_citations(ids: set[str]) -> dict[str, list[str]]:
    """Id -> the runtime/js modules citing it (unknown ids included)."""
    cited: dict[str, list[str]] = {}
    for path in sorted(JS_RUNTIME.glob("*.mjs")):
        for comment in js_comments(path.read_text(encoding="utf-8")):
            for group in citation_groups(comment, ids):
                for item in group:
                    cited.setdefault(item, []).append(path.name)
    return cited


def test_comment_reader():
    source = (
        "// one [a.b, c]\n"
        "// more [transform,\n"
        "// d.e]\n"
        "const x = [start, end]; // trailing [f.g]\n"
        "/**\n * block [h.i,\n * transform_each]\n */\n"
        "const y = '[j.k]';\n"
    )
    groups = [group for comment in js_comments(source) for group in citation_groups(comment, {"transform"})]
    assert groups == [["a.b", "c"], ["transform", "d.e"], ["f.g"], ["h.i", "transform_each"]]


def test_inventory_and_core_cite_rules():
    ids = inventory_ids()
    assert len(ids) > 200
    assert len(core_citations(ids)) > 80, "runtime/core.py's citations were not found: the reader is out of date"


def test_js_citations_exist():
    ids = inventory_ids()
    cited = js_citations(ids)
    assert len(cited) > 150, "runtime/js cites almost nothing: the reader is out of date"
    unknown = {item: files for item, files in cited.items() if item not in ids}
    assert not unknown, f"runtime/js cites ids that are not in tests/vectors/inventory.json: {unknown}"


def test_js_cites_what_core_cites():
    ids = inventory_ids()
    core = core_citations(ids)
    cited = js_citations(ids)
    missing = sorted(core - set(cited) - set(NOT_IN_JS_RUNTIME))
    assert not missing, f"rules runtime/core.py cites that runtime/js/*.mjs does not: {missing}"


def test_allow_list_is_current():
    ids = inventory_ids()
    core = core_citations(ids)
    cited = js_citations(ids)
    for item, reason in NOT_IN_JS_RUNTIME.items():
        assert reason
        assert item in ids, f"{item}: not in the inventory"
        assert item in core, f"{item}: runtime/core.py no longer cites it; drop it from the allow-list"
        assert item not in cited, f"{item}: runtime/js cites it ({cited[item]}); drop it from the allow-list"
