"""Every Python source of the project compiles with warnings as errors: an
invalid escape sequence (`'\\s'` in a docstring), which Python 3.12 and later
warn about at import, fails here on any Python. The test run itself makes
warnings errors too (pyproject.toml, `filterwarnings`)."""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FOLDERS = ["compiler", "runtime", "generated/python", "tests", "tools", "benchmarks", "scripts"]


def sources() -> list[Path]:
    return sorted(
        path
        for folder in FOLDERS
        if (ROOT / folder).is_dir()
        for path in (ROOT / folder).rglob("*.py")
        if "node_modules" not in path.parts
    )


def test_sources_are_found():
    names = {path.relative_to(ROOT).as_posix() for path in sources()}
    assert "runtime/core.py" in names and "compiler/regex/charset.py" in names
    assert any(name.startswith("generated/python/") for name in names)


@pytest.mark.parametrize("folder", FOLDERS)
def test_every_source_compiles_without_warnings(folder):
    failures = []
    for path in sources():
        if not path.relative_to(ROOT).as_posix().startswith(folder + "/"):
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # SyntaxWarning / DeprecationWarning for invalid escapes
            try:
                compile(path.read_text(encoding="utf-8"), str(path), "exec", dont_inherit=True)
            except (SyntaxError, Warning) as error:
                failures.append(f"{path.relative_to(ROOT)}: {error}")
    assert failures == []
