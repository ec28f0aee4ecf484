"""Mutation testing of the compiler's lowering and passes (compiler/frontend/lower.py,
compiler/passes/) with the conformance corpus: does the corpus notice a
wrong program?

    nice -n 10 python tools/mutation/compiler_mutmut.py        # run (long)
    python tools/mutation/compiler_mutmut.py --report           # score, survivors

mutmut takes its configuration from the pyproject.toml of the directory it
runs in, and the project's own [tool.mutmut] is the runtime's run; so this
copies the project to .mutation-compiler/ with a configuration of its own
and runs mutmut there. The per-mutant test is tools/mutation/compiler_runner.py:
every template compiled by the mutated stages, then the whole corpus.
The score is killed / (all - equivalent); equivalents are listed in
tools/mutation/mutation_equivalents_compiler.json (function, changed line, reason).
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
WORK = ROOT / ".mutation-compiler"
EQUIVALENTS = ROOT / "tools" / "mutation" / "mutation_equivalents_compiler.json"

CONFIG = """\
[tool.pytest.ini_options]
testpaths = ["tests"]
filterwarnings = ["ignore::DeprecationWarning"]

[tool.mutmut]
source_paths = ["compiler/"]
only_mutate = [
    "compiler/frontend/lower.py",
    "compiler/passes/__init__.py",
    "compiler/passes/literals.py",
    "compiler/passes/search_hints.py",
    "compiler/passes/states.py",
    "compiler/passes/context.py",
]
also_copy = ["runtime/", "generated/", "templates_src/", "tools/"]
pytest_add_cli_args = ["-p", "no:cacheprovider", "-p", "no:randomly", "-n", "0"]
timeout_multiplier = 1.0
timeout_constant = 60.0
pytest_add_cli_args_test_selection = ["tools/mutation/compiler_runner.py"]
"""


def prepare() -> None:
    shutil.rmtree(WORK, ignore_errors=True)
    WORK.mkdir()
    ignore = shutil.ignore_patterns("__pycache__", "node_modules", "*.pyc")
    for name in ("compiler", "runtime", "generated", "templates_src", "tests", "tools", "benchmarks"):
        shutil.copytree(ROOT / name, WORK / name, ignore=ignore)
    (WORK / "pyproject.toml").write_text(CONFIG, encoding="utf-8")


def results() -> dict[str, str]:
    out = subprocess.run(["mutmut", "results", "--all", "true"], cwd=WORK, capture_output=True, text=True).stdout
    found = {}
    for line in out.splitlines():
        name, sep, status = line.strip().partition(": ")
        if sep and "__mutmut_" in name:
            found[name] = status.strip()
    return found


def diff_of(name: str) -> tuple[list[str], list[str]]:
    show = subprocess.run(["mutmut", "show", name], cwd=WORK, capture_output=True, text=True).stdout
    removed = [line[1:].strip() for line in show.splitlines() if line.startswith("-") and not line.startswith("---")]
    added = [line[1:].strip() for line in show.splitlines() if line.startswith("+") and not line.startswith("+++")]
    return removed, added


def function_of(name: str) -> str:
    """compiler.passes.context.x_plan_context__mutmut_3 -> passes.plan_context (every
    pass module is `passes`, as the equivalents list names them)."""
    module, local = name.rsplit(".", 1)
    area = "passes" if module.startswith("compiler.passes") else module.split(".")[-1]
    return f"{area}.{local.rsplit('__mutmut_', 1)[0][2:]}"


def report() -> int:
    statuses = results()
    equivalents = json.loads(EQUIVALENTS.read_text(encoding="utf-8"))["equivalents"] if EQUIVALENTS.is_file() else []
    counts: Counter = Counter()
    reasons: Counter = Counter()
    unexplained = []
    for name, status in sorted(statuses.items()):
        counts["all"] += 1
        if status in ("killed", "timeout"):
            counts["killed"] += 1
            continue
        if status == "not checked":
            counts["pending"] += 1
            continue
        removed, added = diff_of(name)
        function = function_of(name)
        entry = next(
            (e for e in equivalents if e["function"] == function and e["before"] in removed and e["after"] in added),
            None,
        )
        if entry:
            counts["equivalent"] += 1
            reasons[entry["why"]] += 1
        else:
            unexplained.append((name, status, removed, added))
    checked = counts["all"] - counts["pending"]
    score = counts["killed"] / (checked - counts["equivalent"]) if checked > counts["equivalent"] else 1.0
    print(
        f"compiler/frontend/lower.py + compiler/passes/: {counts['all']} mutants, {counts['pending']} not checked, "
        f"{counts['killed']} killed, {counts['equivalent']} equivalent, {len(unexplained)} survived: score {score:.1%}"
    )
    for why, count in reasons.most_common():
        print(f"  equivalent ({count}): {why}")
    for name, status, removed, added in unexplained:
        print(f"[{status}] {name}\n    - {' / '.join(removed)}\n    + {' / '.join(added)}")
    return 0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--report", action="store_true", help="only print the score of the last run")
    args = parser.parse_args(argv)
    if not args.report:
        prepare()
        subprocess.run(["mutmut", "run", "--max-children", "2"], cwd=WORK, check=False)
    return report()


if __name__ == "__main__":
    sys.exit(main())
