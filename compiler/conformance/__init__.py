"""`python -m compiler conformance T --lang LANG`: run cases through the
parser generated for one language, speaking the protocol every backend's
runner speaks.

Input (stdin): one JSON case per line, {"id", "prefix", "chunks", "tools"},
plus "recover": true (and "malformed") for a recovery-mode case.
Output (stdout): one JSON line per case, {"id", "initial_events", "feeds",
"final_events", "message", "error"}; `error` is null or {"stage": "init" |
"feed" | "finalize", "index": chunk index of a failing feed (else 0),
"type": the Python exception class name}.

Each language has a testee driver `compiler/conformance/<lang>.py` with
`run(template_path, cases) -> list[dict]`, which builds the template for that
language in a temporary folder and runs the cases there.
"""

from __future__ import annotations

import importlib
import json
import sys
from pathlib import Path

# Language -> runner module (compiler/conformance/<lang>.py).
RUNNERS = {
    "py": "compiler.conformance.python",
    "js": "compiler.conformance.js",
    "go": "compiler.conformance.go",
}

OUTPUT_KEYS = ("id", "initial_events", "feeds", "final_events", "message", "error")


def run(lang: str, template_path: str | Path, cases: list[dict]) -> list[dict]:
    """The protocol's output lines for `cases`, from the parser generated for `lang`."""
    if lang not in RUNNERS:
        raise ValueError(f"unknown language {lang!r} (one of: {', '.join(RUNNERS)})")
    return importlib.import_module(RUNNERS[lang]).run(template_path, cases)


def read_cases(stream) -> list[dict]:
    cases = []
    for number, line in enumerate(stream, start=1):
        if not line.strip():
            continue
        case = json.loads(line)
        if not isinstance(case, dict) or "chunks" not in case or "prefix" not in case:
            raise ValueError(f"line {number}: a case needs at least 'prefix' and 'chunks'")
        one = {"id": case.get("id"), "prefix": case["prefix"], "chunks": case["chunks"], "tools": case.get("tools")}
        one.update({key: case[key] for key in ("recover", "malformed") if key in case})  # recovery mode
        cases.append(one)
    return cases


def main(template: str, lang: str) -> int:
    from ..frontend import source as sources
    from ..errors import TemplateError

    try:
        path = sources.resolve(template)
        cases = read_cases(sys.stdin)
        results = run(lang, path, cases)
    except TemplateError as error:
        print(error, file=sys.stderr)
        return 2
    except ValueError as error:
        print(f"conformance: {error}", file=sys.stderr)
        return 2
    for result in results:
        sys.stdout.write(json.dumps({key: result[key] for key in OUTPUT_KEYS}, ensure_ascii=False) + "\n")
    return 0
