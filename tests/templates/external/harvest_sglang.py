"""Harvest SGLang's function-call and reasoning parser tests as data.

Reads the Python test files of an SGLang checkout (a git directory and a
commit) with `ast`, never importing or running them. For every
`detector.detect_and_parse(TEXT, ...)` whose TEXT is a literal (possibly
built from literals), it records the detector class and its literal
constructor arguments, the tools declared in the test, and the assertions
made on the result, as checks on paths of the message:

    content, reasoning_content, tool_calls.length, tool_calls[i].name,
    tool_calls[i].arguments, tool_calls[i].arguments.KEY

with an operator (eq, eq_stripped, contains, not_contains). Only literals
are copied.

    python tests/templates/external/harvest_sglang.py GIT_DIR COMMIT > tests/templates/external/sglang.jsonl
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys

REPOSITORY = "sgl-project/sglang"  # read from the fork snapshot JustinTong0323/sglang, same tree layout
FILES = [
    "test/registered/unit/function_call/test_function_call_parser.py",
    "test/registered/unit/function_call/test_hermes_detector.py",
    "test/registered/unit/function_call/test_hunyuan_detector.py",
    "test/registered/unit/function_call/test_llama32_detector.py",
    "test/registered/unit/function_call/test_mistral_detector.py",
    "test/registered/unit/function_call/test_minicpm5_detector.py",
    "test/registered/unit/function_call/test_poolside_v1_detector.py",
    "test/registered/unit/function_call/test_parallel_tool_calls.py",
    "test/registered/function_call/test_kimik2_detector.py",
    "test/registered/unit/parser/test_reasoning_parser.py",
]


class Unknown(Exception):
    pass


class Sym:
    """A symbolic path into a parse result."""

    def __init__(self, result: str, path: tuple):
        self.result = result
        self.path = path

    def extend(self, *items) -> "Sym":
        return Sym(self.result, self.path + items)


def _tool(kwargs: dict) -> dict:
    if "function" in kwargs:
        return {"type": "function", "function": kwargs["function"]}
    return kwargs


class Method:
    def __init__(self, env: dict, detector, file: str, cls: str, name: str):
        self.env = dict(env)
        self.detector = detector
        self.file = file
        self.cls = cls
        self.name = name
        self.cases: dict[str, dict] = {}
        self.order: list[dict] = []

    # -- evaluation of literal expressions -------------------------------------------------
    def value(self, node):
        if isinstance(node, ast.Constant):
            return node.value
        if isinstance(node, ast.JoinedStr):
            out = []
            for part in node.values:
                if isinstance(part, ast.Constant):
                    out.append(part.value)
                elif isinstance(part, ast.FormattedValue) and part.format_spec is None and part.conversion == -1:
                    v = self.value(part.value)
                    if isinstance(v, Sym):
                        raise Unknown
                    out.append(v if isinstance(v, str) else json.dumps(v) if isinstance(v, (dict, list)) else str(v))
                else:
                    raise Unknown
            return "".join(out)
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            left, right = self.value(node.left), self.value(node.right)
            if isinstance(left, Sym) or isinstance(right, Sym):
                raise Unknown
            return left + right
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult):
            left, right = self.value(node.left), self.value(node.right)
            return left * right
        if isinstance(node, (ast.List, ast.Tuple)):
            return [self.value(e) for e in node.elts]
        if isinstance(node, ast.Dict):
            return {self.value(k): self.value(v) for k, v in zip(node.keys, node.values)}
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            return -self.value(node.operand)
        if isinstance(node, ast.Name):
            if node.id in self.env:
                return self.env[node.id]
            if node.id in ("True", "False", "None"):
                return {"True": True, "False": False, "None": None}[node.id]
            raise Unknown
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self":
            key = "self." + node.attr
            if key in self.env:
                return self.env[key]
            raise Unknown
        if isinstance(node, ast.Attribute):
            base = self.value(node.value)
            if isinstance(base, Sym):
                return base.extend(node.attr)
            raise Unknown
        if isinstance(node, ast.Subscript):
            base = self.value(node.value)
            index = self.value(node.slice)
            if isinstance(base, Sym):
                return base.extend(index)
            return base[index]
        if isinstance(node, ast.Call):
            func = node.func
            args = node.args
            if isinstance(func, ast.Name) and func.id in ("Tool", "Function", "dict"):
                return {k.arg: self.value(k.value) for k in node.keywords}
            if isinstance(func, ast.Name) and func.id == "len" and len(args) == 1:
                base = self.value(args[0])
                if isinstance(base, Sym):
                    return base.extend("len()")
                return len(base)
            if isinstance(func, ast.Attribute) and func.attr == "loads" and isinstance(func.value, ast.Name) and func.value.id == "json":
                base = self.value(args[0])
                if isinstance(base, Sym):
                    return base.extend("json()")
                return json.loads(base)
            if isinstance(func, ast.Attribute) and func.attr == "dumps" and isinstance(func.value, ast.Name) and func.value.id == "json":
                if node.keywords:
                    kwargs = {k.arg: self.value(k.value) for k in node.keywords}
                    return json.dumps(self.value(args[0]), **kwargs)
                return json.dumps(self.value(args[0]))
            if isinstance(func, ast.Attribute) and func.attr == "join":
                sep = self.value(func.value)
                return sep.join(self.value(args[0]))
            if isinstance(func, ast.Attribute) and func.attr == "strip" and not args:
                base = self.value(func.value)
                if isinstance(base, Sym):
                    return base.extend("strip()")
                return base.strip()
            if isinstance(func, ast.Attribute) and func.attr == "detect_and_parse":
                owner = func.value
                detector = self.detector
                if isinstance(owner, ast.Name) and owner.id in self.env and isinstance(self.env[owner.id], tuple):
                    detector = self.env[owner.id]
                if detector is None:
                    raise Unknown
                text = self.value(args[0])
                if not isinstance(text, str):
                    raise Unknown
                tools = []
                if len(args) > 1:
                    try:
                        tools = [_tool(t) for t in self.value(args[1]) or []]
                    except Unknown:
                        tools = None
                case = {"detector": detector[0], "detector_args": detector[1], "output": text, "tools": tools, "checks": []}
                key = f"r{len(self.order)}"
                self.cases[key] = case
                self.order.append(case)
                return Sym(key, ())
            if isinstance(func, ast.Name) and func.id[:1].isupper() and (func.id.endswith("Detector") or func.id.endswith("Parser")):
                kwargs = {k.arg: self.value(k.value) for k in node.keywords}
                positional = [self.value(a) for a in args]
                return (func.id, {"args": positional, **kwargs} if positional else kwargs)
        raise Unknown

    # -- statements -------------------------------------------------------------------------
    def run(self, body) -> None:
        for stmt in body:
            try:
                self.statement(stmt)
            except (Unknown, KeyError, IndexError, TypeError, ValueError, AttributeError):
                continue

    def statement(self, stmt) -> None:
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
            target = stmt.targets[0]
            value = self.value(stmt.value)
            if isinstance(target, ast.Name):
                self.env[target.id] = value
            elif isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id == "self":
                self.env["self." + target.attr] = value
            return
        if isinstance(stmt, ast.With):
            self.run(stmt.body)
            return
        if isinstance(stmt, ast.Assert):
            self.assertion("assert", [stmt.test])
            return
        if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
            func = stmt.value.func
            if isinstance(func, ast.Attribute) and func.attr.startswith("assert"):
                self.assertion(func.attr, stmt.value.args)

    def check(self, sym: Sym, op: str, value) -> None:
        if isinstance(value, Sym):
            raise Unknown
        path = list(sym.path)
        if path and path[-1] == "strip()":
            path.pop()
            op = {"eq": "eq_stripped"}.get(op, op)
        mapping = None
        if path == ["normal_text"]:
            mapping = "content"
        elif path == ["reasoning_text"]:
            mapping = "reasoning_content"
        elif path == ["calls", "len()"]:
            mapping = "tool_calls.length"
        elif path == ["calls"] and value == [] and op == "eq":
            mapping, value = "tool_calls.length", 0
        elif len(path) >= 3 and path[0] == "calls" and isinstance(path[1], int):
            i = path[1]
            if path[2:] == ["name"]:
                mapping = f"tool_calls[{i}].name"
            elif path[2:] == ["parameters", "json()"]:
                mapping = f"tool_calls[{i}].arguments"
            elif len(path) == 5 and path[2:4] == ["parameters", "json()"] and isinstance(path[4], str):
                mapping = f"tool_calls[{i}].arguments.{path[4]}"
        if mapping is None:
            raise Unknown
        self.cases[sym.result]["checks"].append({"path": mapping, "op": op, "value": value})

    def assertion(self, kind: str, args) -> None:
        if kind == "assert":
            test = args[0]
            if isinstance(test, ast.Compare) and len(test.ops) == 1:
                left, right = self.value(test.left), self.value(test.comparators[0])
                op = test.ops[0]
                if isinstance(op, ast.Eq):
                    self.assertion_eq(left, right)
                elif isinstance(op, ast.In) and isinstance(right, Sym):
                    self.check(right, "contains", left)
                elif isinstance(op, ast.NotIn) and isinstance(right, Sym):
                    self.check(right, "not_contains", left)
            return
        if kind == "assertEqual" and len(args) >= 2:
            self.assertion_eq(self.value(args[0]), self.value(args[1]))
        elif kind == "assertIn" and len(args) >= 2:
            container = self.value(args[1])
            if isinstance(container, Sym):
                self.check(container, "contains", self.value(args[0]))
        elif kind == "assertNotIn" and len(args) >= 2:
            container = self.value(args[1])
            if isinstance(container, Sym):
                self.check(container, "not_contains", self.value(args[0]))

    def assertion_eq(self, left, right) -> None:
        if isinstance(left, Sym):
            self.check(left, "eq", right)
        elif isinstance(right, Sym):
            self.check(right, "eq", left)


def harvest_file(source: str, file: str) -> list[dict]:
    tree = ast.parse(source)
    module_env: dict = {}
    probe = Method({}, None, file, "", "")
    for stmt in tree.body:
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
            try:
                module_env[stmt.targets[0].id] = probe.value(stmt.value)
            except Exception:  # noqa: BLE001 - a module value we cannot read is simply not known
                pass
    cases = []
    for cls in [n for n in ast.walk(tree) if isinstance(n, ast.ClassDef)]:
        setup = Method(module_env, None, file, cls.name, "setUp")
        for item in cls.body:
            if isinstance(item, ast.FunctionDef) and item.name in ("setUp", "setUpClass", "setup_method"):
                setup.run(item.body)
        detector = setup.env.get("self.detector") or setup.env.get("self.parser")
        if not isinstance(detector, tuple):
            detector = None
        for item in cls.body:
            if isinstance(item, ast.FunctionDef) and item.name.startswith("test"):
                method = Method(setup.env, detector, file, cls.name, item.name)
                method.run(item.body)
                for n, case in enumerate(method.order):
                    if not case["checks"]:
                        continue
                    cases.append({"test": f"{cls.name}.{item.name}" + (f"#{n}" if len(method.order) > 1 else ""), "line": item.lineno, **case})
    return cases


def main(argv: list[str]) -> int:
    git_dir, commit = argv[0], argv[1]
    count = 0
    for file in FILES:
        source = subprocess.run(["git", "--git-dir", git_dir, "show", f"{commit}:{file}"], check=True, capture_output=True).stdout.decode()
        cases = harvest_file(source, file)
        print(f"{file}: {len(cases)} cases", file=sys.stderr)
        for case in cases:
            record = {"id": f"sglang-{count:04d}", "source": "sglang", "repository": REPOSITORY, "snapshot": "JustinTong0323/sglang", "file": file, "commit": commit, **case}
            print(json.dumps(record, ensure_ascii=False))
            count += 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
