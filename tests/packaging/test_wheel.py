"""The package works where it is installed: the wheel built from this tree,
installed in a clean virtual environment (its dependencies from the index,
as `pip install` would), runs every command a user runs, from a directory
that is not the checkout. Every other test imports the checkout, so only
this one notices a file that the wheel leaves out."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TEXT = '<think>Need the weather.</think>\nChecking.\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call><|im_end|>'
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
        },
    }
]
MESSAGE = {
    "role": "assistant",
    "reasoning_content": "Need the weather.",
    "content": "Checking.",
    "tool_calls": [{"type": "function", "function": {"name": "get_weather", "arguments": {"city": "Paris"}}}],
}


def _run(args, cwd, **kw):
    done = subprocess.run(args, cwd=cwd, capture_output=True, text=True, timeout=600, **kw)
    assert done.returncode == 0, f"{args} failed ({done.returncode}):\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done.stdout


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """(python of a clean venv holding the wheel, a working directory outside the checkout)."""
    tmp = tmp_path_factory.mktemp("wheel")
    tree = tmp / "tree"  # the checkout's files (committed and new, not ignored), built away from it
    listed = _run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], ROOT).split("\0")
    for name in filter(None, listed):
        source = ROOT / name
        if source.is_file():
            (tree / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, tree / name)
    _run([sys.executable, "-m", "build", "--wheel", "--no-isolation", "--outdir", str(tmp / "dist"), str(tree)], tmp)
    (wheel,) = (tmp / "dist").glob("*.whl")
    _run([sys.executable, "-m", "venv", str(tmp / "venv")], tmp)
    python = tmp / "venv" / "bin" / "python"
    _run([str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check", str(wheel)], tmp)
    work = tmp / "work"
    work.mkdir()
    return python, work


def test_build_a_bundled_template_gives_the_committed_module(installed):
    python, work = installed
    _run([str(python), "-m", "compiler", "build", "qwen3"], work)
    built = work / "generated" / "python" / "qwen3.py"
    assert built.read_bytes() == (ROOT / "generated" / "python" / "qwen3.py").read_bytes()


def test_vendored_parsers_in_every_language_run(installed):
    python, work = installed
    _run([str(python), "-m", "compiler", "build", "qwen3", "--lang", "py,js,go", "--vendor", "-o", "vendored"], work)
    out = work / "vendored"
    script = f"import sys, json; sys.path.insert(0, {str(out)!r}); import qwen3; print(json.dumps(qwen3.parse_response({TEXT!r}, prefix='')))"
    assert json.loads(_run([str(python), "-c", script], work)) == MESSAGE
    node = f"import({json.dumps(str(out / 'qwen3.mjs'))}).then(m => console.log(JSON.stringify(m.parseResponse({json.dumps(TEXT)}, {{prefix: ''}}))))"
    assert json.loads(_run(["node", "-e", node], work)) == MESSAGE
    (out / "go.mod").write_text("module vendored\n\ngo 1.22\n")
    _run(["go", "vet", "./..."], out, env={**os.environ, "GOWORK": "off", "GOFLAGS": "-mod=mod"})


def test_parse_grammar_check_and_compile_template(installed):
    python, work = installed
    message = json.loads(_run([str(python), "-m", "compiler", "parse", "qwen3", "--text", TEXT], work))
    assert message == MESSAGE
    (work / "tools.json").write_text(json.dumps(TOOLS))
    lark = _run([str(python), "-m", "compiler", "grammar", "qwen3", "--tools", "tools.json", "--format", "lark"], work)
    assert "get_weather" in lark
    _run([str(python), "-m", "compiler", "build", "deepseek_r1", "--lang", "js,go", "-o", "out"], work)
    script = (
        "import json; from compiler import compile_template; from compiler.resources import TEMPLATES_DIR\n"
        "module = compile_template(json.loads((TEMPLATES_DIR / 'qwen3.json').read_text()))\n"
        f"print(json.dumps(module.parse_response({TEXT!r}, prefix='')))"
    )
    assert json.loads(_run([str(python), "-c", script], work)) == MESSAGE
    case = {"id": "x", "prefix": "", "chunks": [TEXT[:9], TEXT[9:]], "tools": None}
    for lang in ("py", "js"):
        line = _run(
            [str(python), "-m", "compiler", "conformance", "qwen3", "--lang", lang], work, input=json.dumps(case) + "\n"
        )
        assert json.loads(line)["message"] == MESSAGE, lang
