"""The whole conformance corpus against freshly compiled modules, as one
test stopping at the first wrong case: the per-mutant test of the mutation
run over the compiler's lowering and passes (tools/mutation/compiler_mutmut.py).

Unlike tools/mutation/corpus_runner.py, every template (bundled ones too) is
compiled inside the test, so the mutated lower.py and passes.py build the
program each module runs. black is skipped (it only formats what the
backend writes: the same code runs either way), which makes a compilation
cheap enough to repeat for every mutant.

A second test compares what the compiler writes from each template (the
code of every backend: Python, JavaScript, Go, before black and gofmt; the
IR's text form, `python -m compiler ir`; the Lark grammar for constrained
decoding) with what the unmutated compiler wrote when this module was
imported: the suite's `build --check` test (generated/ is not stale) and
its golden IR and grammar tests do the same for the bundled templates, so
a mutant that only changes output the vectors cannot see (provenance, a
speed hint, the order of equal-meaning literals, a grammar's groups) is
killed as the whole suite would kill it. mutmut imports the tests once, in the process it forks each mutant's
process from, so that reference is the original compiler's.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

TESTS = Path(__file__).resolve().parents[2] / "tests"
sys.path.insert(0, str(TESTS))
sys.path.insert(0, str(TESTS / "support"))
sys.path.insert(0, str(TESTS.parent))

from compiler.frontend import source as sources  # noqa: E402
from compiler.backends import go as go_backend  # noqa: E402
from compiler.backends import js as js_backend  # noqa: E402
from compiler.backends.python import module as python_backend  # noqa: E402
from compiler.grammar import grammar_for_source  # noqa: E402
from compiler.ir import format_program  # noqa: E402
from compiler.pipeline import module_from_code, to_program  # noqa: E402
from compiler.conformance.vectors import TEMPLATES_DIR, trace  # noqa: E402
from corpus_runner import CASES, limit_cpu_time  # noqa: E402

ROOT = TESTS.parent


def _template(name: str) -> dict:
    bundled = ROOT / "templates_src" / f"{name}.json"
    path = bundled if bundled.is_file() else TEMPLATES_DIR / f"{name}.json"
    return json.loads(path.read_text(encoding="utf-8"))


SOURCES = {name: sources.from_dict(_template(name), name) for name in sorted({case["template"] for case, _ in CASES})}


# Written only for the comparison below: a delimiter outside the project's
# regex grammar (an atomic group), which no vector has (the Python backend
# runs it on the `regex` module; JavaScript and Go refuse it at build time).
EXTRA_SOURCES = {
    "outside_grammar": sources.from_dict(
        {"start_anchor": "<|a|>", "fields": {"x": {"open_pattern": "(?><x>)", "close": "</x>"}, "content": {}}},
        "outside_grammar",
    ),
}


def _output(make) -> dict[str, str]:
    """`make()`'s files, or the class and message of its error (a template a
    backend refuses: the refusal is its output)."""
    try:
        made = make()
    except Exception as error:  # noqa: BLE001
        return {"": f"{type(error).__name__}: {error}"}
    return made if isinstance(made, dict) else {"": made}


def _emitted_code() -> dict[str, str]:
    """Template name and output -> what the compiler writes: the backends'
    code unformatted (black and gofmt only lay out what they are given), the
    IR's text, the Lark grammar (or the class and message of its error)."""
    black_format, go_format = python_backend.black.format_str, go_backend.gofmt
    python_backend.black.format_str = lambda text, mode: text
    go_backend.gofmt = lambda text, origin="": text
    try:
        code = {}
        for name, source in {**SOURCES, **EXTRA_SOURCES}.items():
            program = to_program(source)
            outputs = {
                "ir": lambda: format_program(program),
                "lark": lambda: grammar_for_source(source, format="lark"),
                "py": lambda: python_backend.render(program),
                "js": lambda: js_backend.render(program),
                "go": lambda: go_backend.render(program),
            }
            for kind, make in outputs.items():
                for path, text in _output(make).items():
                    code[f"{name}.{kind}:{path}"] = text
        return code
    finally:
        python_backend.black.format_str, go_backend.gofmt = black_format, go_format


EMITTED = _emitted_code()  # by the unmutated compiler (see the module's docstring)


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


def test_emitted_code_is_unchanged():
    limit_cpu_time(30.0)  # about 2-3 s of CPU; the budget only stops a mutant that loops
    for key, text in _emitted_code().items():
        assert text == EMITTED[key], key
