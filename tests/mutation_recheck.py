"""Re-check surviving mutants against the current tests, without a new
mutmut run (whose copy of the tests predates the vectors added to kill
them).

    python tests/mutation_recheck.py

For each entry of tests/mutation_rechecks.json (a mutant's name, the text it
changes in runtime/core.py, and the tests that should kill it) the mutation
is applied to a temporary copy of the project and the tests run there.
Results go to mutants/rechecked.json, which tests/mutation_report.py counts.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CHECKS = Path(__file__).resolve().parent / "mutation_rechecks.json"
OUT = ROOT / "mutants" / "rechecked.json"


def main() -> int:
    checks = json.loads(CHECKS.read_text(encoding="utf-8"))["rechecks"]
    base = Path(tempfile.mkdtemp(prefix="mutation-recheck-"))
    results = {}
    try:
        for name in ("compiler", "runtime", "generated", "templates_src", "tests", "pyproject.toml"):
            source = ROOT / name
            (shutil.copytree if source.is_dir() else shutil.copy)(source, base / name)
        core = base / "runtime" / "core.py"
        original = core.read_text(encoding="utf-8")
        for check in checks:
            if original.count(check["before"]) != 1:
                results[check["mutant"]] = "not applicable (the code changed)"
                continue
            core.write_text(original.replace(check["before"], check["after"]), encoding="utf-8")
            run = subprocess.run(
                [sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", *check["tests"]],
                cwd=base,
                capture_output=True,
                text=True,
            )
            results[check["mutant"]] = "killed" if run.returncode else "survived"
            print(f"{results[check['mutant']]:10} {check['mutant']}", flush=True)
        core.write_text(original, encoding="utf-8")
    finally:
        shutil.rmtree(base, ignore_errors=True)
    OUT.parent.mkdir(exist_ok=True)
    OUT.write_text(json.dumps(results, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return 0 if all(value != "survived" for value in results.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
