"""The JavaScript backend, driven from pytest so that `python -m pytest`
runs every language: Node's test runner over the vectors (tests/js/), the
conformance protocol in both languages on every vector, vendoring, and the
build command's languages."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from compiler.conformance import OUTPUT_KEYS, run
from compiler.errors import TemplateError
from compiler.conformance.vectors import TEMPLATES_DIR, VECTORS_DIR, is_listed, known_failures, read_json_lines
from differential import same
from js_support import same_js

ROOT = Path(__file__).resolve().parents[3]
NODE = shutil.which("node")
VECTOR_FILES = sorted(VECTORS_DIR.glob("*.jsonl"))


def _need_node_modules():
    assert NODE is not None, "node is not on PATH (.ci/run checks for it)"
    link = ROOT / "node_modules" / "response-template-runtime"
    assert link.exists(), "node_modules/ is missing: run `npm ci` at the project root (.ci/run does)"


def _template_path(name: str) -> Path:
    bundled = ROOT / "templates_src" / f"{name}.json"
    return bundled if bundled.is_file() else TEMPLATES_DIR / f"{name}.json"


def test_node_test_runner_passes_every_vector():
    """`node --test tests/js/`: every vector, and compiler/conformance/failures/js.txt holds only failing cases."""
    _need_node_modules()
    done = subprocess.run(
        [NODE, "--test", "tests/js/"], cwd=ROOT, capture_output=True, text=True, env=None, check=False
    )
    tail = "\n".join(done.stdout.splitlines()[-12:])
    assert done.returncode == 0, f"node --test failed:\n{done.stdout[-6000:]}\n{done.stderr[-2000:]}"
    assert "# fail 0" in tail


@pytest.mark.parametrize("path", VECTOR_FILES, ids=[p.stem for p in VECTOR_FILES])
def test_conformance_js_agrees_with_py(path: Path):
    """`conformance --lang js` and `--lang py` give the vectors' results on every case."""
    cases = read_json_lines(path)
    template = _template_path(cases[0]["template"])
    listed = known_failures("js")

    def known(case_id: str) -> bool:
        return is_listed(listed, case_id)

    py = run("py", template, cases)
    try:
        js = run("js", template, cases)
    except TemplateError:
        assert all(known(case["id"]) for case in cases), "the template does not build for JavaScript"
        return
    assert [r["id"] for r in js] == [c["id"] for c in cases]
    for case, py_result, js_result in zip(cases, py, js):
        expected = {key: case[key] for key in OUTPUT_KEYS if key != "id"}
        assert same({k: py_result[k] for k in expected}, expected), case["id"]
        js_same = same_js(js_result, expected)
        assert js_same != known(case["id"]), case["id"]


def test_conformance_command_speaks_the_protocol():
    case = {"id": "x", "prefix": "", "chunks": ["<think>a</think>b", "<|im_end|>"], "tools": None}
    for lang in ("py", "js"):
        done = subprocess.run(
            [sys.executable, "-m", "compiler", "conformance", "qwen3", "--lang", lang],
            input=json.dumps(case) + "\n",
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=True,
        )
        (line,) = done.stdout.splitlines()
        result = json.loads(line)
        assert list(result) == list(OUTPUT_KEYS)
        assert result["message"] == {"role": "assistant", "reasoning_content": "a", "content": "b"}
        assert result["error"] is None


def test_conformance_reports_errors_by_python_class():
    case = {"id": "e", "prefix": "", "chunks": ["<tool_call>{not json</tool_call><|im_end|>"], "tools": None}
    for lang in ("py", "js"):
        (result,) = run(lang, ROOT / "templates_src" / "qwen3.json", [case])
        assert result["error"] == {"stage": "feed", "index": 0, "type": "ValueError"}, lang
    (result,) = run("js", ROOT / "templates_src" / "qwen3.json", [{"id": "p", "prefix": None, "chunks": []}])
    assert result["error"] == {"stage": "init", "index": 0, "type": "ValueError"}


def test_vendored_js_runs_without_the_project(tmp_path: Path):
    """--vendor: the module and a copy of the runtime, runnable from any folder."""
    assert NODE is not None
    subprocess.run(
        [sys.executable, "-m", "compiler", "build", "qwen3", "--lang", "js", "--vendor", "-o", str(tmp_path / "out")],
        cwd=ROOT,
        check=True,
        capture_output=True,
    )
    elsewhere = tmp_path / "app"
    shutil.copytree(tmp_path / "out", elsewhere)
    script = elsewhere / "main.mjs"
    script.write_text(
        'import { parseResponse } from "./qwen3.mjs";\n'
        'console.log(JSON.stringify(parseResponse("<think>r</think>c<|im_end|>", { prefix: "" })));\n',
        encoding="utf-8",
    )
    done = subprocess.run([NODE, str(script)], cwd=elsewhere, capture_output=True, text=True, check=True)
    assert json.loads(done.stdout) == {"role": "assistant", "reasoning_content": "r", "content": "c"}


def test_every_runtime_module_is_vendored_and_packed():
    """runtime/js/*.mjs import each other: `--vendor` copies them all, and the package's `files` lists them all."""
    from compiler.backends.js import RUNTIME_DIR, RUNTIME_FILES

    modules = {path.name for path in RUNTIME_DIR.glob("*.mjs")}
    assert modules <= set(RUNTIME_FILES)
    package = json.loads((RUNTIME_DIR / "package.json").read_text(encoding="utf-8"))
    assert modules <= set(package["files"])


def test_build_lang_writes_each_language(tmp_path: Path):
    done = subprocess.run(
        [sys.executable, "-m", "compiler", "build", "qwen3.json", "--lang", "py,js", "-o", str(tmp_path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["qwen3.d.mts", "qwen3.mjs", "qwen3.py"]
    bad = subprocess.run(
        [sys.executable, "-m", "compiler", "build", "qwen3", "--lang", "cobol"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert bad.returncode == 2 and "cobol" in bad.stderr


def test_build_check_covers_javascript(tmp_path: Path):
    done = subprocess.run(
        [sys.executable, "-m", "compiler", "build", "--check"], cwd=ROOT, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert "js" in done.stdout
    assert (ROOT / "generated" / "js" / "qwen3.mjs").is_file()


def _tsc(project: Path) -> subprocess.CompletedProcess:
    _need_node_modules()
    tsc = ROOT / "node_modules" / "typescript" / "bin" / "tsc"
    assert tsc.is_file(), "TypeScript is missing: run `npm ci` at the project root (.ci/run does)"
    return subprocess.run([NODE, str(tsc), "-p", str(project)], cwd=ROOT, capture_output=True, text=True)


def test_typescript_consumer_type_checks():
    """`tsc --noEmit` on tests/js/consumer: a generated module's and the runtime's declarations."""
    done = _tsc(ROOT / "tests" / "js" / "consumer" / "tsconfig.json")
    assert done.returncode == 0, done.stdout + done.stderr


def test_typescript_sees_vendored_declarations_and_type_errors(tmp_path: Path):
    subprocess.run(
        [sys.executable, "-m", "compiler", "build", "gpt_oss", "--lang", "js", "--vendor", "-o", str(tmp_path)],
        cwd=ROOT,
        check=True,
        capture_output=True,
    )
    (tmp_path / "tsconfig.json").write_text(
        json.dumps(
            {
                "compilerOptions": {"module": "nodenext", "strict": True, "noEmit": True, "types": []},
                "files": ["use.mts"],
            }
        )
    )
    good = 'import { parseResponse } from "./gpt_oss.mjs";\nconst m = parseResponse("x", { prefix: "" });\nvoid m.content;\n'
    (tmp_path / "use.mts").write_text(good)
    done = _tsc(tmp_path / "tsconfig.json")
    assert done.returncode == 0, done.stdout + done.stderr
    (tmp_path / "use.mts").write_text(good + 'const n: number = parseResponse("x", { prefix: "" });\n')
    done = _tsc(tmp_path / "tsconfig.json")
    assert done.returncode != 0 and "TS2322" in done.stdout
