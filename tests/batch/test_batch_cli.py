"""`python -m compiler parse TEMPLATE --input gens.jsonl`: one output line per input line."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from compiler.cli import main

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = json.loads((ROOT / "templates_src" / "samples" / "qwen3.json").read_text(encoding="utf-8"))["samples"]
BY_ID = {sample["id"]: sample for sample in SAMPLES}


def record(sample, **names):
    """A generation record; `names` renames the default fields (output, prefix, tools, id)."""
    fields = {"id": sample["id"], "output": sample["output"], "prefix": sample["prefix"]}
    if "tools" in sample:
        fields["tools"] = sample["tools"]
    return {names.get(key, key): value for key, value in fields.items()}


def write_lines(path: Path, lines: list[str]) -> Path:
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path


def read_output(path: Path) -> list[dict | None]:
    lines = path.read_text(encoding="utf-8").split("\n")
    assert lines[-1] == ""  # every line ends with a newline
    return [json.loads(line) if line else None for line in lines[:-1]]


@pytest.fixture
def mixed(tmp_path):
    """Good lines, a cut-off tool call, a malformed JSON line, a blank line, more good lines."""
    lines = [
        json.dumps(record(BY_ID["reasoning_then_content"])),
        json.dumps(record(BY_ID["cut_off_mid_call"])),
        '{"id": "broken", "output": "unterminated',
        "",
        json.dumps(record(BY_ID["single_call_typed"]), ensure_ascii=False),
        json.dumps({"id": "no-text", "prefix": ""}),
        json.dumps(record(BY_ID["prefilled_think_opener"]), ensure_ascii=False),
    ]
    return write_lines(tmp_path / "gens.jsonl", lines)


def test_every_line_gets_one_output_line(mixed, tmp_path, capsys):
    out = tmp_path / "parsed.jsonl"
    code = main(["parse", "qwen3", "--input", str(mixed), "--output", str(out)])
    assert code == 1
    rows = read_output(out)
    assert len(rows) == len(mixed.read_text(encoding="utf-8").splitlines()) == 7
    good = [0, 4, 6]
    names = ["reasoning_then_content", "single_call_typed", "prefilled_think_opener"]
    for index, name in zip(good, names):
        assert rows[index] == {"line": index + 1, "id": name, "message": BY_ID[name]["expected"]}
    assert rows[1]["id"] == "cut_off_mid_call"
    assert rows[1]["error"]["type"] == "ValueError" and rows[1]["error"]["line"] == 2 and "message" not in rows[1]
    assert rows[2] == {"line": 3, "error": {"type": "JSONDecodeError", "message": rows[2]["error"]["message"], "line": 3}}
    assert rows[3] is None  # the blank line is kept blank
    assert rows[5]["error"]["type"] == "KeyError" and "output" in rows[5]["error"]["message"]
    err = capsys.readouterr().err
    assert "7 line(s): 3 parsed, 3 failed, 1 blank" in err
    assert "line 2: ValueError" in err and "line 3: JSONDecodeError" in err and "line 6: KeyError" in err
    assert "\r" not in err  # no progress bar when stderr is not a terminal


def test_all_good_exits_zero_and_writes_to_stdout(tmp_path, capsys):
    names = ["reasoning_then_content", "parallel_calls_with_content", "endoftext_tail"]
    gens = write_lines(tmp_path / "gens.jsonl", [json.dumps(record(BY_ID[n])) for n in names])
    assert main(["parse", "qwen3", "--input", str(gens)]) == 0
    captured = capsys.readouterr()
    rows = [json.loads(line) for line in captured.out.splitlines()]
    assert [row["message"] for row in rows] == [BY_ID[n]["expected"] for n in names]
    assert "3 line(s): 3 parsed, 0 failed, 0 blank" in captured.err


def test_custom_field_names(tmp_path, capsys):
    names = {"output": "generation", "prefix": "prompt", "tools": "functions", "id": "uid"}
    rows = [record(BY_ID[n], **names) for n in ("single_call_typed", "after_tool_response")]
    rows.append({"uid": 7, "generation": "<think>x</think>y<|im_end|>"})  # no prompt: --prefix is the default
    gens = write_lines(tmp_path / "gens.jsonl", [json.dumps(r) for r in rows])
    out = tmp_path / "parsed.jsonl"
    argv = ["parse", "qwen3", "--input", str(gens), "--output", str(out), "--prefix", ""]
    for option, name in (("--text-field", "generation"), ("--prefix-field", "prompt"), ("--tools-field", "functions")):
        argv += [option, name]
    argv += ["--id-field", "uid", "--message-field", "parsed"]
    assert main(argv) == 0
    parsed = read_output(out)
    assert parsed[0] == {"line": 1, "uid": "single_call_typed", "parsed": BY_ID["single_call_typed"]["expected"]}
    assert parsed[0]["parsed"]["tool_calls"][0]["function"]["arguments"]["days"] == 3  # typed by the line's tools
    assert parsed[1]["parsed"] == BY_ID["after_tool_response"]["expected"]
    assert parsed[2] == {"line": 3, "uid": 7, "parsed": {"role": "assistant", "reasoning_content": "x", "content": "y"}}
    capsys.readouterr()


def test_tools_file_is_the_default_for_lines_without_tools(tmp_path, capsys):
    sample = BY_ID["single_call_typed"]
    tools = tmp_path / "tools.json"
    tools.write_text(json.dumps(sample["tools"]), encoding="utf-8")
    line = {"output": sample["output"], "prefix": sample["prefix"]}
    gens = write_lines(tmp_path / "gens.jsonl", [json.dumps(line)])
    assert main(["parse", "qwen3", "--input", str(gens), "--tools", str(tools)]) == 0
    assert json.loads(capsys.readouterr().out)["message"] == sample["expected"]


def test_odd_lines_are_reported_not_lost(tmp_path, capsys):
    gens = tmp_path / "gens.jsonl"
    gens.write_bytes(
        b'{"output": "a<|im_end|>"}\r\n'  # CRLF
        b'{"output": "caf\xe9"}\n'  # not UTF-8
        b"[1, 2]\n"
        b'{"output": 42}\n'
        b'{"output": "x", "prefix": null}\n'  # prefix null: parse_response requires one
        b"   \n"
        b'{"output": "last line, no newline<|im_end|>"}'
    )
    out = tmp_path / "parsed.jsonl"
    assert main(["parse", "qwen3", "--input", str(gens), "--output", str(out)]) == 1
    rows = read_output(out)
    assert len(rows) == 7
    assert rows[0]["message"] == {"role": "assistant", "content": "a"}
    assert [rows[i]["error"]["type"] for i in (1, 2, 3, 4)] == ["UnicodeDecodeError", "TypeError", "TypeError", "ValueError"]
    assert rows[5] is None
    assert rows[6]["message"]["content"] == "last line, no newline"
    assert "7 line(s): 2 parsed, 4 failed, 1 blank" in capsys.readouterr().err


def test_progress_bar_on_request(mixed, tmp_path, capsys):
    main(["parse", "qwen3", "--input", str(mixed), "--output", str(tmp_path / "o.jsonl"), "--progress"])
    err = capsys.readouterr().err
    assert "\r[" in err and "100%" in err and "7 lines" in err
    main(["parse", "qwen3", "--input", str(mixed), "--output", str(tmp_path / "o.jsonl"), "--no-progress"])
    assert "\r" not in capsys.readouterr().err


def test_command_line_from_stdin_with_exit_code(mixed):
    result = subprocess.run(
        [sys.executable, "-m", "compiler", "parse", "qwen3", "--input", "-"],
        input=mixed.read_text(encoding="utf-8"),
        capture_output=True,
        text=True,
        encoding="utf-8",
        cwd=ROOT,
    )
    assert result.returncode == 1
    assert len(result.stdout.split("\n")) - 1 == 7
    assert "3 parsed, 3 failed, 1 blank" in result.stderr and "Traceback" not in result.stderr


def test_text_mode_still_works(capsys):
    sample = BY_ID["reasoning_then_content"]
    assert main(["parse", "qwen3", "--text", sample["output"], "--prefix", sample["prefix"]]) == 0
    assert json.loads(capsys.readouterr().out) == sample["expected"]
    cut = BY_ID["cut_off_mid_call"]
    assert main(["parse", "qwen3", "--text", cut["output"]]) == 1
    assert "parse error: ValueError" in capsys.readouterr().err


def test_text_and_input_are_exclusive(mixed, capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["parse", "qwen3", "--text", "x", "--input", str(mixed)])
    assert exit_info.value.code == 2
    capsys.readouterr()
