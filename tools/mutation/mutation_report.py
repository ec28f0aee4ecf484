"""Mutation score of the Python runtime (runtime/*.py), per module and group, from mutmut's stored results.

Run after `nice -n 10 mutmut run` (configured in pyproject.toml: its
`only_mutate` lists the modules), and `python tools/mutation/mutation_recheck.py`
for survivors killed by tests added since:

    python tools/mutation/mutation_report.py            # summary and every unexplained mutant
    python tools/mutation/mutation_report.py --markdown # the tables docs/testing.md shows

Each mutant that is not killed is either explained as equivalent (it cannot
change anything a vector or a test observes) or listed as a survivor to
kill. Two explanations are recognised from the diff itself:

- message-only: the mutant changes only the text of an exception message
  (vectors and the contract compare the exception class, never the message);
- the entries of tools/mutation/mutation_equivalents.json, matched on the
  module, the function and the changed lines, each with the reason it is
  equivalent.

The score is killed / (all - equivalent), for all the mutated modules, for
each group of them (GROUPS) and for each module.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tomllib
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
EQUIVALENTS = Path(__file__).resolve().parent / "mutation_equivalents.json"
RECHECKS = Path(__file__).resolve().parent / "mutation_rechecks.json"


def mutated_modules() -> list[str]:
    """The runtime modules mutmut mutates (pyproject.toml [tool.mutmut] only_mutate), as paths."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    return list(config["tool"]["mutmut"]["only_mutate"])


def dotted(path: str) -> str:
    """runtime/values.py -> runtime.values (the module's name, and mutmut's prefix of its mutants)."""
    return path[: -len(".py")].replace("/", ".")


# The modules by concern (docs/runtime.md); a module in no group is scored alone.
GROUPS = (
    ("content parsers, transforms, tool typing", ("values", "markup")),
    ("delimiters", ("delimiters", "settled")),
    ("streaming driver", ("cut", "stream")),
    ("whole texts", ("whole",)),
    ("recovery mode", ("recover",)),
)

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


def module_of(name: str) -> str:
    """runtime.values.x_parse_json__mutmut_1 -> values (the module's file name without .py)."""
    return name.rsplit(".", 1)[0].rsplit(".", 1)[-1]


_BODIES: dict[str, dict[str, str]] = {}


def bodies_of_text(text: str) -> dict[str, str]:
    """Function name -> source (with its signature, under one name for all),
    for every function of a mutmut-mutated module (the original of each
    function, named ..._mutmut_orig, and each of its mutants)."""
    import ast

    lines = text.splitlines()
    found = {}
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and "__mutmut_" in node.name:
            # The signature too (a mutated default), under one name for all.
            head = "\n".join(lines[node.lineno - 1 : node.body[0].lineno - 1]).replace(f"def {node.name}(", "def f(", 1)
            found[node.name] = head + "\n" + "\n".join(lines[node.body[0].lineno - 1 : node.end_lineno])
    return found


def _bodies(module: str) -> dict[str, str]:
    """The functions of mutmut's mutated copy of a module (mutants/runtime/<module>.py)."""
    if module not in _BODIES:
        _BODIES[module] = bodies_of_text((ROOT / "mutants" / "runtime" / f"{module}.py").read_text(encoding="utf-8"))
    return _BODIES[module]


def diff_lines(original: list[str], mutant: list[str]) -> tuple[list[str], list[str]]:
    """The lines (stripped) a mutant removes and adds."""
    import difflib

    removed, added = [], []
    for line in difflib.ndiff(original, mutant):
        if line.startswith("- "):
            removed.append(line[2:].strip())
        elif line.startswith("+ "):
            added.append(line[2:].strip())
    return removed, added


def diff_of(name: str) -> tuple[list[str], list[str]]:
    """The lines mutmut's mutant `name` (of the last run, in mutants/) removes and adds."""
    local = name.split(".")[-1]
    bodies = _bodies(module_of(name))
    original = bodies.get(local.rsplit("__mutmut_", 1)[0] + "__mutmut_orig", "").splitlines()
    mutant = bodies.get(local, "").splitlines()
    return diff_lines(original, mutant)


def edit_lines(check: dict) -> tuple[list[str], list[str]]:
    """The lines (stripped) a recorded edit (mutation_rechecks.json) removes and adds."""
    before = [line.strip() for line in check["before"].splitlines()]
    after = [line.strip() for line in check["after"].splitlines()]
    return [line for line in before if line not in after], [line for line in after if line not in before]


def same_mutant(check: dict) -> bool:
    """Whether mutmut's mutant of that name (in mutants/, from the last run)
    is the recorded change: mutmut numbers the mutants of a function anew at
    each run, so after a change to a module a name may denote another
    mutant, which a recheck must not credit."""
    try:
        return diff_of(check["mutant"]) == edit_lines(check)
    except (OSError, SyntaxError):
        return False


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
    module = module_of(name)
    for entry in equivalents:
        if "obsolete" in entry or entry["module"] != module or entry["function"] != function:
            continue
        if entry["before"] in removed and entry["after"] in added:
            return "equivalent", entry["why"]
    return "unexplained", f"- {' / '.join(removed)}\n        + {' / '.join(added)}"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--markdown", action="store_true", help="print the score table as markdown")
    args = parser.parse_args(argv)
    statuses = results()
    rechecked_file = ROOT / "mutants" / "rechecked.json"
    rechecked = json.loads(rechecked_file.read_text(encoding="utf-8")) if rechecked_file.is_file() else {}
    checks = {
        check["mutant"]: check
        for check in json.loads(RECHECKS.read_text(encoding="utf-8"))["rechecks"]
        if "mutant" in check
    }
    for name, verdict in rechecked.items():
        # Killed by a vector or test added after the run (tools/mutation/mutation_recheck.py),
        # credited only when this run's mutant of that name is the recorded edit.
        if (
            verdict == "killed"
            and statuses.get(name) not in (None, "killed")
            and name in checks
            and same_mutant(checks[name])
        ):
            statuses[name] = "killed"
    equivalents = json.loads(EQUIVALENTS.read_text(encoding="utf-8"))["equivalents"]
    sources = {
        dotted(path).rsplit(".", 1)[-1]: (ROOT / path).read_text(encoding="utf-8").splitlines()
        for path in mutated_modules()
    }
    counts: dict[str, Counter] = defaultdict(Counter)
    unexplained = []
    reasons: Counter = Counter()
    for name, status in sorted(statuses.items()):
        part = module_of(name)
        source_lines = sources.get(part, [])
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
    modules = [dotted(path).rsplit(".", 1)[-1] for path in mutated_modules()]
    grouped = {module for _, members in GROUPS for module in members}
    table = [("runtime/ (every mutated module)", tuple(modules))]
    table += [(label, members) for label, members in GROUPS]
    table += [(f"runtime/{module}.py", (module,)) for module in modules]
    table += [(f"runtime/{module}.py (no group)", (module,)) for module in sorted(set(counts) - grouped - set(modules))]
    rows = []
    for label, parts in table:
        total = sum(counts[p]["all"] - counts[p]["pending"] for p in parts)
        killed = sum(counts[p]["killed"] for p in parts)
        equivalent = sum(counts[p]["equivalent"] for p in parts)
        score = killed / (total - equivalent) if total > equivalent else 1.0
        if total:  # a module or group no run reached is left out
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
                f"{label:42} {total:5} mutants  {killed:5} killed  {equivalent:4} equivalent  {survived:4} survived  score {score:.1%}"
            )
        for part, name, status, why in unexplained:
            print(f"[{part}] {name} ({status})\n        {why}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
