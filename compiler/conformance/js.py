"""Conformance runner for the JavaScript backend (see conformance.py): the
template is built with --vendor into a temporary folder and the cases run in
one Node process (compiler/conformance/testee.mjs)."""

from __future__ import annotations

import json
import shutil
import subprocess
import tempfile
from pathlib import Path

from ..frontend import source as sources
from ..backends import js as backend
from ..pipeline import to_program
from .vectors import parse_json_lines

RUNNER = Path(__file__).with_name("testee.mjs")


def node_binary() -> str:
    node = shutil.which("node")
    if node is None:
        raise ValueError("the JavaScript conformance runner needs Node.js ('node' on PATH)")
    return node


def run(template_path, cases: list[dict]) -> list[dict]:
    program = to_program(sources.read(str(template_path)))
    with tempfile.TemporaryDirectory(prefix="conformance-js-") as folder:
        for name, text in backend.render(program, vendor=True).items():
            target = Path(folder) / name
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")
        stdin = "".join(json.dumps(case, ensure_ascii=False) + "\n" for case in cases)
        done = subprocess.run(
            [node_binary(), str(RUNNER), str(Path(folder) / f"{program.name}.mjs")],
            input=stdin.encode("utf-8"),
            capture_output=True,
            check=False,
        )
    if done.returncode != 0:
        raise ValueError(f"node failed ({done.returncode}): {done.stderr.decode('utf-8', 'replace')[-2000:]}")
    return parse_json_lines(done.stdout.decode("utf-8"))
