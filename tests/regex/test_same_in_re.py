"""The `re` fast path of content parsers (compiler/regex/same_in_re.py,
runtime `content_regex`): which patterns it takes, that `re` and `regex`
agree on them over ASCII text, and that the runtime falls back to `regex`
on any other text."""

from __future__ import annotations

import json
import re

import pytest
import regex
from hypothesis import given, settings
from hypothesis import strategies as st

from compiler.regex.same_in_re import same_in_re_on_ascii
from runtime import core
from samples import ROOT

ASCII = [chr(code) for code in range(128)]


def _tag_patterns():
    patterns = []
    for path in sorted((ROOT / "templates_src").glob("*.json")):
        for field in json.loads(path.read_text())["fields"].values():
            args, content = field.get("content_args", {}), field.get("content", "text")
            while isinstance(args, dict):
                if content == "xml-inline" and isinstance(args.get("tag_pattern"), str):
                    patterns.append((path.stem, args["tag_pattern"]))
                parser = args.get("value_parser")
                if not isinstance(parser, dict):
                    break
                content, args = parser.get("name", "text"), parser.get("args", {})
    return patterns


TAG_PATTERNS = _tag_patterns()


@pytest.mark.parametrize("category", [r"\w", r"\W", r"\d", r"\D", r"\s", r"\S", r".", r"[\w.+\-]", r"[^\s<]"])
def test_categories_agree_on_every_ascii_character_but_the_separators(category):
    """`\\s` is the one difference on ASCII: `re` takes U+001C..U+001F
    (str.isspace), the `regex` module does not (Unicode White_Space)."""
    differ = [
        char
        for char in ASCII
        if (re.fullmatch(category, char, re.DOTALL) is None) != (regex.fullmatch(category, char, regex.DOTALL) is None)
    ]
    expected = ["\x1c", "\x1d", "\x1e", "\x1f"] if "s" in category.lower() else []
    assert differ == expected


@pytest.mark.parametrize("anchor", [r"\b", r"\B", r"$", r"^", r"\Z", r"\A", r"(?m)$", r"(?m)^"])
def test_anchors_agree_on_every_pair_of_ascii_characters(anchor):
    for first in ASCII:
        for second in ASCII:
            text = first + second
            assert [m.span() for m in re.finditer(anchor, text)] == [m.span() for m in regex.finditer(anchor, text)]


def test_every_bundled_tag_pattern_is_taken():
    assert len(TAG_PATTERNS) >= 15
    assert [pattern for _, pattern in TAG_PATTERNS if not same_in_re_on_ascii(pattern)] == []


@pytest.mark.parametrize(
    "pattern",
    [
        r"(?i)<a>(?P<key>\w+)",  # case folding differs between the modules on some non-ASCII letters
        r"(?i:x)y",
        r"x*",  # can match empty: finditer steps over empty matches by version-dependent rules
        r"(?P<key>a)?",
        r"[[:alpha:]]+",  # a POSIX class in `regex`, a nested-set warning in `re`
        r"\p{L}+",  # `re` has no property classes
        r"(?<=a+)b",  # variable-width look-behind: `re` refuses it
        r"(?<key>x)",  # `re` in Python 3.11 has no `(?<name>...)`
        r"a(?",  # not a pattern
    ],
)
def test_refused(pattern):
    assert not same_in_re_on_ascii(pattern)


_ASCII_TEXT = st.text(alphabet=st.sampled_from(ASCII), max_size=60)


@pytest.mark.parametrize("template, pattern", TAG_PATTERNS, ids=[f"{t}-{i}" for i, (t, _) in enumerate(TAG_PATTERNS)])
@settings(max_examples=150, deadline=None)
@given(data=st.data())
def test_re_finds_what_regex_finds_on_ascii_text(template, pattern, data):
    """Texts made of the pattern's own pieces and any ASCII character."""
    pieces = [pattern[i : i + size] for size in (1, 3, 7) for i in range(0, len(pattern), size)]
    pieces += ['"x"', "'y'", "a=1", ", ", "\n", "</parameter>", "<parameter=k>", "[1,2]", "{}", "\\", "\x1c", "\x1f"]
    text = "".join(data.draw(st.lists(st.one_of(st.sampled_from(pieces), _ASCII_TEXT), max_size=12)))
    core.SAME_IN_RE.add(pattern)  # what the generated module's field registers
    compiled = core.content_regex(pattern, text)
    assert isinstance(compiled, re.Pattern) == (text.isascii() and core._RE_SPACE_DIFFERS.search(text) is None)
    if isinstance(compiled, re.Pattern):
        reference = regex.compile(pattern, regex.DOTALL)
        assert [(m.span(), m.groupdict()) for m in compiled.finditer(text)] == [
            (m.span(), m.groupdict()) for m in reference.finditer(text)
        ]


def test_runtime_takes_re_only_on_registered_patterns_and_ascii_text():
    pattern = r"<k>(?P<key>\w+)\s*=(?P<value>[^<]*)"
    core.SAME_IN_RE.add(pattern)
    try:
        assert isinstance(core.content_regex(pattern, "<k>a = 1"), re.Pattern)
        for text in ("<k>é = 1", "<k>a\x1c= 1", "<k>a =\x1f1", "🙂"):
            assert not isinstance(core.content_regex(pattern, text), re.Pattern), repr(text)
    finally:
        core.SAME_IN_RE.discard(pattern)
    assert not isinstance(core.content_regex(pattern, "<k>a = 1"), re.Pattern)


def test_generated_modules_register_their_tag_patterns():
    from conftest import load_generated

    load_generated("olmo3")
    load_generated("glm47")
    assert {pattern for template, pattern in TAG_PATTERNS if template in ("olmo3", "glm47")} <= core.SAME_IN_RE
