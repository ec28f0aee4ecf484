import functools
import importlib.util
import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))
# Shared helpers of the tests (differential runners, shapes, samples, engines).
sys.path.insert(0, str(Path(__file__).resolve().parent / "support"))

GENERATED = ROOT / "generated" / "python"

# The deep profile (`RTC_DEEP=1 python -m pytest`): the same tests with many
# more generated cases. Each knob can still be set on its own.
DEEP = os.environ.get("RTC_DEEP") == "1"
if DEEP:
    for knob, value in {
        "DIFF_EXAMPLES": "1000",  # hypothesis cases per differential test (default 120)
        "DIFF_GO_BATCHES": "24",  # Go differential batches of DIFF_GO_BATCH_SIZE cases (default 4)
        "DIFF_JS_BATCHES": "18",  # JavaScript differential batches (default 3)
        "PATTERN_EXAMPLES": "20000",  # runtime pattern search against the regex module (default 3000)
        "REGEX_EXAMPLES": "10000",  # regex automaton against the regex module (default 1400)
        "GRAMMAR_WALKS": "1000",  # random walks of every emitted grammar (default 150)
        "PLAUSIBLE_EXAMPLES": "400",  # plausible outputs per bundled template (default 25)
    }.items():
        os.environ.setdefault(knob, value)


@pytest.fixture(autouse=True, scope="session")
def _mutant_process_starts_fresh():
    """Under mutmut, a mutant's process starts with the caches of the runtime
    emptied (tools/mutation/fresh_state.py says why); nothing otherwise."""
    if "__mutmut_" in os.environ.get("MUTANT_UNDER_TEST", ""):
        sys.path.insert(0, str(ROOT / "tools" / "mutation"))
        from fresh_state import start_fresh

        start_fresh()


MUTANT_TEST_CPU_S = 15  # each selected test needs at most about 2 s of CPU time


@pytest.fixture(autouse=True)
def _mutant_test_cpu_budget():
    """Under mutmut, each test gets a CPU budget: a mutant that loops forever
    in a test other than the corpus runner (which has budgets of its own)
    fails within seconds instead of running to mutmut's wall-clock limit.
    The budget raises pytest's own failure (a BaseException), which no
    `except Exception` in a test can swallow."""
    if "__mutmut_" not in os.environ.get("MUTANT_UNDER_TEST", ""):
        yield
        return
    import signal

    def out_of_budget(signum, frame):
        pytest.fail(f"more than {MUTANT_TEST_CPU_S} s of CPU time under a mutant", pytrace=False)

    previous = signal.signal(signal.SIGVTALRM, out_of_budget)
    signal.setitimer(signal.ITIMER_VIRTUAL, MUTANT_TEST_CPU_S)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_VIRTUAL, 0)
        signal.signal(signal.SIGVTALRM, previous)


@functools.lru_cache(maxsize=None)
def load_generated(name: str):
    """Import a committed module from generated/python/."""
    path = GENERATED / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"generated_{name}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="session")
def compiled():
    """shape -> compiled module: the committed one for templates_src/, else compiled in process."""
    from compiler import compile_template
    from shapes import SHAPES

    cache = {}

    def get(shape):
        if shape.name not in cache:
            if (GENERATED / f"{shape.name}.py").is_file() and (ROOT / "templates_src" / f"{shape.name}.json").is_file():
                cache[shape.name] = load_generated(shape.name)
            else:
                cache[shape.name] = compile_template(shape.template, name=shape.name)
        return cache[shape.name]

    return get


KNOWN_FAILURES = Path(__file__).resolve().parent / "known_failures.txt"


@pytest.fixture
def render_with():
    """A chat-template renderer factory whose workers are stopped after the test
    (tests/infer; kept here so that no second module is named `conftest`)."""
    from compiler.infer import Renderer

    made = []

    def make(chat_template, **kwargs):
        renderer = Renderer(chat_template, **kwargs)
        made.append(renderer)
        return renderer

    yield make
    for renderer in made:
        renderer.close()


def pytest_collection_modifyitems(config, items):
    """Tests listed in tests/known_failures.txt are open work: expected to fail, strictly."""
    from compiler.conformance.vectors import read_failure_list

    known = read_failure_list(KNOWN_FAILURES)
    for item in items:
        if item.nodeid in known:
            item.add_marker(pytest.mark.xfail(reason=known[item.nodeid], strict=True))
