"""Harvest llama.cpp's chat parser tests (tests/test-chat.cpp) as data.

Reads the C++ test file of a llama.cpp checkout (a git directory and a
commit), finds every `tester.test(OUTPUT)...run();` chain whose output is a
string literal, and writes one JSON case per line: the model output, the
options the test sets (reasoning format, thinking, tools), and the expected
content, reasoning and tool calls. No code is copied: only literals.

    python tests/templates/external/harvest_llamacpp.py GIT_DIR COMMIT > tests/templates/external/llamacpp.jsonl
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from cpp_literals import Token, matching, split_args, tokenize  # noqa: E402

SOURCE_FILE = "tests/test-chat.cpp"
REPOSITORY = "ggml-org/llama.cpp"  # read from the fork snapshot bartdeboer/llama.cpp, same tree layout


def _literal(part: list[Token]):
    """The value of a literal argument, or raise ValueError."""
    if len(part) == 1 and part[0].kind == "str":
        return part[0].value
    if len(part) == 1 and part[0].kind == "id" and part[0].value in ("true", "false"):
        return part[0].value == "true"
    if len(part) == 1 and part[0].kind == "id":
        return part[0].value
    if len(part) == 2 and part[0].value == "{" and part[1].value == "}":
        return ""
    raise ValueError(f"not a literal: {' '.join(t.value for t in part)} (line {part[0].line if part else '?'})")


def _message(content="", reasoning="", name="", arguments="", call_id=""):
    msg = {"content": content, "reasoning_content": reasoning, "tool_calls": []}
    if name or call_id:
        msg["tool_calls"].append({"name": name, "arguments": arguments, "id": call_id})
    return msg


_MESSAGE_BUILDERS = {
    "simple_assist_msg": lambda *a: _message(*a),
    "message_with_tool_calls": lambda name, args: _message("", "", name, args),
    "message_with_tool_calls_and_reasoning": lambda name, args, reasoning: _message("", reasoning, name, args),
    "message_with_content_and_tool_call": lambda content, name, args: _message(content, "", name, args),
    "message_with_reasoning_and_tool_call": lambda reasoning, name, args: _message("", reasoning, name, args),
}


class Harvester:
    def __init__(self, tokens: list[Token]):
        self.tokens = tokens
        self.tools: dict[str, dict] = {}
        self.messages: dict[str, dict] = {}
        self.cases: list[dict] = []
        self.skipped: list[dict] = []

    def message_expr(self, part: list[Token]) -> dict:
        if len(part) == 1 and part[0].kind == "id":
            if part[0].value not in self.messages:
                raise ValueError(f"unknown message {part[0].value}")
            return json.loads(json.dumps(self.messages[part[0].value]))
        if part and part[0].kind == "id" and part[0].value in _MESSAGE_BUILDERS and part[1].value == "(":
            close = matching(part, 1)
            args = [_literal(p) for p in split_args(part, 2, close)]
            return _MESSAGE_BUILDERS[part[0].value](*args)
        if part and part[0].value == "message_with_reasoning_content_and_multiple_tool_calls" and part[1].value == "(":
            close = matching(part, 1)
            reasoning, content, calls = split_args(part, 2, close)
            msg = _message(_literal(content), _literal(reasoning))
            inner = calls[1:-1]
            for call in split_args(inner, 0, len(inner)):
                name, args = (_literal(p) for p in split_args(call, 1, len(call) - 1))
                msg["tool_calls"].append({"name": name, "arguments": args, "id": ""})
            return msg
        raise ValueError(f"unsupported message expression at line {part[0].line if part else '?'}")

    def definitions(self) -> None:
        toks = self.tokens
        for i, tok in enumerate(toks[:-3]):
            if tok.kind == "id" and tok.value == "common_chat_tool" and toks[i + 1].kind == "id" and toks[i + 2].value == "{":
                close = matching(toks, i + 2)
                try:
                    name, description, params = (_literal(p) for p in split_args(toks, i + 3, close))
                    self.tools[toks[i + 1].value] = {
                        "type": "function",
                        "function": {"name": name, "description": description, "parameters": json.loads(params)},
                    }
                except (ValueError, json.JSONDecodeError):
                    pass
            if (
                tok.kind == "id"
                and tok.value in ("common_chat_msg", "auto")
                and toks[i + 1].kind == "id"
                and toks[i + 2].value == "="
            ):
                end = i + 3
                while toks[end].value != ";":
                    end = matching(toks, end) + 1 if toks[end].value in "({[" else end + 1
                try:
                    self.messages[toks[i + 1].value] = self.message_expr(toks[i + 3 : end])
                except (ValueError, KeyError, TypeError, IndexError):
                    pass

    def run(self) -> None:
        self.definitions()
        toks = self.tokens
        testers: dict[str, str] = {}
        i = 0
        while i < len(toks) - 3:
            tok = toks[i]
            if tok.kind == "id" and toks[i + 1].value == "=" and toks[i + 2].value == "peg_tester" and toks[i + 3].value == "(":
                arg = toks[i + 4]
                testers[tok.value] = arg.value if arg.kind == "str" else None
            if tok.kind == "id" and tok.value in testers and toks[i + 1].value == "." and toks[i + 2].value == "test" and toks[i + 3].value == "(":
                i = self.chain(i, testers[tok.value])
                continue
            i += 1

    def chain(self, i: int, template_path) -> int:
        toks = self.tokens
        line = toks[i].line
        close = matching(toks, i + 3)
        calls = []
        j = close + 1
        while toks[j].value == ".":
            name = toks[j + 1].value
            end = matching(toks, j + 2)
            calls.append((name, toks[j + 3 : end], j + 3, end))
            j = end + 1
        try:
            if template_path is None:
                raise ValueError("template path is not a literal")
            output = _literal(toks[i + 4 : close])
            if not isinstance(output, str):
                raise ValueError("output is not a string literal")
            case = self.case(template_path, output, calls, line)
        except (ValueError, KeyError, TypeError, IndexError, json.JSONDecodeError) as error:
            self.skipped.append({"line": line, "reason": str(error)})
        else:
            self.cases.append(case)
        return j

    def case(self, template_path: str, output: str, calls, line: int) -> dict:
        options = {"reasoning_format": "none", "enable_thinking": True, "add_generation_prompt": True}
        expected = _message()
        tools = []
        for name, args, start, end in calls:
            parts = split_args(self.tokens, start, end)
            if name == "reasoning_format":
                options["reasoning_format"] = _literal(parts[0]).replace("COMMON_REASONING_FORMAT_", "").lower()
            elif name in ("enable_thinking", "parallel_tool_calls", "is_partial", "add_generation_prompt", "expect_reconstruction"):
                options[name] = _literal(parts[0]) if parts else True
            elif name == "tools":
                inner = args[1:-1] if args and args[0].value == "{" else args
                for part in split_args(inner, 0, len(inner)):
                    if part and part[0].value == "{":
                        name_, description, params = (_literal(p) for p in split_args(part, 1, len(part) - 1))
                        tools.append({"type": "function", "function": {"name": name_, "description": description, "parameters": json.loads(params)}})
                        continue
                    tool_name = _literal(part)
                    if tool_name not in self.tools:
                        raise ValueError(f"unknown tool {tool_name}")
                    tools.append(self.tools[tool_name])
            elif name == "tool_choice":
                options["tool_choice"] = _literal(parts[0]).replace("COMMON_CHAT_TOOL_CHOICE_", "").lower()
            elif name in ("json_schema", "messages", "continue_final_message"):
                options[name] = True
            elif name == "expect":
                expected = self.message_expr(args)
            elif name == "expect_content":
                expected["content"] = _literal(parts[0])
            elif name == "expect_reasoning":
                expected["reasoning_content"] = _literal(parts[0])
            elif name == "expect_tool_calls":
                inner = args[1:-1]
                expected["tool_calls"] = []
                for call in split_args(inner, 0, len(inner)):
                    fields = [_literal(p) for p in split_args(call[1:-1], 0, len(call) - 2)]
                    fields += [""] * (3 - len(fields))
                    expected["tool_calls"].append({"name": fields[0], "arguments": fields[1], "id": fields[2]})
            elif name == "run":
                pass
            else:
                raise ValueError(f"unknown builder call .{name}()")
        return {
            "template_file": template_path,
            "line": line,
            "output": output,
            "options": options,
            "tools": tools,
            "expected": expected,
        }


def main(argv: list[str]) -> int:
    git_dir, commit = argv[0], argv[1]
    source = subprocess.run(
        ["git", "--git-dir", git_dir, "show", f"{commit}:{SOURCE_FILE}"], check=True, capture_output=True
    ).stdout.decode("utf-8")
    harvester = Harvester(tokenize(source))
    harvester.run()
    for n, case in enumerate(harvester.cases):
        record = {
            "id": f"llamacpp-{n:04d}",
            "source": "llama.cpp",
            "repository": REPOSITORY, "snapshot": "bartdeboer/llama.cpp",
            "file": SOURCE_FILE,
            "commit": commit,
            **case,
        }
        print(json.dumps(record, ensure_ascii=False))
    print(f"{len(harvester.cases)} cases, {len(harvester.skipped)} skipped", file=sys.stderr)
    for skip in harvester.skipped:
        print(f"  skipped line {skip['line']}: {skip['reason']}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
