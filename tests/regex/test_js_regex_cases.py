"""The JavaScript matcher's fixture (tests/js/fixtures/regex_cases.json) is
what make_regex_cases.py computes today with the `regex` module and the
JavaScript backend's trees; tests/js/regex.test.mjs runs it in Node."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_regex_cases_fixture_is_fresh():
    script = ROOT / "tests" / "js" / "fixtures" / "make_regex_cases.py"
    run = subprocess.run([sys.executable, str(script), "--check"], capture_output=True, text=True, cwd=ROOT)
    assert run.returncode == 0, run.stdout + run.stderr
