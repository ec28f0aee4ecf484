"""Tests import helpers with `from conftest import ...`; a second conftest.py
under tests/ would be imported under the same module name and shadow the first
for every test collected after it."""

from pathlib import Path


def test_tests_have_a_single_conftest():
    tests = Path(__file__).resolve().parent
    found = sorted(str(p.relative_to(tests)) for p in tests.rglob("conftest.py"))
    assert found == ["conftest.py"]
