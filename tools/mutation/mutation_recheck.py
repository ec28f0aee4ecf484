"""Re-check surviving mutants against the current tests, without a new
mutmut run (whose copy of the tests predates the vectors added to kill
them).

    python tools/mutation/mutation_recheck.py
    python tools/mutation/mutation_recheck.py _next_trigger__mutmut_5 _settle   # only these (substrings of the names)

Each entry of tools/mutation/mutation_rechecks.json is a mutant's name, the
runtime module it mutates (`module`, one of pyproject.toml's only_mutate),
the text it changes there (`before` -> `after`, which must occur exactly
once in that module) and the tests that should kill it. The mutation is
applied and the tests run:

- entries whose tests are vector files (`tests/conformance/test_vectors.py
  -k <file>`) run in a child process forked from this one: the mutated
  source is executed under the module's own name (`runtime.values`, ...),
  and every runtime module imported after it is imported again, so the
  names `runtime.core` re-exports and the names the other modules imported
  from it by value (`from runtime.values import close_region`) are the
  mutated ones; the named vector files are then checked with the suite's
  two tests of them (every chunking, and `parse_response`), a few seconds
  for all;
- others run pytest on a temporary copy of the project with the mutated
  module written in place.

Entries marked `obsolete` (the mutated code is gone, with the reason) are
reported as such and not run. Results go to mutants/rechecked.json, which
tools/mutation/mutation_report.py counts when mutmut's mutant of that name
in its last run is the recorded edit.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from mutation_report import dotted, mutated_modules  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
CHECKS = Path(__file__).resolve().parent / "mutation_rechecks.json"
OUT = ROOT / "mutants" / "rechecked.json"
CPU_LIMIT = 120  # seconds of CPU per mutant checked by pytest on a copy
VECTOR_CPU_LIMIT = 30  # per mutant checked on vector files in a forked child (all of them take a few seconds)
MEMORY_LIMIT = 4 << 30  # bytes of address space per such child


def _vector_files(tests: list[str]) -> list[Path] | None:
    """The vector files a `tests/conformance/test_vectors.py -k a or b` selection takes
    (each word a substring of the file's name, as pytest's -k), else None."""
    if len(tests) == 3 and tests[0] == "tests/conformance/test_vectors.py" and tests[1] == "-k":
        words = [word.strip() for word in tests[2].split(" or ")]
        return [
            path
            for path in sorted((ROOT / "compiler" / "conformance" / "vectors").glob("*.jsonl"))
            if any(w in path.stem for w in words)
        ]
    return None


def _limits(cpu: int = CPU_LIMIT) -> None:
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu))
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))


def located(check: dict, sources: dict[str, str]) -> str | None:
    """Why `check` cannot be applied to today's runtime, or None when it can:
    its edit's text occurs exactly once in its module."""
    if "obsolete" in check:
        return f"obsolete ({check['obsolete']})"
    module = check.get("module")
    if module not in sources:
        return f"not applicable ({module!r} is not a mutated module)"
    if sources[module].count(check["before"]) != 1:
        elsewhere = [path for path, text in sources.items() if path != module and check["before"] in text]
        moved = f"; found in {', '.join(elsewhere)}" if elsewhere else ""
        return f"not applicable (the code changed: the edit's text is not once in {module}{moved})"
    return None


class _MutatedModule(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Imports one runtime module from the mutated source, under its own name."""

    def __init__(self, name: str, path: Path, source: str):
        self.name, self.path, self.source = name, path, source

    def find_spec(self, fullname, path=None, target=None):
        if fullname != self.name:
            return None
        return importlib.util.spec_from_loader(fullname, self, origin=str(self.path))

    def create_module(self, spec):
        return None

    def exec_module(self, module):
        module.__file__ = str(self.path)
        exec(compile(self.source, str(self.path), "exec"), module.__dict__)


def _import_mutated(name: str, path: Path, source: str) -> None:
    """Make `name` the mutated module and import the runtime again around it:
    every `runtime.*` module is dropped from sys.modules (the ones imported
    from it by value too, and runtime.core with its re-exports), so the
    imports below, and the generated modules' `from runtime.core import ...`,
    bind the mutated names."""
    for loaded in [key for key in sys.modules if key.startswith("runtime.")]:
        del sys.modules[loaded]
    sys.meta_path.insert(0, _MutatedModule(name, path, source))
    for module in ("runtime.core", "runtime.whole", "runtime.recover"):
        importlib.import_module(module)
    assert sys.modules[name].__file__ == str(path) and sys.modules["runtime.core"] is not None


def recheck_in_process(checks: list[dict], sources: dict[str, str], results: dict) -> list[dict]:
    """Run the vector-file rechecks here; return the others."""
    sys.path[:0] = [
        str(ROOT),
        str(ROOT / "tests"),
        str(ROOT / "tests" / "support"),
        str(ROOT / "tests" / "conformance"),
    ]
    import runtime  # noqa: F401 - the package stays; its modules are imported again per mutant
    import test_vectors

    others = []
    for check in checks:
        files = _vector_files(check["tests"])
        if files is None:
            others.append(check)
            continue
        module = check["module"]
        # In a child process with a CPU and a memory limit: a mutant that
        # loops forever (and keeps appending) must not take the machine's
        # memory; stopped by a limit, it counts as killed, as in mutmut.
        child = os.fork()
        if child == 0:
            _limits(VECTOR_CPU_LIMIT)
            code = 1
            try:
                mutated = sources[module].replace(check["before"], check["after"])
                _import_mutated(dotted(module), ROOT / module, mutated)
                code = 0
                for path in files:
                    try:
                        test_vectors.test_python_backend_passes_vectors(path)
                        test_vectors.test_parse_response_passes_vectors(path)
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


def recheck_in_copy(checks: list[dict], results: dict) -> None:
    """Run the other rechecks with pytest on a copy of the project."""
    if not checks:
        return
    base = Path(tempfile.mkdtemp(prefix="mutation-recheck-"))
    try:
        for name in ("compiler", "runtime", "generated", "templates_src", "tests", "tools", "pyproject.toml"):
            source = ROOT / name
            (shutil.copytree if source.is_dir() else shutil.copy)(source, base / name)
        for check in checks:
            target = base / check["module"]
            original = target.read_text(encoding="utf-8")
            target.write_text(original.replace(check["before"], check["after"]), encoding="utf-8")
            try:
                run = subprocess.run(
                    [sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", "-n", "0", *check["tests"]],
                    cwd=base,
                    capture_output=True,
                    text=True,
                    preexec_fn=_limits,
                )
            finally:
                target.write_text(original, encoding="utf-8")
            results[check["mutant"]] = "killed" if run.returncode else "survived"
            print(f"{results[check['mutant']]:10} {check['mutant']}", flush=True)
    finally:
        shutil.rmtree(base, ignore_errors=True)


def main(argv=None) -> int:
    names = sys.argv[1:] if argv is None else argv
    checks = json.loads(CHECKS.read_text(encoding="utf-8"))["rechecks"]
    results = {}
    if names:
        # Only the named mutants (substrings of their names); the others keep
        # their verdicts from the last recheck.
        checks = [check for check in checks if any(name in check.get("mutant", check["recorded_as"]) for name in names)]
        if OUT.is_file():
            results = json.loads(OUT.read_text(encoding="utf-8"))
    sources = {path: (ROOT / path).read_text(encoding="utf-8") for path in mutated_modules()}
    runnable = []
    for check in checks:
        why = located(check, sources)
        if why is None:
            runnable.append(check)
        else:
            results[check.get("mutant", check["recorded_as"])] = why
            print(f"{why.split(' (')[0]:10} {check.get('mutant', check['recorded_as'])}", flush=True)
    recheck_in_copy(recheck_in_process(runnable, sources, results), results)
    OUT.parent.mkdir(exist_ok=True)
    OUT.write_text(json.dumps(results, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    counts = {}
    for verdict in results.values():
        key = verdict.split(" (")[0]
        counts[key] = counts.get(key, 0) + 1
    print(", ".join(f"{count} {key}" for key, count in sorted(counts.items())))
    return 0 if all(value != "survived" for value in results.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
