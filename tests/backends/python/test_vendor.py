"""`--vendor` for Python: the runtime modules a template's IR asks for,
inlined without the project (compiler/backends/python/vendor.py), within
the line bounds of issue 33, and running standalone: a vendored module
parses every sample of its template as the module over runtime.core does.
(The conformance vectors run on vendored modules too: compiler/conformance/python.py.)"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from compiler.backends.python.vendor import RUNTIME_ORDER, runtime_modules, strip_documentation
from compiler.frontend import source as sources
from compiler.ir import LiteralDelimiter
from compiler.pipeline import python_source, to_program

ROOT = Path(__file__).resolve().parents[3]
TEMPLATES = sorted(path.stem for path in (ROOT / "templates_src").glob("*.json"))
# What a vendored qwen3 module may hold in all (generated tables and inlined
# runtime); issue 33's target is 2,000 (see test_vendored_qwen3_meets_the_target).
QWEN3_VENDORED_MAX = 2500
QWEN3_VENDORED_TARGET = 2000


def _vendored(name: str) -> str:
    return python_source(sources.read(name), vendored=True)


def test_every_runtime_module_is_in_the_vendoring_order():
    """A new runtime module must be placed in RUNTIME_ORDER (or it would never be inlined)."""
    modules = {path.stem for path in (ROOT / "runtime").glob("*.py")}
    assert modules - set(RUNTIME_ORDER) == {"__init__", "core", "batch"}


@pytest.mark.parametrize("name", TEMPLATES)
def test_vendored_modules_follow_the_ir(name):
    """cut only with a ContextCut, settled only with settled patterns, markup
    only with a field parsed by xml-inline, kv-lines or a json dialect; no
    import of the project is left."""
    program = to_program(sources.read(name))
    chosen = runtime_modules(program)
    delimiters = [d for f in program.fields for d in (f.open, f.close) if d is not None]
    settled = any(not isinstance(d, LiteralDelimiter) and d.settled is not None for d in delimiters)
    contents = [(f.content, json.loads(f.content_args_json)) for f in program.fields]
    markup = any(
        c in ("xml-inline", "kv-lines") or (c == "json" and (a.get("string_delims") or a.get("unquoted_keys")))
        for c, a in contents
    )
    assert ("cut" in chosen) == (program.context_cut is not None)
    assert ("settled" in chosen) == settled
    assert ("markup" in chosen) == bool(markup)
    code = _vendored(name)
    assert "from runtime" not in code and "import runtime" not in code
    for module in chosen:
        assert f"# -- runtime/{module}.py" in code


def test_vendored_qwen3_stays_within_its_bound():
    lines = _vendored("qwen3").count("\n")
    assert lines <= QWEN3_VENDORED_MAX, lines


@pytest.mark.xfail(strict=True, reason="issue 33: a vendored qwen3 module under 2,000 lines is not reached yet")
def test_vendored_qwen3_meets_the_target():
    assert _vendored("qwen3").count("\n") < QWEN3_VENDORED_TARGET


def test_stripping_keeps_the_code():
    """strip_documentation drops docstrings and comment lines only: the same
    code (ast without docstrings), and a body that was only a docstring is `pass`."""
    source = textwrap.dedent('''
        """Module."""
        import re  # kept


        class A:
            """Only a docstring."""


        def f(x):
            """Doc."""
            # a comment
            s = "# not a comment"
            return x  # trailing
        ''')
    stripped = strip_documentation(source)
    assert '"""' not in stripped and "# a comment" not in stripped
    assert "# not a comment" in stripped and "# kept" in stripped and "    pass" in stripped
    namespace: dict = {}
    exec(stripped, namespace)
    assert namespace["f"](3) == 3


@pytest.mark.parametrize("name", ["qwen3", "qwen3_coder", "glm47", "llama4_pythonic", "minimax_m2"])
def test_a_vendored_module_runs_standalone(name, tmp_path):
    """Built with `build --vendor` and imported where neither runtime nor
    compiler can be: every sample parses to what the module over runtime.core gives."""
    from compiler.cli import main

    assert main(["build", name, "--vendor", "-o", str(tmp_path)]) == 0
    samples = json.loads((ROOT / "templates_src" / "samples" / f"{name}.json").read_text(encoding="utf-8"))["samples"]
    script = textwrap.dedent("""
        import json, sys
        sys.modules["runtime"] = sys.modules["compiler"] = None  # the project must not be needed
        sys.path.insert(0, sys.argv[1])
        module = __import__(sys.argv[2])
        out = []
        for sample in json.load(sys.stdin):
            try:
                out.append(module.parse_response(sample["output"], prefix=sample["prefix"], tools=sample.get("tools")))
            except Exception as error:
                out.append(type(error).__name__)
            parser = module.ResponseParser(sample["prefix"], tools=sample.get("tools"), recover=True)
            for start in range(0, len(sample["output"]), 4):
                parser.feed(sample["output"][start : start + 4])
            out.append(parser.finalize()[0])
        print(json.dumps(out, default=repr))
        """)
    result = subprocess.run(
        [sys.executable, "-I", "-c", script, str(tmp_path), name],
        input=json.dumps(samples),
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert result.returncode == 0, result.stderr
    import importlib

    module = importlib.import_module(f"generated.python.{name}")
    expected = []
    for sample in samples:
        try:
            expected.append(module.parse_response(sample["output"], prefix=sample["prefix"], tools=sample.get("tools")))
        except Exception as error:  # noqa: BLE001 - compared by class name
            expected.append(type(error).__name__)
        parser = module.ResponseParser(sample["prefix"], tools=sample.get("tools"), recover=True)
        for start in range(0, len(sample["output"]), 4):
            parser.feed(sample["output"][start : start + 4])
        expected.append(parser.finalize()[0])
    assert json.loads(result.stdout) == json.loads(json.dumps(expected, default=repr))
