"""The shared conformance vectors: fresh against the reference, and passed by
the Python backend (the committed modules in generated/python/ for bundled
templates, the others compiled in process)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from compiler import source as sources
from compiler.pipeline import module_from_code, python_source
from compiler.vectors import TEMPLATES_DIR, VECTORS_DIR, read_json_lines, trace, write_all
from conftest import GENERATED, ROOT
from differential import same

VECTOR_FILES = sorted(VECTORS_DIR.glob("*.jsonl"))


def test_vectors_are_fresh():
    """Fails when templates or samples changed: run `python -m compiler vectors`."""
    assert [str(p) for p in write_all(check=True)] == []


def run_case(module, case) -> dict:
    return trace(lambda: module.ResponseParser(case["prefix"], tools=case["tools"]), case["chunks"])


_CODE: dict[str, tuple] = {}


def module_for(name: str):
    """The template a case names: the committed module for templates_src/,
    else tests/vectors/templates/<name>.json compiled. Executed afresh on
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


@pytest.mark.parametrize("path", VECTOR_FILES, ids=[p.stem for p in VECTOR_FILES])
def test_python_backend_passes_vectors(path: Path):
    failures = []
    modules = {}
    for case in read_json_lines(path):
        if case["template"] not in modules:
            modules[case["template"]] = module_for(case["template"])
        module = modules[case["template"]]
        expected = {k: case[k] for k in ("initial_events", "feeds", "final_events", "message", "error")}
        # JSON has no tuples: compare through a JSON round trip of our result.
        actual = json.loads(json.dumps(run_case(module, case), ensure_ascii=False))
        if not same(actual, expected):
            failures.append(case["id"])
    assert failures == []
