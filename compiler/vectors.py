"""Conformance vectors: what the reference interpreter does on every bundled
sample, cut into several chunkings, written as one JSON case per line in
tests/vectors/<template>.jsonl. Every language's runtime runs the same
vectors (as protobuf's conformance suite does).

Deterministic: the same templates and samples always give the same bytes.
Needs transformers (the reference) to generate; not to run the vectors.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

from .source import PROJECT_ROOT, bundled

SAMPLES_DIR = PROJECT_ROOT / "templates_src" / "samples"
VECTORS_DIR = PROJECT_ROOT / "tests" / "vectors"
RANDOM_CUTTINGS = 3


def chunkings(text: str, seed: str) -> list[tuple[str, list[str]]]:
    """(label, chunks): whole, per character, and seeded random cuts."""
    out = [("whole", [text]), ("chars", list(text))]
    rng = random.Random(seed)
    for n in range(RANDOM_CUTTINGS):
        count = min(max(len(text) - 1, 0), rng.randint(1, max(1, len(text) // 3)))
        cuts = sorted(rng.sample(range(1, len(text)), count)) if count else []
        bounds = [0] + cuts + [len(text)]
        out.append((f"cuts{n}", [text[a:b] for a, b in zip(bounds, bounds[1:])]))
    return out


def run_reference(template: dict, prefix: str, chunks: list[str], tools) -> dict:
    from transformers.utils.chat_parsing import ResponseParser

    return trace(lambda: ResponseParser(template, prefix=prefix, tools=tools), chunks)


def _class_name(error: BaseException) -> str:
    return type(error).__name__


def trace(make_parser, chunks: list[str], error_type=_class_name) -> dict:
    """Everything observable of one run, up to the first exception: the
    vector fields initial_events, feeds, final_events, message, error.
    `error_type` records the exception (its class name in vectors; tests
    comparing two runs in one process pass `type` to compare classes)."""
    result = {"initial_events": None, "feeds": [], "final_events": None, "message": None, "error": None}
    try:
        parser = make_parser()
    except Exception as error:  # noqa: BLE001 - the class is the result
        result["error"] = {"stage": "init", "index": 0, "type": error_type(error)}
        return result
    result["initial_events"] = parser.initial_events
    for index, chunk in enumerate(chunks):
        try:
            result["feeds"].append(parser.feed(chunk))
        except Exception as error:  # noqa: BLE001
            result["error"] = {"stage": "feed", "index": index, "type": error_type(error)}
            return result
    try:
        result["message"], result["final_events"] = parser.finalize()
    except Exception as error:  # noqa: BLE001
        result["error"] = {"stage": "finalize", "index": 0, "type": error_type(error)}
    return result


def cases_for(name: str) -> list[dict]:
    template = json.loads((PROJECT_ROOT / "templates_src" / f"{name}.json").read_text(encoding="utf-8"))
    samples_file = SAMPLES_DIR / f"{name}.json"
    if not samples_file.is_file():
        return []
    samples = json.loads(samples_file.read_text(encoding="utf-8"))["samples"]
    cases = []
    for sample in samples:
        for label, chunks in chunkings(sample["output"], f"{name}/{sample['id']}"):
            tools = sample.get("tools")
            case = {
                "id": f"{name}/{sample['id']}/{label}",
                "template": name,
                "prefix": sample["prefix"],
                "chunks": chunks,
                "tools": tools,
            }
            case.update(run_reference(template, sample["prefix"], chunks, tools))
            cases.append(case)
    return cases


def render(cases: list[dict]) -> str:
    return "".join(json.dumps(case, ensure_ascii=False) + "\n" for case in cases)


def expected_files() -> dict[Path, str]:
    """vectors file -> its content, for every template with samples."""
    out = {}
    for path in bundled():
        cases = cases_for(path.stem)
        if cases:
            out[VECTORS_DIR / f"{path.stem}.jsonl"] = render(cases)
    return out


def write_all(check: bool = False) -> list[Path]:
    """Write (or, with check, only compare) the vectors; return stale paths."""
    stale = []
    expected = expected_files()
    for path, text in expected.items():
        if not path.is_file() or path.read_text(encoding="utf-8") != text:
            stale.append(path)
            if not check:
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(text, encoding="utf-8")
    for path in sorted(VECTORS_DIR.glob("*.jsonl")):
        if path not in expected:
            stale.append(path)
            if not check:
                path.unlink()
    return stale
