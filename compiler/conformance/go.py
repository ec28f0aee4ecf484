"""The Go leg of `python -m compiler conformance T --lang go`.

Builds the templates into a temporary Go module (the generated packages plus
a small main that calls runtime/go/conformance.Serve), runs the cases
through it as JSON lines, and returns the protocol lines. Several templates
can share one build (the vector tests and the differential leg do).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from ..frontend import source as sources
from ..backends.go import RUNTIME_DIR, RUNTIME_MODULE, package_name, render
from ..pipeline import to_program
from .vectors import parse_json_lines

HARNESS_MODULE = "rtcconformance"


def go_env() -> dict[str, str]:
    """The environment for go commands: no workspace, local modules only."""
    env = dict(os.environ)
    env.setdefault("GOFLAGS", "-mod=mod")
    env["GOWORK"] = "off"
    return env


def go_tool() -> str:
    tool = shutil.which("go")
    if tool is None:
        raise RuntimeError("the Go toolchain ('go') is not on PATH")
    return tool


def write_module(sources_by_name: dict[str, sources.Source], workdir: Path) -> None:
    """A Go module in `workdir`: one package per template and a main serving the protocol."""
    (workdir / "go.mod").write_text(
        f"module {HARNESS_MODULE}\n\ngo 1.22\n\nrequire {RUNTIME_MODULE} v0.0.0\n\n"
        f"replace {RUNTIME_MODULE} => {RUNTIME_DIR.resolve().as_posix()}\n",
        encoding="utf-8",
    )
    imports, entries = [], []
    for name, source in sorted(sources_by_name.items()):
        for rel, text in render(to_program(source)).items():
            path = workdir / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
        pkg = package_name(source.name)
        imports.append(f'\t{pkg} "{HARNESS_MODULE}/{pkg}"')
        entries.append(f"\t\t{json.dumps(name)}: {pkg}.New,")
    main = (
        "package main\n\nimport (\n\t\"fmt\"\n\t\"os\"\n\n"
        f'\t"{RUNTIME_MODULE}/conformance"\n'
        + "\n".join(imports)
        + "\n)\n\nfunc main() {\n\tparsers := map[string]conformance.NewFunc{\n"
        + "\n".join(entries)
        + "\n\t}\n\tfallback := \"\"\n\tif len(os.Args) > 1 {\n\t\tfallback = os.Args[1]\n\t}\n"
        "\tif err := conformance.Serve(parsers, fallback, os.Stdin, os.Stdout); err != nil {\n"
        "\t\tfmt.Fprintln(os.Stderr, err)\n\t\tos.Exit(1)\n\t}\n}\n"
    )
    (workdir / "main.go").write_text(main, encoding="utf-8")


def build_harness(sources_by_name: dict[str, sources.Source], workdir: Path) -> Path:
    write_module(sources_by_name, workdir)
    binary = workdir / "harness"
    done = subprocess.run(
        [go_tool(), "build", "-o", str(binary), "."], cwd=workdir, env=go_env(), capture_output=True, text=True
    )
    if done.returncode != 0:
        raise RuntimeError(f"go build failed:\n{done.stderr}")
    return binary


def run_cases(binary: Path, cases: list[dict], fallback: str = "") -> list[dict]:
    payload = "".join(json.dumps(case, ensure_ascii=False) + "\n" for case in cases)
    done = subprocess.run(
        [str(binary)] + ([fallback] if fallback else []),
        input=payload.encode("utf-8"),
        capture_output=True,
    )
    if done.returncode != 0:
        raise RuntimeError(f"Go conformance harness failed:\n{done.stderr.decode('utf-8', 'replace')}")
    return parse_json_lines(done.stdout.decode("utf-8"))


def run_many(sources_by_name: dict[str, sources.Source], cases: list[dict]) -> list[dict]:
    """Cases naming their template (key "template") through one Go build."""
    with tempfile.TemporaryDirectory(prefix="rtc-go-") as tmp:
        binary = build_harness(sources_by_name, Path(tmp))
        return run_cases(binary, cases)


def run(template_path, cases: list[dict]) -> list[dict]:
    """The protocol lines for `cases` run through the Go parser of one template."""
    source = sources.read(str(template_path))
    with tempfile.TemporaryDirectory(prefix="rtc-go-") as tmp:
        binary = build_harness({source.name: source}, Path(tmp))
        return run_cases(binary, cases, fallback=source.name)
