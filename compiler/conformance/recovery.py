"""Recovery-mode vectors: what vLLM 0.33's interpreter (the oracle of
`recover=True`, see docs/recovery.md) does on imperfect model output, in the
case format of vectors.py plus `"recover": true`.

Sources: compiler/conformance/recovery/sources.json, samples per template
(a bundled one, a feature template, or a recovery template declared in the
same file, copied to compiler/conformance/templates/ like the feature
templates) -> compiler/conformance/recovery/<template>.jsonl, each sample in
the chunkings of vectors.py. Generating needs vLLM's interpreter
(vllm_oracle.py); without it the committed files are left as they are and
`python -m compiler vectors --check` says so. Running them needs nothing.

A sample with `"malformed": "content"` asks for that option; vLLM has no
such mode, so its message is vLLM's with each malformed region's raw text
stored into the `content` field as one more of its matches (its span in
`input_text`, from the last open of that field to the malformed event's
end, stripped when the field strips), computed here from vLLM's own events.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from . import vllm_oracle
from .vectors import FEATURES_DIR, RECOVERY_DIR, RECOVERY_SOURCES, chunkings, render, trace
from ..resources import TEMPLATES_DIR as BUNDLED_DIR


def sources() -> dict:
    return json.loads(RECOVERY_SOURCES.read_text(encoding="utf-8"))


def template_of(name: str, declared: dict) -> tuple[dict, list | None]:
    """A sample's template and default tools: declared in sources.json, bundled, or a feature template."""
    if name in declared:
        return declared[name], None
    bundled = BUNDLED_DIR / f"{name}.json"
    if bundled.is_file():
        return json.loads(bundled.read_text(encoding="utf-8")), None
    feature = json.loads((FEATURES_DIR / f"{name}.json").read_text(encoding="utf-8"))
    return feature["template"], feature.get("tools")


def _content_fallback(template: dict, result: dict, input_text: str) -> None:
    """malformed="content": vLLM's message with the `content` field folded
    again over vLLM's events in order, its own closes and each malformed
    region's raw text (see the module doc), keys in first-stored order."""
    if result["message"] is None:
        return
    fields = template["fields"]
    name = (
        "content"
        if "content" in fields
        else next(n for n, f in fields.items() if not {"open", "open_pattern"} & set(f))
    )
    field = fields[name]
    strips = field.get("content", "text") == "text" and field.get("content_args", {}).get("strip", True)
    defaults = template.get("defaults", {})
    value = defaults.get(name)
    present = name in defaults
    first = {key: -1 for key in defaults}  # key -> when first stored
    opened = {}
    events = list(result["initial_events"]) + [e for feed in result["feeds"] for e in feed] + result["final_events"]
    for when, event in enumerate(events):
        if event["type"] == "region_open":
            opened[event["field"]] = event["start"]
            continue
        if event["type"] == "region_close":
            first.setdefault(event["field"], when)
            if event["field"] != name:
                continue
            piece = event["value"]
        elif event["type"] == "region_malformed":
            raw = input_text[opened[event["field"]] : event["end"]]
            piece = raw.strip() if strips else raw
            if not piece:
                continue
            first.setdefault(name, when)
        else:
            continue
        if "join" in field:
            value = piece if not present or value is None else value + field["join"] + piece
        elif field.get("repeats"):
            value = (value if present else []) + [piece]
        else:
            value = piece
        present = True
    message = dict(result["message"])
    if present:
        message[name] = value
    empty = value is None or (isinstance(value, (list, dict, str)) and not value)
    if present and empty and name not in defaults:
        del message[name]
    result["message"] = {key: message[key] for key in sorted(message, key=lambda key: first[key])}


def run_oracle(module, template: dict, sample: dict, chunks: list[str]) -> dict:
    holder = {}

    def make():
        holder["parser"] = module.ResponseParser(template, prefix=sample["prefix"], tools=sample.get("tools"))
        return holder["parser"]

    result = trace(make, chunks)
    if sample.get("malformed") == "content" and "parser" in holder:
        _content_fallback(template, result, holder["parser"].input_text)
    return result


def expected_files() -> tuple[dict[Path, str], str | None]:
    """(vector file -> content, None), or ({}, why) when the oracle is absent."""
    module = vllm_oracle.load()
    if module is None:
        return (
            {},
            "vLLM's interpreter not found (see compiler/conformance/vllm_oracle.py): recovery vectors not checked",
        )
    data = sources()
    declared = data.get("templates", {})
    out = {}
    for name, samples in sorted(data["samples"].items()):
        template, default_tools = template_of(name, declared)
        cases = []
        for sample in samples:
            sample = {"tools": default_tools, **sample}
            for label, chunks in chunkings(sample["output"], f"recover/{name}/{sample['id']}"):
                case = {
                    "id": f"recover/{name}/{sample['id']}/{label}",
                    "template": name,
                    "prefix": sample["prefix"],
                    "chunks": chunks,
                    "tools": sample.get("tools"),
                    "recover": True,
                }
                if "malformed" in sample:
                    case["malformed"] = sample["malformed"]
                case.update(run_oracle(module, template, sample, chunks))
                cases.append(case)
        out[RECOVERY_DIR / f"{name}.jsonl"] = render(cases)
    return out, None


def stale_files(check: bool) -> list[Path]:
    """Write (or, with check, compare) the recovery vectors; the stale paths."""
    expected, why = expected_files()
    if why is not None:
        print(why, file=sys.stderr)
        return []
    stale = []
    for path, text in expected.items():
        if not path.is_file() or path.read_text(encoding="utf-8") != text:
            stale.append(path)
            if not check:
                path.write_text(text, encoding="utf-8")
    for path in sorted(RECOVERY_DIR.glob("*.jsonl")):
        if path not in expected:
            stale.append(path)
            if not check:
                path.unlink()
    return stale
