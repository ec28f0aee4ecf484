"""The shared conformance vectors: fresh against the reference, and passed by
the Python backend (the committed modules in generated/python/ for bundled
templates, the others compiled in process)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from compiler import compile_template
from compiler.vectors import TEMPLATES_DIR, VECTORS_DIR, trace, write_all
from conftest import GENERATED, ROOT, load_generated
from differential import same

VECTOR_FILES = sorted(VECTORS_DIR.glob("*.jsonl"))


def test_vectors_are_fresh():
    """Fails when templates or samples changed: run `python -m compiler vectors`."""
    assert [str(p) for p in write_all(check=True)] == []


def run_case(module, case) -> dict:
    return trace(lambda: module.ResponseParser(case["prefix"], tools=case["tools"]), case["chunks"])


def module_for(name: str):
    """The template a case names: templates_src/ first, then tests/vectors/templates/."""
    if (ROOT / "templates_src" / f"{name}.json").is_file() and (GENERATED / f"{name}.py").is_file():
        return load_generated(name)
    template = json.loads((TEMPLATES_DIR / f"{name}.json").read_text(encoding="utf-8"))
    return compile_template(template, name=name)


@pytest.mark.parametrize("path", VECTOR_FILES, ids=[p.stem for p in VECTOR_FILES])
def test_python_backend_passes_vectors(path: Path):
    failures = []
    for line in path.read_text(encoding="utf-8").splitlines():
        case = json.loads(line)
        module = module_for(case["template"])
        expected = {k: case[k] for k in ("initial_events", "feeds", "final_events", "message", "error")}
        # JSON has no tuples: compare through a JSON round trip of our result.
        actual = json.loads(json.dumps(run_case(module, case), ensure_ascii=False))
        if not same(actual, expected):
            failures.append(case["id"])
    assert failures == []
