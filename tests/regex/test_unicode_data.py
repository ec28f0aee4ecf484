"""The Unicode tables the JavaScript and Go backends emit are versioned data
(compiler/regex/unicode_data.py), not the installed `regex` module's or
Python's: the generated code is a function of the template and the compiler
alone. Regenerating the data from the pinned `regex` gives the committed
file, and the sets the compiler uses agree with that `regex`."""

from __future__ import annotations

import unicodedata
from pathlib import Path

import pytest
import regex

from compiler.backends.go import word_table_source
from compiler.backends.js.unicode import unicode_module
from compiler.regex import charset, unicode_data
from compiler.regex.charset import CharSet, category_set, regex_set, word_set
from compiler.regex.unicode_tables import DATA_PATH, REGEX_RELEASE, compute, render

ROOT = Path(__file__).resolve().parents[2]
PINNED = regex.__version__ == REGEX_RELEASE
SAME_PYTHON = unicodedata.unidata_version == unicode_data.PY_UNICODEDATA_VERSION


def test_data_names_its_versions():
    assert unicode_data.REGEX_VERSION == REGEX_RELEASE
    header = DATA_PATH.read_text(encoding="utf-8").split('"""')[1]
    assert f"regex {REGEX_RELEASE}" in header and f"Unicode {unicode_data.UNICODE_VERSION}" in header
    for doc in ("runtime/js/README.md", "runtime/go/README.md", "docs/backends.md"):
        text = (ROOT / doc).read_text(encoding="utf-8")
        assert f"Unicode {unicode_data.UNICODE_VERSION}" in text and REGEX_RELEASE in text, doc


def test_emitting_modules_do_not_read_the_installed_unicode_data():
    """charset.py (every set the backends emit) and the JS table module read
    the data file: neither imports `regex` or `unicodedata`."""
    import compiler.backends.js.unicode as js_unicode

    for module in (charset, js_unicode):
        assert "regex" not in vars(module) and "unicodedata" not in vars(module), module.__name__


def test_backend_tables_come_from_the_data_file():
    assert category_set("w") == CharSet(unicode_data.WORD) == word_set()
    assert category_set("d") == CharSet(unicode_data.DIGIT)
    assert category_set("s") == CharSet(unicode_data.SPACE)
    assert category_set("S") == CharSet(unicode_data.SPACE).complement()
    text = unicode_module()
    assert f"export const SPACE = [{','.join(f'{lo},{hi}' for lo, hi in unicode_data.PY_SPACE)}];" in text
    assert f"(Python Unicode data {unicode_data.PY_UNICODEDATA_VERSION})" in text
    assert (ROOT / "runtime/js/unicode.mjs").read_text(encoding="utf-8") == text
    assert (ROOT / "runtime/go/wordset.go").read_text(encoding="utf-8") == word_table_source()


@pytest.mark.skipif(not PINNED, reason=f"the data follows regex {REGEX_RELEASE}")
def test_regenerating_from_the_pinned_regex_gives_the_committed_file():
    tables = compute()
    if not SAME_PYTHON:  # Python's own tables follow the interpreter: compare the regex ones
        for name in ("PY_UNICODEDATA_VERSION", "PY_SPACE", "PY_DECIMAL"):
            tables[name] = getattr(unicode_data, name)
    assert render(tables) == DATA_PATH.read_text(encoding="utf-8")


def _live(source: str, icase: bool) -> CharSet:
    every = "".join(map(chr, range(0x110000)))
    compiled = regex.compile(f"(?:{source})+", regex.DOTALL | (regex.IGNORECASE if icase else 0))
    return CharSet(tuple((m.start(), m.end() - 1) for m in compiled.finditer(every)))


SOURCES = [r"\s", r"\w", r"\d", r"\W", "[a-z]", "[^a-z]", "k", "s", "ſ", "[^k]", "\u0130", "I", r"[^\s<]",
           "ß", "[^ß]", "Σ", "[^σ]", "\u1e9e", "[\u0100-\u017f]", "[^\u0370-\u03ff]", r"[\dA-F]", "Ω"]


@pytest.mark.skipif(not PINNED, reason=f"the data follows regex {REGEX_RELEASE}")
@pytest.mark.parametrize("icase", [False, True])
def test_tabulated_sets_and_case_folding_agree_with_the_pinned_regex(icase):
    assert [source for source in SOURCES if regex_set(source, icase) != _live(source, icase)] == []


def test_regen_refuses_another_release(monkeypatch, capsys):
    """The command refuses a regex other than the documented release (unless
    --force), and leaves the data alone."""
    from compiler.regex.unicode_tables import main

    before = DATA_PATH.read_text(encoding="utf-8")
    monkeypatch.setattr(regex, "__version__", "1999.1.1")
    assert main(["--regen"]) == 2
    assert REGEX_RELEASE in capsys.readouterr().err
    assert DATA_PATH.read_text(encoding="utf-8") == before
