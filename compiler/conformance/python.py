"""Conformance runner for the Python backend (see conformance.py): the
template is built with --vendor into a temporary folder and imported from there."""

from __future__ import annotations

import importlib.util
import json
import tempfile
from pathlib import Path

from ..frontend import source as sources
from ..backends import python as backend
from ..pipeline import to_program
from .vectors import parser_options, trace


def run(template_path, cases: list[dict]) -> list[dict]:
    program = to_program(sources.read(str(template_path)))
    with tempfile.TemporaryDirectory(prefix="conformance-py-") as folder:
        for name, text in backend.render(program, vendor=True).items():
            (Path(folder) / name).write_text(text, encoding="utf-8")
        spec = importlib.util.spec_from_file_location(f"conformance_{program.name}", Path(folder) / f"{program.name}.py")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    results = []
    for case in cases:
        make = lambda: module.ResponseParser(case["prefix"], tools=case.get("tools"), **parser_options(case))  # noqa: E731
        out = trace(make, case["chunks"])
        # JSON has no tuples: what the protocol carries is the JSON form.
        results.append({"id": case.get("id"), **json.loads(json.dumps(out, ensure_ascii=False))})
    return results
