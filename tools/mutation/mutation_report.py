"""Mutation score of runtime/core.py, from mutmut's stored results.

Run after `nice -n 10 mutmut run` (configured in pyproject.toml), and
`python tools/mutation/mutation_recheck.py` for survivors killed by tests added since:

    python tools/mutation/mutation_report.py            # summary and every unexplained mutant
    python tools/mutation/mutation_report.py --markdown # the table docs/mutation.md shows

Each mutant that is not killed is either explained as equivalent (it cannot
change anything a vector or a test observes) or listed as a survivor to
kill. Two explanations are recognised from the diff itself:

- message-only: the mutant changes only the text of an exception message
  (vectors and the contract compare the exception class, never the message);
- the entries of tools/mutation/mutation_equivalents.json, matched on the function
  and the changed lines, each with the reason it is equivalent.

The score is killed / (all - equivalent), for the whole file and for the
content parsers, transforms and tool typing alone.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CORE = ROOT / "runtime" / "core.py"
EQUIVALENTS = Path(__file__).resolve().parent / "mutation_equivalents.json"

# Content parsers, transforms and tool typing: the part of runtime/core.py
# that restates the reference's value rules (the rest is the streaming driver).
VALUE_PART = {
    "parse_text",
    "parse_int",
    "parse_float",
    "parse_bool",
    "_quoted_key",
    "parse_json",
    "_parse_value",
    "parse_xml_inline",
    "xml_inline_parser",
    "_value_parser",
    "prepared_parser",
    "parse_kv_lines",
    "parse_content",
    "Placeholder",
    "apply_transform",
    "transform_builder",
    "_transform_source",
    "_transform_closures",
    "parse_plain_json",
    "Field",
    "schema_types",
    "_cast_one",
    "cast_argument",
    "_json_schema_of",
    "tool_parameters",
    "type_tool_calls",
}

STRING = re.compile(r'[rbfu]*"(?:[^"\\]|\\.)*"|[rbfu]*\'(?:[^\'\\]|\\.)*\'')


def results() -> dict[str, str]:
    out = subprocess.run(
        ["mutmut", "results", "--all", "true"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout
    found = {}
    for line in out.splitlines():
        match = re.match(r"\s*(\S+): (.+)$", line)
        if match:
            found[match.group(1)] = match.group(2).strip()
    return found


def function_of(name: str) -> str:
    """runtime.core.xǁLiteralsǁfind__mutmut_3 -> Literals.find; x_parse_json__mutmut_1 -> parse_json."""
    local = name.split(".")[-1].rsplit("__mutmut_", 1)[0]
    if local.startswith("xǁ"):
        return ".".join(local[2:].split("ǁ"))
    return local[2:]


def part_of(function: str) -> str:
    return "values" if function.split(".")[0] in VALUE_PART else "driver"


_BODIES: dict[str, str] = {}


def _bodies() -> dict[str, str]:
    """Function name -> source, for every function of mutmut's mutated copy
    (mutants/runtime/core.py holds the original of each function, named
    ..._mutmut_orig, and each of its mutants)."""
    if not _BODIES:
        import ast

        text = (ROOT / "mutants" / "runtime" / "core.py").read_text(encoding="utf-8")
        lines = text.splitlines()
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and "__mutmut_" in node.name:
                # The signature too (a mutated default), under one name for all.
                head = "\n".join(lines[node.lineno - 1 : node.body[0].lineno - 1]).replace(f"def {node.name}(", "def f(", 1)
                _BODIES[node.name] = head + "\n" + "\n".join(lines[node.body[0].lineno - 1 : node.end_lineno])
    return _BODIES


def diff_of(name: str) -> tuple[list[str], list[str]]:
    import difflib

    local = name.split(".")[-1]
    bodies = _bodies()
    original = bodies.get(local.rsplit("__mutmut_", 1)[0] + "__mutmut_orig", "").splitlines()
    mutant = bodies.get(local, "").splitlines()
    removed, added = [], []
    for line in difflib.ndiff(original, mutant):
        if line.startswith("- "):
            removed.append(line[2:].strip())
        elif line.startswith("+ "):
            added.append(line[2:].strip())
    return removed, added


def _in_raise(line: str, source_lines: list[str]) -> bool:
    """Whether `line` (stripped) is part of a `raise` statement in the source."""
    for index, text in enumerate(source_lines):
        if text.strip() != line:
            continue
        for back in range(index, max(index - 6, -1), -1):
            candidate = source_lines[back].strip()
            if candidate.startswith("raise "):
                return True
            if back != index and not (STRING.fullmatch(candidate.rstrip(",")) or candidate.endswith("(")):
                break
    return False


def message_only(removed: list[str], added: list[str], source_lines: list[str]) -> bool:
    if not removed or not all(_in_raise(line, source_lines) for line in removed):
        return False

    def skeleton(lines):
        return "".join(STRING.sub("", line).replace("None", "") for line in lines).replace(" ", "")

    return skeleton(removed) == skeleton(added)


def classify(name: str, equivalents: list[dict], source_lines: list[str]) -> tuple[str, str]:
    removed, added = diff_of(name)
    if message_only(removed, added, source_lines):
        return "equivalent", "message-only"
    function = function_of(name)
    for entry in equivalents:
        if entry["function"] == function and entry["before"] in removed and entry["after"] in added:
            return "equivalent", entry["why"]
    return "unexplained", f"- {' / '.join(removed)}\n        + {' / '.join(added)}"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--markdown", action="store_true", help="print the score table as markdown")
    args = parser.parse_args(argv)
    statuses = results()
    rechecked_file = ROOT / "mutants" / "rechecked.json"
    rechecked = json.loads(rechecked_file.read_text(encoding="utf-8")) if rechecked_file.is_file() else {}
    for name, verdict in rechecked.items():
        if verdict == "killed" and statuses.get(name) not in (None, "killed"):
            statuses[name] = "killed"  # by a vector or test added after the run (tools/mutation/mutation_recheck.py)
    equivalents = json.loads(EQUIVALENTS.read_text(encoding="utf-8"))["equivalents"]
    source_lines = CORE.read_text(encoding="utf-8").splitlines()
    counts: dict[str, Counter] = defaultdict(Counter)
    unexplained = []
    reasons: Counter = Counter()
    for name, status in sorted(statuses.items()):
        function = function_of(name)
        part = part_of(function)
        counts[part]["all"] += 1
        if status == "timeout" and classify(name, equivalents, source_lines)[0] == "equivalent":
            # An equivalent mutant stopped by mutmut's wall-clock limit (a busy
            # machine) was not caught: it counts as equivalent.
            counts[part]["equivalent"] += 1
            reasons[classify(name, equivalents, source_lines)[1]] += 1
            continue
        if status in ("killed", "timeout"):  # a mutant that loops forever is caught by its time limit
            counts[part]["killed"] += 1
            continue
        if status == "not checked":
            counts[part]["pending"] += 1
            continue
        verdict, why = classify(name, equivalents, source_lines)
        if verdict == "equivalent":
            counts[part]["equivalent"] += 1
            reasons[why] += 1
        else:
            counts[part]["unexplained"] += 1
            unexplained.append((part, name, status, why))
    pending = sum(c["pending"] for c in counts.values())
    if pending:
        print(f"{pending} mutants not checked yet (mutmut still running?): scores below leave them out\n")
    rows = []
    for label, parts in (
        ("runtime/core.py", ("values", "driver")),
        ("content parsers, transforms, typing", ("values",)),
        ("streaming driver", ("driver",)),
    ):
        total = sum(counts[p]["all"] - counts[p]["pending"] for p in parts)
        killed = sum(counts[p]["killed"] for p in parts)
        equivalent = sum(counts[p]["equivalent"] for p in parts)
        score = killed / (total - equivalent) if total > equivalent else 1.0
        rows.append((label, total, killed, equivalent, total - killed - equivalent, score))
    if args.markdown:
        print("| part | mutants | killed | equivalent | survived | score |")
        print("|---|---:|---:|---:|---:|---:|")
        for label, total, killed, equivalent, survived, score in rows:
            print(f"| {label} | {total} | {killed} | {equivalent} | {survived} | {score:.1%} |")
        print()
        print("| equivalence | mutants |")
        print("|---|---:|")
        for why, count in reasons.most_common():
            print(f"| {why} | {count} |")
    else:
        for label, total, killed, equivalent, survived, score in rows:
            print(
                f"{label:40} {total:5} mutants  {killed:5} killed  {equivalent:4} equivalent  {survived:4} survived  score {score:.1%}"
            )
        for part, name, status, why in unexplained:
            print(f"[{part}] {name} ({status})\n        {why}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
