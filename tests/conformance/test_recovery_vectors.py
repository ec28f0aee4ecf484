"""The recovery-mode vectors (compiler/conformance/recovery/, from vLLM 0.33's
interpreter): passed by the Python backend with `recover=True`, and their
parse_response agrees with the streamed message."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from compiler.conformance.recovery import RECOVERY_DIR
from compiler.conformance.vectors import is_listed, known_failures, read_json_lines
from differential import same
from vector_modules import module_for, run_case

RECOVERY_FILES = sorted(RECOVERY_DIR.glob("*.jsonl"))
KNOWN = known_failures("python")


def test_recovery_vectors_exist():
    assert len(RECOVERY_FILES) >= 10


@pytest.mark.parametrize("path", RECOVERY_FILES, ids=[p.stem for p in RECOVERY_FILES])
def test_python_backend_passes_recovery_vectors(path: Path):
    failures = []
    modules = {}
    for case in read_json_lines(path):
        assert case["recover"] is True
        if case["template"] not in modules:
            modules[case["template"]] = module_for(case["template"])
        module = modules[case["template"]]
        expected = {k: case[k] for k in ("initial_events", "feeds", "final_events", "message", "error")}
        actual = json.loads(json.dumps(run_case(module, case), ensure_ascii=False))
        if same(actual, expected) == is_listed(KNOWN, case["id"]):
            failures.append(case["id"])
        if case["id"].endswith("/whole"):
            # parse_response(recover=True) is the one-feed run's message (or raises its error)
            options = {"malformed": case["malformed"]} if "malformed" in case else {}
            try:
                message = module.parse_response(
                    case["chunks"][0], prefix=case["prefix"], tools=case["tools"], recover=True, **options
                )
            except Exception as error:  # noqa: BLE001 - the class is compared
                message = type(error).__name__
            wanted = case["message"] if case["error"] is None else case["error"]["type"]
            if not same(json.loads(json.dumps(message)), wanted):
                failures.append(case["id"] + " (parse_response)")
    assert failures == [], "differs from the recovery vectors"


def test_recovery_vectors_are_fresh():
    """Fails when the samples changed: run `python -m compiler vectors` (needs vLLM's interpreter)."""
    from compiler.conformance import vllm_oracle
    from compiler.conformance.recovery import stale_files

    if vllm_oracle.find_sources() is None:
        pytest.skip("vLLM's interpreter not found (compiler/conformance/vllm_oracle.py); committed vectors still run")
    assert [str(p) for p in stale_files(check=True)] == []


def test_vendored_python_module_passes_recovery_vectors():
    """The --vendor module (runtime/core.py and runtime/recover.py inlined), through the conformance protocol."""
    from compiler.conformance import run

    cases = read_json_lines(RECOVERY_DIR / "qwen3.jsonl")
    results = run("py", "templates_src/qwen3.json", cases)
    keys = ("initial_events", "feeds", "final_events", "message", "error")
    assert [c["id"] for c, r in zip(cases, results) if not same({k: r[k] for k in keys}, {k: c[k] for k in keys})] == []
