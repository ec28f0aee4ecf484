"""Helpers for the Go tests: run go in a module folder, build throwaway modules."""

from __future__ import annotations

import subprocess
from pathlib import Path

from compiler.backends.go import RUNTIME_DIR, RUNTIME_MODULE
from compiler.conformance.go import go_env, go_tool

ROOT = Path(__file__).resolve().parents[2]


def go(*args: str, cwd: Path, stdin: bytes | None = None) -> subprocess.CompletedProcess:
    done = subprocess.run([go_tool(), *args], cwd=cwd, env=go_env(), input=stdin, capture_output=True)
    assert done.returncode == 0, f"go {' '.join(args)} in {cwd}:\n{done.stdout.decode()}\n{done.stderr.decode()}"
    return done


def runtime_module(folder: Path, name: str = "probe") -> None:
    """A go.mod in `folder` that requires the project's runtime by a replace."""
    (folder / "go.mod").write_text(
        f"module {name}\n\ngo 1.22\n\nrequire {RUNTIME_MODULE} v0.0.0\n\nreplace {RUNTIME_MODULE} => {RUNTIME_DIR.as_posix()}\n",
        encoding="utf-8",
    )
