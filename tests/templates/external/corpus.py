"""Run the external corpus (other servers' parser tests, harvested as data)
through the bundled templates and report agreement per source and per template.

    python tests/templates/external/corpus.py              # summary and every disagreement
    python tests/templates/external/corpus.py --baseline   # rewrite baseline.json from this run

Each case is parsed by the reference interpreter (the compiled parsers equal
it, see test_differential.py) with the template `mapping.json` names for its
family, fed the generation-prompt tail of its thinking mode as prefix.
Agreement means every check the source makes holds: content and reasoning
compared with surrounding whitespace stripped (the text parser strips it),
tool calls by count, name and parsed arguments; ids are not compared.
"""

from __future__ import annotations

import json
import math
import re
import sys
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
SOURCES = {"sglang": HERE / "sglang.jsonl", "llama.cpp": HERE / "llamacpp.jsonl"}
BASELINE = HERE / "baseline.json"

# Markers a `reasoning_format: none` expectation keeps inline in content.
REASONING_MARKERS = ("<think>", "</think>", "[THINK]", "[/THINK]", "<|START_THINKING|>", "<|END_THINKING|>",
                     "<seed:think>", "</seed:think>", "<|channel>", "<channel|>", "<|channel|>analysis")
REASONING_PARSER_FILES = ("test/registered/unit/parser/test_reasoning_parser.py",)


def load_cases() -> list[dict]:
    cases = []
    for source, path in SOURCES.items():
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                cases.append(json.loads(line))
    return cases


def load_mapping() -> dict:
    return json.loads((HERE / "mapping.json").read_text(encoding="utf-8"))


def bundled_names() -> set[str]:
    return {p.stem for p in (ROOT / "templates_src").glob("*.json")}


def not_applicable(case: dict) -> str | None:
    """Why a case is outside what a response template models, or None."""
    if case["source"] == "sglang":
        args = case.get("detector_args") or {}
        if args.get("continue_final_message"):
            return "continues a prefilled assistant message"
        if args.get("force_nonempty_content"):
            return "a server option that moves the reasoning into content when the answer is empty"
        if case["detector"] == "MiniMaxAppendThinkDetector":
            return "the detector keeps reasoning inline in content by design"
        return None
    options = case["options"]
    if options.get("is_partial"):
        return "partial parse of an unfinished stream"
    if options.get("json_schema"):
        return "response-format (JSON schema) mode"
    if options.get("messages") or options.get("continue_final_message") or options.get("add_generation_prompt") is False:
        return "continues a prefilled assistant message"
    if options.get("tool_choice") == "none":
        return "tool_choice none"
    if options["reasoning_format"] == "none" and any(m in case["expected"]["content"] for m in REASONING_MARKERS):
        return "reasoning_format none keeps reasoning inline in content"
    return None


def route(case: dict, mapping: dict, existing: set[str]):
    """(family key, template name or None, candidate names, prefix)."""
    if case["source"] == "sglang":
        row = mapping["sglang"].get(case["detector"])
        key = case["detector"]
        if row is None:
            return key, None, [], ""
        names = row["templates"]
        for pattern, alternative in row.get("by_output", []):
            if re.search(pattern, case["output"]):
                names = alternative
        args = case.get("detector_args") or {}
        prefix = row["prefix"]
        if args.get("force_reasoning") and "prefix_forced" in row:
            prefix = row["prefix_forced"]
        if args.get("force_reasoning") is False and "prefix_unforced" in row:
            prefix = row["prefix_unforced"]
    else:
        key = case["template_file"]
        row = mapping["llama.cpp"].get(key)
        if row is None:
            return key, None, [], ""
        names = row["templates"]
        prefix = row["thinking"] if case["options"].get("enable_thinking", True) else row["no_thinking"]
    name = next((n for n in names if n in existing), None)
    return key, name, names, prefix


def checks_of(case: dict) -> list[dict]:
    if case["source"] == "sglang":
        return case["checks"]
    expected = case["expected"]
    checks = [
        {"path": "content", "op": "eq", "value": expected["content"]},
        {"path": "reasoning_content", "op": "eq", "value": expected["reasoning_content"]},
        {"path": "tool_calls.length", "op": "eq", "value": len(expected["tool_calls"])},
    ]
    for i, call in enumerate(expected["tool_calls"]):
        checks.append({"path": f"tool_calls[{i}].name", "op": "eq", "value": call["name"]})
        arguments = call["arguments"]
        try:
            arguments = json.loads(arguments) if arguments else {}
        except json.JSONDecodeError:
            pass
        checks.append({"path": f"tool_calls[{i}].arguments", "op": "eq", "value": arguments})
    return checks


def _resolve(message: dict, path: str):
    if path in ("content", "reasoning_content"):
        value = message.get(path) or ""
        return value if isinstance(value, str) else json.dumps(value)
    calls = message.get("tool_calls") or []
    if path == "tool_calls.length":
        return len(calls)
    m = re.fullmatch(r"tool_calls\[(\d+)\]\.(name|arguments)(?:\.(.+))?", path)
    index, attr, key = int(m.group(1)), m.group(2), m.group(3)
    if index >= len(calls):
        return KeyError
    function = calls[index].get("function", {}) if isinstance(calls[index], dict) else {}
    value = function.get(attr)
    if attr == "arguments" and isinstance(value, str):
        try:
            value = json.loads(value)
        except json.JSONDecodeError:
            pass
    if key is not None:
        return value.get(key, KeyError) if isinstance(value, dict) else KeyError
    if attr == "arguments" and value is None:
        value = {}
    return value


def _holds(got, op: str, want) -> bool:
    if got is KeyError:
        return False
    if isinstance(got, str) and isinstance(want, str):
        got, want = got.strip(), want.strip()
    if op in ("eq", "eq_stripped"):
        return got == want
    if op == "contains":
        return isinstance(got, str) and want in got
    if op == "not_contains":
        return isinstance(got, str) and want not in got
    raise ValueError(op)


def evaluate(case: dict, template: dict, prefix: str, may_raise: bool = False) -> tuple[str, str]:
    """(status, what differs): agree, disagree or raises (only for listed malformed cases)."""
    from transformers.utils.chat_parsing import parse_response

    try:
        message = parse_response(case["output"], template, prefix=prefix, tools=case.get("tools") or None)
    except ValueError as error:
        if may_raise:
            return "raises", f"ValueError on a malformed or cut-off call: {error}"[:200]
        return "disagree", f"raises ValueError: {error}"[:200]
    except Exception as error:  # noqa: BLE001 - a raise is a disagreement, named
        return "disagree", f"raises {type(error).__name__}: {error}"[:200]
    failed = []
    for check in checks_of(case):
        if (
            check["path"] == "content"
            and case["source"] == "sglang"
            and (case["file"] in REASONING_PARSER_FILES or case["detector"].endswith("ReasoningDetector"))
            and message.get("tool_calls")
        ):
            continue  # a reasoning parser hands tool markup on as text; the template parses it
        got = _resolve(message, check["path"])
        if not _holds(got, check["op"], check["value"]):
            failed.append(f"{check['path']} {check['op']} {json.dumps(check['value'], ensure_ascii=False)[:80]}, got {json.dumps(got if got is not KeyError else None, ensure_ascii=False)[:80]}")
    return ("disagree" if failed else "agree"), "; ".join(failed)


def run() -> dict:
    mapping = load_mapping()
    existing = bundled_names()
    templates: dict[str, dict] = {}
    raises = json.loads((HERE / "raises.json").read_text(encoding="utf-8"))
    results = []
    for case in load_cases():
        key, name, names, prefix = route(case, mapping, existing)
        result = {"id": case["id"], "source": case["source"], "family": key, "template": name, "candidates": names}
        reason = not_applicable(case)
        if reason:
            result.update(status="n/a", detail=reason)
        elif name is None:
            result.update(status="no template", detail=" or ".join(names) or "unmapped")
        else:
            if name not in templates:
                templates[name] = json.loads((ROOT / "templates_src" / f"{name}.json").read_text(encoding="utf-8"))
            status, detail = evaluate(case, templates[name], prefix, case["id"] in raises)
            result.update(status=status, detail=detail)
        results.append(result)
    return summarise(results)


def summarise(results: list[dict]) -> dict:
    per_source: dict = defaultdict(lambda: {"agree": 0, "disagree": 0, "n/a": 0, "no template": 0, "raises": 0})
    per_template: dict = defaultdict(lambda: {"agree": 0, "disagree": 0})
    missing: dict = defaultdict(int)
    for r in results:
        per_source[r["source"]][r["status"]] += 1
        if r["status"] in ("agree", "disagree"):
            per_template[r["template"]][r["status"]] += 1
        if r["status"] == "no template":
            missing[f"{r['family']} -> {r['detail']}"] += 1
    return {
        "results": results,
        "per_source": dict(per_source),
        "per_template": dict(per_template),
        "missing": dict(missing),
    }


def ratio(counts: dict) -> float:
    total = counts["agree"] + counts["disagree"]
    return counts["agree"] / total if total else 1.0


def main(argv: list[str]) -> int:
    sys.path.insert(0, str(ROOT))
    report = run()
    print("per source (agree / compared; n/a and families without a template are not compared):")
    for source, counts in sorted(report["per_source"].items()):
        print(f"  {source:10s} {counts['agree']:4d} / {counts['agree'] + counts['disagree']:4d} = {ratio(counts):6.1%}"
              f"   n/a {counts['n/a']}, no template {counts['no template']}, malformed (raises) {counts['raises']}")
    print("per template:")
    for name, counts in sorted(report["per_template"].items()):
        print(f"  {name:16s} {counts['agree']:4d} / {counts['agree'] + counts['disagree']:4d} = {ratio(counts):6.1%}")
    print("families without a template yet:")
    for family, count in sorted(report["missing"].items()):
        print(f"  {count:3d}  {family}")
    print("disagreements:")
    for r in report["results"]:
        if r["status"] == "disagree":
            print(f"  {r['id']} [{r['template']}] {r['detail']}")
    if "--baseline" in argv:
        baseline = {
            "_doc": "Written by `python tests/templates/external/corpus.py --baseline`. tests/templates/test_external.py fails when an agreement drops below these levels, or a case disagrees that templates_src/README.md does not list.",
            "per_source": {s: math.floor(ratio(c) * 10000) / 10000 for s, c in sorted(report["per_source"].items())},
            "per_template": {t: math.floor(ratio(c) * 10000) / 10000 for t, c in sorted(report["per_template"].items())},
        }
        BASELINE.write_text(json.dumps(baseline, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
