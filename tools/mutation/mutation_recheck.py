"""Re-check surviving mutants against the current tests, without a new
mutmut run (whose copy of the tests predates the vectors added to kill
them).

    python tools/mutation/mutation_recheck.py
    python tools/mutation/mutation_recheck.py _next_trigger__mutmut_5 _settle   # only these (substrings of the names)

For each entry of tools/mutation/mutation_rechecks.json (a mutant's name, the text it
changes in runtime/core.py, and the tests that should kill it) the mutation
is applied and the tests run. Entries whose tests are vector files
(`tests/conformance/test_vectors.py -k <file>`) run in this process: the mutated source
is executed as `runtime.core` and the named vector files are checked with
the suite's runner (a few seconds for all). Others run pytest on a temporary
copy of the project. Results go to mutants/rechecked.json, which
tools/mutation/mutation_report.py counts.
"""

from __future__ import annotations

import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import types
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CHECKS = Path(__file__).resolve().parent / "mutation_rechecks.json"
OUT = ROOT / "mutants" / "rechecked.json"
CPU_LIMIT = 120  # seconds of CPU per mutant checked in a child process
MEMORY_LIMIT = 4 << 30  # bytes of address space per such child


def _vector_files(tests: list[str]) -> list[Path] | None:
    """The vector files a `tests/conformance/test_vectors.py -k a or b` selection takes
    (each word a substring of the file's name, as pytest's -k), else None."""
    if len(tests) == 3 and tests[0] == "tests/conformance/test_vectors.py" and tests[1] == "-k":
        words = [word.strip() for word in tests[2].split(" or ")]
        return [path for path in sorted((ROOT / "compiler" / "conformance" / "vectors").glob("*.jsonl")) if any(w in path.stem for w in words)]
    return None


def _same_mutant(check: dict) -> bool:
    """Whether mutmut's mutant of that name (in mutants/, from the last run)
    is the recorded change: mutmut numbers the mutants of a function anew at
    each run, so after a change to runtime/core.py a name may denote another
    mutant, which a recheck must not credit."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from mutation_report import diff_of

    try:
        removed, added = diff_of(check["mutant"])
    except (OSError, SyntaxError):
        return False
    before = [line.strip() for line in check["before"].splitlines()]
    after = [line.strip() for line in check["after"].splitlines()]
    return [line for line in before if line not in after] == removed and [line for line in after if line not in before] == added


def _limits() -> None:
    resource.setrlimit(resource.RLIMIT_CPU, (CPU_LIMIT, CPU_LIMIT))
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))


def recheck_in_process(checks: list[dict], original: str, results: dict) -> list[dict]:
    """Run the vector-file rechecks here; return the others."""
    sys.path[:0] = [str(ROOT), str(ROOT / "tests"), str(ROOT / "tests" / "support"), str(ROOT / "tests" / "conformance")]
    import runtime
    import test_vectors

    others = []
    for check in checks:
        if not _same_mutant(check):
            results[check["mutant"]] = "not applicable (not this run's mutant of that name)"
            continue
        files = _vector_files(check["tests"])
        if files is None:
            others.append(check)
            continue
        if original.count(check["before"]) != 1:
            results[check["mutant"]] = "not applicable (the code changed)"
            continue
        # In a child process with a CPU and a memory limit: a mutant that
        # loops forever (and keeps appending) must not take the machine's
        # memory; stopped by a limit, it counts as killed, as in mutmut.
        child = os.fork()
        if child == 0:
            _limits()
            code = 1
            try:
                mutated = types.ModuleType("runtime.core")
                mutated.__file__ = str(ROOT / "runtime" / "core.py")
                sys.modules["runtime.core"] = runtime.core = mutated
                exec(compile(original.replace(check["before"], check["after"]), mutated.__file__, "exec"), mutated.__dict__)
                code = 0
                for path in files:
                    try:
                        test_vectors.test_python_backend_passes_vectors(path)
                    except BaseException:  # noqa: BLE001 - any failure kills the mutant
                        code = 1
                        break
            finally:
                os._exit(code)
        _, status = os.waitpid(child, 0)
        verdict = "survived" if os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0 else "killed"
        results[check["mutant"]] = verdict
        print(f"{verdict:10} {check['mutant']}", flush=True)
    return others


def main(argv=None) -> int:
    names = sys.argv[1:] if argv is None else argv
    checks = json.loads(CHECKS.read_text(encoding="utf-8"))["rechecks"]
    results = {}
    if names:
        # Only the named mutants (substrings of their names); the others keep
        # their verdicts from the last recheck.
        checks = [check for check in checks if any(name in check["mutant"] for name in names)]
        if OUT.is_file():
            results = json.loads(OUT.read_text(encoding="utf-8"))
    checks = recheck_in_process(checks, (ROOT / "runtime" / "core.py").read_text(encoding="utf-8"), results)
    base = Path(tempfile.mkdtemp(prefix="mutation-recheck-"))
    try:
        for name in ("compiler", "runtime", "generated", "templates_src", "tests", "pyproject.toml"):
            source = ROOT / name
            (shutil.copytree if source.is_dir() else shutil.copy)(source, base / name)
        core = base / "runtime" / "core.py"
        original = core.read_text(encoding="utf-8")
        for check in checks:
            if not _same_mutant(check):
                results[check["mutant"]] = "not applicable (not this run's mutant of that name)"
                continue
            if original.count(check["before"]) != 1:
                results[check["mutant"]] = "not applicable (the code changed)"
                continue
            core.write_text(original.replace(check["before"], check["after"]), encoding="utf-8")
            run = subprocess.run(
                [sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", "-n", "0", *check["tests"]],
                cwd=base,
                capture_output=True,
                text=True,
                preexec_fn=_limits,
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
