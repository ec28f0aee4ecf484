"""`python -m compiler conformance T --lang LANG`: cases as JSON lines on
standard input ({"id", "prefix", "chunks", "tools"}), one result line per
case on standard output ({"id", "initial_events", "feeds", "final_events",
"message", "error"}), from T's parser built for LANG in a temporary folder.
Each language's leg is `compiler/conformance_<lang>.py` with
`run(template_path, cases) -> list[dict]`."""

from __future__ import annotations

import importlib
import json
import sys

from . import source as sources
from .errors import TemplateError

LANGUAGES = ("go",)


def main(template: str, lang: str) -> int:
    if lang not in LANGUAGES:
        print(f"conformance: unknown language {lang!r} (one of: {', '.join(LANGUAGES)})", file=sys.stderr)
        return 2
    try:
        path = sources.resolve(template)
    except TemplateError as error:
        print(error, file=sys.stderr)
        return 2
    cases = [json.loads(line) for line in sys.stdin if line.strip()]
    leg = importlib.import_module(f"compiler.conformance_{lang}")
    try:
        results = leg.run(path, cases)
    except TemplateError as error:
        print(error, file=sys.stderr)
        return 2
    for result in results:
        sys.stdout.write(json.dumps(result, ensure_ascii=False) + "\n")
    return 0
