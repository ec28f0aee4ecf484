"""The command line: build, ir, --check, --vendor, and where templates come from."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from compiler.cli import main
from compiler.ir import format_program
from compiler.pipeline import to_program
from compiler.frontend.source import bundled, module_name, read

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = Path(__file__).resolve().parents[2] / "tests" / "golden"
QWEN3 = ROOT / "templates_src" / "qwen3.json"


def run_cli(*args, cwd=ROOT, env=None):
    return subprocess.run([sys.executable, "-m", "compiler", *args], capture_output=True, text=True, cwd=cwd, env=env)


@pytest.mark.parametrize("golden", sorted(GOLDEN.glob("*.json")), ids=lambda p: p.stem)
def test_ir_text_matches_golden(golden):
    expected = golden.with_suffix(".ir").read_text(encoding="utf-8")
    actual = format_program(to_program(read(str(golden))))
    if os.environ.get("UPDATE_GOLDEN"):
        golden.with_suffix(".ir").write_text(actual, encoding="utf-8")
    assert actual == expected


def test_ir_command_prints_the_ir():
    result = run_cli("ir", "qwen3")
    assert result.returncode == 0
    assert result.stdout == format_program(to_program(read(str(QWEN3))))
    assert "state implicit: watch open reasoning_content, open tool_calls, close content" in result.stdout


def test_help_documents_every_command():
    result = run_cli("--help")
    assert result.returncode == 0
    for command in ("build", "ir"):
        assert command in result.stdout
    build_help = run_cli("build", "--help").stdout
    for option in ("--all", "--check", "--vendor", "-o"):
        assert option in build_help


@pytest.mark.parametrize("stem,name", [("qwen3.5", "qwen3_5"), ("3b-model", "_3b_model"), ("class", "class_"), ("ok", "ok")])
def test_module_names_are_identifiers(stem, name):
    assert module_name(stem) == name


def test_build_writes_module_and_rebuild_changes_no_byte(tmp_path):
    assert main(["build", str(QWEN3), "-o", str(tmp_path)]) == 0
    first = (tmp_path / "qwen3.py").read_bytes()
    assert b"Source SHA-256" in first and b"templates_src/qwen3.json" in first
    assert main(["build", "qwen3", "-o", str(tmp_path)]) == 0  # bare name
    assert (tmp_path / "qwen3.py").read_bytes() == first


def test_dotted_file_name_gives_identifier_module(tmp_path):
    source = tmp_path / "qwen3.5.json"
    shutil.copy(QWEN3, source)
    assert main(["build", str(source), "-o", str(tmp_path / "out")]) == 0
    assert (tmp_path / "out" / "qwen3_5.py").is_file()


def test_committed_generated_code_is_fresh():
    """Fails when generated/ is stale: run `python -m compiler build --all`."""
    result = run_cli("build", "--check")
    assert result.returncode == 0, result.stderr
    generated = sorted(p.stem for p in (ROOT / "generated" / "python").glob("*.py"))
    assert generated == sorted(module_name(p.stem) for p in bundled())


def test_check_names_stale_files(tmp_path):
    (tmp_path / "qwen3.py").write_text("# stale\n")
    result = run_cli("build", "qwen3", "--check", "-o", str(tmp_path))
    assert result.returncode == 1
    assert "qwen3.py" in result.stderr


def test_tokenizer_config_and_saved_directory(tmp_path):
    template = json.loads(QWEN3.read_text())
    model_dir = tmp_path / "my-model"
    model_dir.mkdir()
    (model_dir / "tokenizer_config.json").write_text(json.dumps({"model_max_length": 10, "response_template": template}))
    direct = read(str(QWEN3))
    for spec in (model_dir, model_dir / "tokenizer_config.json"):
        source = read(str(spec))
        assert source.template == template
        assert source.name == "my_model"
        assert to_program(source).fields == to_program(direct).fields


def test_saved_by_transformers_save_pretrained(tmp_path):
    """A directory written by a real tokenizer's save_pretrained."""
    from tokenizers import Tokenizer, models
    from transformers import PreTrainedTokenizerFast

    template = json.loads(QWEN3.read_text())
    tokenizer = PreTrainedTokenizerFast(tokenizer_object=Tokenizer(models.WordLevel({"[UNK]": 0}, unk_token="[UNK]")))
    tokenizer.response_template = template
    tokenizer.save_pretrained(tmp_path / "saved")
    assert main(["build", str(tmp_path / "saved"), "-o", str(tmp_path / "out")]) == 0
    assert (tmp_path / "out" / "saved.py").is_file()


def test_missing_template_and_missing_key_are_clear(tmp_path):
    result = run_cli("build", "no_such_template", "-o", str(tmp_path))
    assert result.returncode == 2 and "no_such_template" in result.stderr and "Traceback" not in result.stderr
    (tmp_path / "tokenizer_config.json").write_text("{}")
    result = run_cli("build", str(tmp_path), "-o", str(tmp_path))
    assert result.returncode == 2 and "response_template" in result.stderr


def test_vendored_parser_runs_without_the_project(tmp_path):
    out = tmp_path / "vendor"
    assert main(["build", "qwen3", "--vendor", "-o", str(out)]) == 0
    script = textwrap.dedent(
        """
        import sys
        sys.modules["runtime"] = sys.modules["compiler"] = None  # the project must not be needed
        sys.path.insert(0, %r)
        import qwen3
        text = '<think>hm</think>Hi!\\n<tool_call>\\n{"name": "f", "arguments": {"x": "1"}}\\n</tool_call><|im_end|>'
        tools = [{"name": "f", "parameters": {"properties": {"x": {"type": "integer"}}}}]
        print(qwen3.parse_response(text, prefix="", tools=tools))
        """
        % str(out)
    )
    result = subprocess.run([sys.executable, "-I", "-c", script], capture_output=True, text=True, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "'arguments': {'x': 1}" in result.stdout


def test_vendored_parser_without_regex_needs_only_the_standard_library(tmp_path):
    template = tmp_path / "plain.json"
    template.write_text(
        json.dumps(
            {
                "start_anchor": "<|assistant|>",
                "fields": {
                    "reasoning_content": {"open": "<think>", "close": "</think>"},
                    "content": {"close": "<|end|>"},
                },
            }
        )
    )
    assert main(["build", str(template), "--vendor", "-o", str(tmp_path / "v")]) == 0
    script = (
        "import sys; sys.modules['regex'] = sys.modules['runtime'] = None; sys.path.insert(0, %r); import plain;"
        "print(plain.parse_response('<think>a</think>b<|end|>', prefix=''))" % str(tmp_path / "v")
    )
    result = subprocess.run([sys.executable, "-I", "-c", script], capture_output=True, text=True, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "'reasoning_content': 'a', 'content': 'b'" in result.stdout
