"""The parser module a conformance case names, for the Python legs of the
vector tests and the runtime tests built on them."""

from __future__ import annotations

import json

from compiler.conformance.vectors import TEMPLATES_DIR, parser_options, trace
from compiler.frontend import source as sources
from compiler.pipeline import module_from_code, python_source
from conftest import GENERATED, ROOT


def run_case(module, case) -> dict:
    return trace(
        lambda: module.ResponseParser(case["prefix"], tools=case["tools"], **parser_options(case)), case["chunks"]
    )


_CODE: dict[str, tuple] = {}


def module_for(name: str):
    """The template a case names: the committed module for templates_src/,
    else compiler/conformance/templates/<name>.json compiled. Executed afresh on
    every call (only the source is cached): the runtime objects a module
    builds when it loads are then built by the code under test, which
    mutation testing needs (a mutant runs in a process forked after the
    first load)."""
    if name not in _CODE:
        committed = GENERATED / f"{name}.py"
        if (ROOT / "templates_src" / f"{name}.json").is_file() and committed.is_file():
            code = committed.read_text(encoding="utf-8")
            source = sources.from_dict(json.loads((ROOT / "templates_src" / f"{name}.json").read_text("utf-8")), name)
        else:
            source = sources.from_dict(json.loads((TEMPLATES_DIR / f"{name}.json").read_text(encoding="utf-8")), name)
            code = python_source(source)
        _CODE[name] = (code, source)
    code, source = _CODE[name]
    return module_from_code(code, source)
