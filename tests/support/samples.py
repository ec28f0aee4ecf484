"""Bundled sample outputs (templates_src/samples/<template>.json) and their checks.

A samples file:
    {"template": "qwen3",
     "samples": [{"id": "...", "description": "...", "prefix": "...", "output": "...",
                  "tools": [...],                      # optional
                  "expected": {...message...}          # the message a user wants, written by hand
                  # or "expected_error": "ValueError"  # when the reference raises (e.g. cut off mid-call)
                 }, ...]}

Run `python tests/support/samples.py NAME` to see, per sample, what the reference
and the compiled parser give against the expected message.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SAMPLES_DIR = ROOT / "templates_src" / "samples"


def load_samples(name: str) -> list[dict]:
    data = json.loads((SAMPLES_DIR / f"{name}.json").read_text(encoding="utf-8"))
    assert data["template"] == name, f"{name}: samples file names template {data['template']!r}"
    return data["samples"]


def template_of(name: str) -> dict:
    return json.loads((ROOT / "templates_src" / f"{name}.json").read_text(encoding="utf-8"))


def chunkings(text: str, seed: str) -> list[list[str]]:
    """Whole, per character, and seeded random cuttings (as in the vectors)."""
    from compiler.conformance.vectors import chunkings as labelled

    return [chunks for _, chunks in labelled(text, seed)]


def outcome(parse, sample):
    """('ok', message) or ('error', exception class name)."""
    try:
        return "ok", parse(sample["output"], prefix=sample["prefix"], tools=sample.get("tools"))
    except Exception as error:  # noqa: BLE001 - the class is the result
        return "error", type(error).__name__


def wanted(sample):
    if "expected_error" in sample:
        return "error", sample["expected_error"]
    return "ok", sample["expected"]


def main(argv: list[str]) -> int:
    sys.path[:0] = [str(ROOT), str(ROOT / "tests")]
    from transformers.utils.chat_parsing import parse_response as reference_parse

    from compiler import compile_template
    from differential import assert_same_behaviour, same

    name = argv[0]
    template = template_of(name)
    module = compile_template(template, name=name)
    failures = 0
    for sample in load_samples(name):
        want = wanted(sample)
        ref = outcome(lambda t, **kw: reference_parse(t, template, **kw), sample)
        got = outcome(module.parse_response, sample)
        status = "ok"
        if not same(ref, want):
            status = "REFERENCE DIFFERS FROM EXPECTED"
        elif not same(got, want):
            status = "COMPILED DIFFERS FROM EXPECTED"
        else:
            try:
                for chunks in chunkings(sample["output"], sample["id"]):
                    assert_same_behaviour(template, module, sample["prefix"], chunks, sample.get("tools"))
            except AssertionError as error:
                status = f"STREAMING DIVERGES: {error}"
        print(f"{sample['id']}: {status}")
        if status != "ok":
            failures += 1
            print("  expected :", json.dumps(want, ensure_ascii=False))
            print("  reference:", json.dumps(ref, ensure_ascii=False))
            print("  compiled :", json.dumps(got, ensure_ascii=False))
    print(f"{len(load_samples(name)) - failures} passed, {failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
