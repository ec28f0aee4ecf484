"""The whole conformance corpus as one test that stops at the first wrong
case: mutmut's per-mutant test (pyproject.toml [tool.mutmut]).

Not collected by the suite (tests/conformance/test_vectors.py checks the same vectors
file by file); mutmut names this file in its test selection. Why it is fast:

- everything that does not depend on the runtime is done once, when the
  module is imported: the vector files are read, each case's expected trace
  is turned into its JSON text, and each template's module source is
  compiled. mutmut's fork server imports the test modules before it forks a
  process per mutant, so every mutant inherits that work;
- the generated modules are executed afresh in each mutant's process (only
  their source is cached), so objects a module builds when it loads are
  built by the mutated runtime;
- cases run interleaved across the vector files (the first case of every
  file, then the second, ...), so a mutant meets many different templates
  and features early, and the test stops at the first case that differs;
- a case is compared as JSON text, which is as strict as the suite's
  comparison (types, key order) and much cheaper;
- in a mutant's process, mutmut's trampolines (a dispatch on every call of
  every function of the mutated runtime modules, which triples the corpus's
  time) are replaced by the functions they would call: the active mutant for
  its function, the original for every other, in every module that holds the
  function by value (`call_mutants_directly`);
- the objects built on import are frozen for the garbage collector
  (`gc.freeze`) under mutmut, so the forked processes do not copy them;
- in a mutant's process the corpus gets a budget of CPU time
  (`CPU_BUDGET_S`, about three times what it needs) and each case a much
  smaller one (`CASE_BUDGET_S`): a mutant that loops forever fails at once instead of waiting for mutmut's wall-clock limit,
  which a loaded machine makes long.
"""

from __future__ import annotations

import gc
import json
import os
import signal
import sys
from itertools import zip_longest
from pathlib import Path

TESTS = Path(__file__).resolve().parents[2] / "tests"
sys.path.insert(0, str(TESTS))
sys.path.insert(0, str(TESTS / "support"))
sys.path.insert(0, str(TESTS.parent))

from compiler.pipeline import module_from_code  # noqa: E402
from compiler.conformance.vectors import VECTORS_DIR, trace  # noqa: E402
from vector_modules import _CODE, module_for  # noqa: E402

CPU_BUDGET_S = 5.0
CASE_BUDGET_S = 0.5  # one case takes milliseconds (a module's first load, tens)
FIELDS = ("initial_events", "feeds", "final_events", "message", "error")


def _interleaved_cases() -> list[tuple[dict, str]]:
    per_file = []
    for path in sorted(VECTORS_DIR.glob("*.jsonl")):
        cases = [json.loads(line) for line in path.read_text(encoding="utf-8").split("\n") if line]
        per_file.append(cases)
    ordered = []
    for row in zip_longest(*per_file):
        for case in row:
            if case is not None:
                expected = json.dumps({k: case[k] for k in FIELDS}, ensure_ascii=False)
                ordered.append((case, expected))
    return ordered


CASES = _interleaved_cases()
for _name in sorted({case["template"] for case, _ in CASES}):
    module_for(_name)  # fills _CODE with the module source (runtime-independent)
if "MUTANT_UNDER_TEST" in os.environ:
    # Under mutmut this runs in the process the mutants' processes are forked
    # from: frozen objects are never scanned by the garbage collector, whose
    # full collections (pytest runs some at exit) would otherwise touch, and
    # so copy, every page the mutant's process shares with it (7x the time
    # of a short test).
    gc.freeze()


class OutOfCpuBudget(BaseException):
    """Not an Exception, so the vector trace does not record it as the parser's error."""


def _out_of_budget(signum, frame):
    raise OutOfCpuBudget(f"the corpus took more than {CPU_BUDGET_S} s of CPU time")


def in_mutant_process() -> bool:
    """Whether mutmut runs this process for one mutant. Not in its clean,
    statistics or forced-failure runs, which may run in the process mutmut
    forks the mutants' processes from (they would inherit the changes)."""
    return "__mutmut_" in os.environ.get("MUTANT_UNDER_TEST", "")


def limit_cpu_time(seconds: float = CPU_BUDGET_S) -> None:
    if in_mutant_process():
        signal.signal(signal.SIGVTALRM, _out_of_budget)
        signal.setitimer(signal.ITIMER_VIRTUAL, seconds)


def _case_budget(seconds: float) -> float:
    """Arm the CPU timer for `seconds` (0 disarms it); return what was left of it."""
    return signal.setitimer(signal.ITIMER_VIRTUAL, seconds)[0]


def call_mutants_directly() -> None:
    """Rebind each function mutmut wrapped in a trampoline, in every mutated
    runtime module (runtime.values, runtime.stream, ...), to what the
    trampoline would call in this process: the mutant named by
    MUTANT_UNDER_TEST for its function, the original for the others. A
    module-level function is rebound wherever the runtime holds it by value
    too (`from runtime.values import close_region` in runtime.stream, the
    re-exports of runtime.core), so no call goes through a trampoline; a
    method is rebound on its class. Nothing happens outside a mutant's
    process (`in_mutant_process`): a plain run has no trampolines."""
    active = os.environ.get("MUTANT_UNDER_TEST")
    if not in_mutant_process():
        return
    active_module, _, active_name = active.rpartition(".")
    modules = {
        name: module for name, module in sys.modules.items() if name.startswith("runtime.") and module is not None
    }
    rebound = {}  # id(trampoline) -> the function it would call
    for module_name, module in modules.items():
        namespace = vars(module)
        for table_name, table in list(namespace.items()):
            if not (table_name.startswith("mutants_") and table_name.endswith("__mutmut") and isinstance(table, dict)):
                continue
            mangled = table_name[len("mutants_") : -len("__mutmut")]
            chosen = active_name if active_module == module_name and active_name in table else mangled + "__mutmut_orig"
            if mangled.startswith("x\u01c1"):
                _, class_name, method = mangled.split("\u01c1")
                owner = namespace[class_name]
                setattr(owner, method, owner.__dict__[chosen])
            else:
                trampoline = namespace.get(mangled[2:])
                if trampoline is not None:
                    rebound[id(trampoline)] = namespace[chosen]
    for module in modules.values():
        namespace = vars(module)
        for name, value in list(namespace.items()):
            if callable(value) and id(value) in rebound:
                namespace[name] = rebound[id(value)]


def test_corpus_in_one_pass():
    call_mutants_directly()
    per_case = in_mutant_process()
    if per_case:
        signal.signal(signal.SIGVTALRM, _out_of_budget)
    left = CPU_BUDGET_S
    modules = {}
    for case, expected in CASES:
        if per_case:
            _case_budget(min(CASE_BUDGET_S, left))
        name = case["template"]
        module = modules.get(name)
        if module is None:
            code, source = _CODE[name]
            module = modules[name] = module_from_code(code, source)
        actual = trace(lambda: module.ResponseParser(case["prefix"], tools=case["tools"]), case["chunks"])
        if per_case:
            left -= min(CASE_BUDGET_S, left) - _case_budget(0)
            if left <= 0:
                raise OutOfCpuBudget(f"the corpus took more than {CPU_BUDGET_S} s of CPU time")
        assert json.dumps(actual, ensure_ascii=False) == expected, case["id"]
