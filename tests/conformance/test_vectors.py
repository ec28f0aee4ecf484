"""The shared conformance vectors: fresh against the reference, and passed by
the Python backend (the committed modules in generated/python/ for bundled
templates, the others compiled in process)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from compiler.conformance.vectors import VECTORS_DIR, is_listed, known_failures, read_json_lines, write_all
from differential import same
from vector_modules import module_for, run_case

VECTOR_FILES = sorted(VECTORS_DIR.glob("*.jsonl"))


def test_vectors_are_fresh():
    """Fails when templates or samples changed: run `python -m compiler vectors`."""
    assert [str(p) for p in write_all(check=True)] == []


KNOWN = known_failures("python")


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
        if same(actual, expected) == is_listed(KNOWN, case["id"]):
            failures.append(case["id"])
    assert failures == [], "differs from the vectors, or listed in failures/python.txt but passes"


def whole_outcome(module, case) -> dict:
    """`parse_response` on a case fed in one chunk: the message, or the class of its error."""
    try:
        return {"message": module.parse_response(case["chunks"][0], prefix=case["prefix"], tools=case.get("tools"))}
    except Exception as error:  # noqa: BLE001 - compared by class
        return {"error": type(error).__name__}


@pytest.mark.parametrize("path", VECTOR_FILES, ids=[p.stem for p in VECTOR_FILES])
def test_parse_response_passes_vectors(path: Path):
    """`parse_response` (its own whole-text path, runtime/whole.py) gives
    every one-chunk case's message or error class: the reference defines it
    as that one feed and finalize."""
    failures = []
    modules = {}
    for case in read_json_lines(path):
        if len(case["chunks"]) != 1 or is_listed(KNOWN, case["id"]):
            continue
        if case["template"] not in modules:
            modules[case["template"]] = module_for(case["template"])
        error = case["error"]
        expected = {"message": case["message"]} if error is None else {"error": error["type"]}
        actual = json.loads(json.dumps(whole_outcome(modules[case["template"]], case), ensure_ascii=False))
        if not same(actual, expected):
            failures.append((case["id"], expected, actual))
    assert failures == [], failures[:3]
