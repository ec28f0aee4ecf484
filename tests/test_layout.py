"""The layout a maintainer relies on: the pipeline's stages in folders, no
import circle among the compiler's modules (TYPE_CHECKING and function-level
imports count), few files at the top of compiler/, backends that read the IR
and call no pass, and no hand-written source file over about 800 lines."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
COMPILER = ROOT / "compiler"
MAX_LINES = 800
# Hand-written files allowed to be longer (generated files, whose headers say so, are skipped).
LONG_ALLOWED: set[str] = set()


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _modules() -> dict[str, Path]:
    return {_module_name(p): p for p in COMPILER.rglob("*.py") if "__pycache__" not in p.parts}


def _imports(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """The compiler modules `name` imports anywhere in its text."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out.update(alias.name for alias in node.names if alias.name in modules)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            for alias in node.names:
                if f"{target}.{alias.name}" in modules:
                    out.add(f"{target}.{alias.name}")  # a submodule
                elif target in modules:
                    out.add(target)  # a name defined in that module
    out.discard(name)
    return out


def test_no_import_circles():
    modules = _modules()
    graph = {name: _imports(name, path, modules) for name, path in modules.items()}
    # A submodule always imports its parent packages first; that is no circle
    # unless the parent imports a name back from it, which the graph shows.
    cycles = []
    state: dict[str, int] = {}

    def visit(node, stack):
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                cycles.append(stack[stack.index(nxt) :] + [nxt])
            elif nxt not in state:
                visit(nxt, stack)
        stack.pop()
        state[node] = 2

    for node in sorted(graph):
        if node not in state:
            visit(node, [])
    assert cycles == [], "import circles:\n" + "\n".join(" -> ".join(c) for c in cycles)


def test_compiler_top_level_is_small():
    top = sorted(p.name for p in COMPILER.glob("*.py"))
    assert len(top) <= 10, top


@pytest.mark.parametrize(
    "folder", ["frontend", "passes", "backends", "regex", "grammar", "diagnostics", "cli", "conformance"]
)
def test_stages_are_folders(folder):
    assert (COMPILER / folder / "__init__.py").is_file()


def _hand_written(path: Path) -> bool:
    head = path.read_text(encoding="utf-8", errors="replace")[:300]
    return "DO NOT EDIT" not in head and "Code generated" not in head


def test_no_long_hand_written_files():
    long = []
    for folder in (COMPILER, ROOT / "runtime"):
        for path in folder.rglob("*"):
            if path.suffix not in (".py", ".mjs", ".go", ".j2", ".lark") or "__pycache__" in path.parts:
                continue
            rel = path.relative_to(ROOT).as_posix()
            if rel in LONG_ALLOWED or not _hand_written(path) or path.name.endswith("_test.go"):
                continue
            lines = path.read_text(encoding="utf-8").count("\n")
            if lines > MAX_LINES:
                long.append(f"{rel}: {lines} lines")
    assert long == []


# Modules under compiler/backends/ allowed to import a module of compiler.passes,
# each with its reason. None today: every fact a backend renders is on the IR
# (compiler/ir.py), decided by a pass; the regex-emission helpers a backend runs
# while rendering a regex tree live in compiler/regex/, not in compiler/passes/.
BACKEND_PASS_IMPORTS: dict[str, str] = {}


def test_backends_read_the_ir_only():
    """No backend module imports compiler.passes (type names come from compiler.ir)."""
    modules = _modules()
    found = []
    for name, path in sorted(modules.items()):
        if not name.startswith("compiler.backends"):
            continue
        passes = sorted(
            m for m in _imports(name, path, modules) if m == "compiler.passes" or m.startswith("compiler.passes.")
        )
        if passes and name not in BACKEND_PASS_IMPORTS:
            found.append(f"{name} imports {', '.join(passes)}")
    assert found == [], "backends must read facts off the IR, not call passes:\n" + "\n".join(found)
