"""Empty, in a mutant's process, every cache an earlier run filled.

mutmut runs the clean tests (and its forced-failure check) in the process
it later forks each mutant's process from, so the caches of the runtime (runtime/*.py)
arrive in the mutant's process already filled by the original code: a
mutant of a function that only runs on a cache miss (`compiled_regex`,
`string_delim_regex`, `regex_module`, `StreamParser._process` on a prompt's
tail the class kept, ...) never ran, and survived whatever it did (even
`rx.compile(None)`). `start_fresh` drops those caches once per process, before
the first test (tests/conftest.py calls it when MUTANT_UNDER_TEST names a
mutant), so each mutant builds them itself.

The caches, all of them (`grep -n "cache\\|memo\\|= {}" runtime/*.py`):
- `_COMPILED` (compiled_regex, string_delim_regex, content_regex), `_REGEX`
  (regex_module) and `SAME_IN_RE` (the tag patterns the loaded modules'
  fields registered for content_regex);
- per parser class: `_TAILS` (StreamParser._remember: what a parser made of
  a prompt's tail);
- per recovering parser: the literal `_memo`, new with each parser;
- per object: `Lead._all`, `Leads.non_ascii`: objects a generated module
  builds when it loads. The corpus runner loads every module afresh in the
  mutant's process; the modules the other tests load through
  `conftest.load_generated` and `compiler.compile_template` (both cached)
  are dropped here, so they are loaded again by the mutated runtime.
"""

from __future__ import annotations

import os
import sys

_FRESH_IN = None  # the process that last started fresh


def in_mutant_process() -> bool:
    """Whether mutmut runs this process for one mutant (not its clean,
    statistics or forced-failure runs)."""
    return "__mutmut_" in os.environ.get("MUTANT_UNDER_TEST", "")


def start_fresh() -> None:
    """Drop every cache of the runtime and of the loaded parser modules,
    once per process."""
    global _FRESH_IN
    if _FRESH_IN == os.getpid():
        return
    _FRESH_IN = os.getpid()
    core = sys.modules.get("runtime.core")
    if core is not None:
        core._COMPILED.clear()
        sys.modules["runtime.values"]._REGEX = None  # (runtime.core re-exports the names of runtime/*.py)
        core.SAME_IN_RE.clear()  # the modules loaded again register theirs (Field)
        pending = [core.StreamParser]
        while pending:
            cls = pending.pop()
            pending.extend(cls.__subclasses__())
            for name in ("_TAILS",):
                if name in cls.__dict__:
                    delattr(cls, name)
    conftest = sys.modules.get("conftest")
    if conftest is not None and hasattr(conftest, "load_generated"):
        conftest.load_generated.cache_clear()
    pipeline = sys.modules.get("compiler.pipeline")
    if pipeline is not None:
        pipeline._MODULES.clear()
