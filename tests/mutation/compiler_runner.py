"""The whole conformance corpus against freshly compiled modules, as one
test stopping at the first wrong case: the per-mutant test of the mutation
run over the compiler's lowering and passes (tests/mutation/compiler_mutmut.py).

Unlike tests/mutation/corpus_runner.py, every template (bundled ones too) is
compiled inside the test, so the mutated lower.py and passes.py build the
program each module runs. black is skipped (it only formats what the
backend writes: the same code runs either way), which makes a compilation
cheap enough to repeat for every mutant.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

TESTS = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(TESTS))
sys.path.insert(0, str(TESTS.parent))

from compiler import source as sources  # noqa: E402
from compiler.backends import python as python_backend  # noqa: E402
from compiler.pipeline import module_from_code, to_program  # noqa: E402
from compiler.vectors import TEMPLATES_DIR, trace  # noqa: E402
from corpus_runner import CASES, limit_cpu_time  # noqa: E402

ROOT = TESTS.parent


def _template(name: str) -> dict:
    bundled = ROOT / "templates_src" / f"{name}.json"
    path = bundled if bundled.is_file() else TEMPLATES_DIR / f"{name}.json"
    return json.loads(path.read_text(encoding="utf-8"))


SOURCES = {name: sources.from_dict(_template(name), name) for name in sorted({case["template"] for case, _ in CASES})}


def test_compiled_corpus_in_one_pass(monkeypatch):
    monkeypatch.setattr(python_backend.black, "format_str", lambda text, mode: text)
    limit_cpu_time()
    modules = {}
    for case, expected in CASES:
        name = case["template"]
        module = modules.get(name)
        if module is None:
            source = SOURCES[name]
            module = modules[name] = module_from_code(python_backend.render(to_program(source)), source)
        actual = trace(lambda: module.ResponseParser(case["prefix"], tools=case["tools"]), case["chunks"])
        assert json.dumps(actual, ensure_ascii=False) == expected, case["id"]
