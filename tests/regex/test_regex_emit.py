"""compiler.regex.emit: the JavaScript and Go patterns find the spans the
regex module finds. Patterns run in real Node.js and Go processes, many
cases per process (code point offsets compared)."""

from __future__ import annotations

import random

import pytest
import regex

from compiler.regex import UnsupportedPattern, parse, to_source
from compiler.regex.analysis import regex_module_quirk
from compiler.regex.charset import CharSet, set_of
from compiler.regex.emit import go_problems, js_problems, to_go, to_js, to_python
from regex_engines import go_class_ranges, have_go, have_node, node_class_ranges, run_go, run_node
from regex_strategies import random_pattern, random_text
from regex_corpus import CORPUS

needs_node = pytest.mark.skipif(not have_node(), reason="node is not installed")
needs_go = pytest.mark.skipif(not have_go(), reason="go is not installed")

RANDOM_PATTERNS = 600
TEXTS = 10


def _batch():
    """Random patterns (seeded) and the corpus, each with texts and the
    regex module's spans: [(pattern, ast, [(text, pos, span)])]."""
    rng = random.Random(20240611)
    cases = []
    sources = [to_source(random_pattern(rng, 3, lazy=True)) for _ in range(RANDOM_PATTERNS)] + sorted(CORPUS)
    for source in sources:
        try:
            compiled = regex.compile(source, regex.DOTALL)
        except Exception:  # noqa: BLE001 - the regex module cannot compile a few odd ones
            continue
        tree = parse(source)
        runs = []
        for _ in range(TEXTS):
            text = random_text(rng, 10)
            pos = rng.choice([0, 0, rng.randint(0, len(text))])
            found = compiled.search(text, pos)
            runs.append((text, pos, None if found is None else [found.start(), found.end()]))
        cases.append((source, tree, runs))
    return cases


BATCH = _batch()


def _emitted(emit):
    out = []
    for source, tree, runs in BATCH:
        try:
            out.append((source, emit(tree), runs))
        except UnsupportedPattern:
            continue
    return out


@needs_node
def test_javascript_finds_the_same_spans(tmp_path):
    cases = _emitted(to_js)
    assert len(cases) >= RANDOM_PATTERNS * 3 // 4
    results = run_node([(js, [(text, pos) for text, pos, _ in runs]) for _, js, runs in cases], tmp_path)
    mismatches = []
    for (source, js, runs), spans in zip(cases, results):
        assert not isinstance(spans, dict), (source, js, spans)  # JavaScript accepted the pattern
        for (text, pos, expected), got in zip(runs, spans):
            if got != expected:
                mismatches.append((source, js, text, pos, expected, got))
    assert not mismatches, mismatches[:5]


@needs_go
def test_go_finds_the_same_spans(tmp_path):
    cases = []
    for source, go, runs in _emitted(to_go):
        # Go's regexp cannot search from a position with the text before it in view
        cases.append((source, go, [(text, 0, _span(source, text)) for text, _, _ in runs]))
    assert len(cases) >= RANDOM_PATTERNS // 2
    results = run_go([(go, [(text, 0) for text, _, _ in runs]) for _, go, runs in cases], tmp_path)
    mismatches = []
    for (source, go, runs), spans in zip(cases, results):
        assert not isinstance(spans, dict), (source, go, spans)  # RE2 accepted the pattern
        for (text, _, expected), got in zip(runs, spans):
            if got != expected:
                mismatches.append((source, go, text, expected, got))
    assert not mismatches, mismatches[:5]


def _sample_cases(emit):
    """Template delimiters the target accepts, on their templates' sample
    outputs (whole, and cut at every 7th character), searched from 0."""
    from regex_corpus import ROOT
    import json

    outputs = {}
    for path in (ROOT / "templates_src" / "samples").glob("*.json"):
        data = json.loads(path.read_text(encoding="utf-8"))
        outputs[path.stem] = [s["output"] for s in data["samples"] if isinstance(s.get("output"), str)]
    cases = []
    for pattern, where in sorted(CORPUS.items()):
        try:
            emitted = emit(parse(pattern))
        except UnsupportedPattern:
            continue
        texts = [text[:cut] for text in outputs[where.split(".")[0]] for cut in range(0, len(text) + 7, 7)]
        cases.append((pattern, emitted, [(text, _span(pattern, text)) for text in texts]))
    return cases


@needs_node
@needs_go
def test_template_delimiters_on_their_samples(tmp_path):
    js_cases, go_cases = _sample_cases(to_js), _sample_cases(to_go)
    assert len(js_cases) == len(CORPUS) and len(go_cases) >= 25
    js = run_node([(code, [(text, 0) for text, _ in runs]) for _, code, runs in js_cases], tmp_path)
    go = run_go([(code, [(text, 0) for text, _ in runs]) for _, code, runs in go_cases], tmp_path)
    for cases, results in ((js_cases, js), (go_cases, go)):
        for (pattern, code, runs), spans in zip(cases, results):
            assert spans == [expected for _, expected in runs], pattern


def _span(source, text):
    found = regex.compile(source, regex.DOTALL).search(text)
    return None if found is None else [found.start(), found.end()]


def _sets_of(ranges) -> CharSet:
    return CharSet.of((lo, hi) for lo, hi in ranges)


SURROGATES = CharSet(((0xD800, 0xDFFF),))


CLASS_PATTERNS = [r"\w", r"\W", r"\d", r"\D", r"\s", r"\S", "(?i)k", "(?i)[a-cé]", r"[^\W\d]", r"[\Wa]", "(?-s:.)"]


@needs_node
def test_javascript_classes_match_the_regex_module_on_every_code_point(tmp_path):
    sources = [to_js(parse(pattern)) for pattern in CLASS_PATTERNS]
    for pattern, source, got in zip(CLASS_PATTERNS, sources, node_class_ranges(sources, tmp_path)):
        assert _sets_of(got) == set_of(parse(pattern).body), (pattern, source[:80])


@needs_go
def test_go_classes_match_the_regex_module_on_every_code_point(tmp_path):
    sources = [to_go(parse(pattern)) for pattern in CLASS_PATTERNS]
    for pattern, source, got in zip(CLASS_PATTERNS, sources, go_class_ranges(sources, tmp_path)):
        # (the Go driver skips surrogates, so a run may span their gap)
        assert _sets_of(got) - SURROGATES == set_of(parse(pattern).body) - SURROGATES, (pattern, source[:80])


# ---------------------------------------------------------------------------
# Translations and refusals
# ---------------------------------------------------------------------------


def test_python_is_the_canonical_source():
    for pattern in sorted(CORPUS):
        assert to_python(parse(pattern)) == pattern


def test_javascript_translations():
    assert to_js(parse(r"\s*<tool_call>")) == r"\p{White_Space}*<tool_call>"
    assert to_js(parse(r"(?P<name>[^\s<]+)")) == r"(?<name>[^\p{White_Space}<]+)"
    assert to_js(parse(r"a\Z")) == "a$" and to_js(parse(r"\Aa")) == "^a"
    assert to_js(parse("a$")) == r"a(?=\n?$)"
    assert "(?<=" in to_js(parse(r"\bx")) and "\\p{Alphabetic}" in to_js(parse(r"\bx"))
    assert to_js(parse(r"\|/")) == r"\|\/"
    assert to_js(parse("(?-s:.)")) == "[^\\n]" and to_go(parse("(?-s:.)")) == "(?s)[^\\n]"


def test_go_translations():
    assert to_go(parse(r"<\|im_end\|>")) == r"(?s)<\|im_end\|>"
    assert to_go(parse(r"\s*</s>\s*$")).endswith(r"</s>" + to_go(parse(r"\s"))[4:] + r"*\z")
    assert to_go(parse(r"(?=<)<a>")) == "(?s)<a>"  # decided by its neighbour
    assert to_go(parse(r"\}(?<=\})x")) == r"(?s)\}x"
    assert to_go(parse(r"a(?!b)c")) == "(?s)ac"
    assert to_go(parse(r"a\b ")) == "(?s)a "
    assert to_go(parse(r"(?P<name>x)")) == "(?s)(?P<name>x)"
    assert to_go(parse(r"\Aa\Z")) == r"(?s)\Aa\z"


@pytest.mark.parametrize(
    "pattern, reason",
    [
        (r"(?<=\})\s*</tool_call>", "lookbehind"),
        (r"</tool_call>(?=\s*<)", "lookahead"),
        (r"</s>$", "$"),
        (r"\bx", "\\b"),
        ("a{1001}", "1000"),
        ("(?:|a)*", "empty"),
        ("[^b]|[^a]", "negated class"),
    ],
)
def test_go_refusals_name_what_is_missing(pattern, reason):
    with pytest.raises(UnsupportedPattern) as caught:
        to_go(parse(pattern))
    assert reason in str(caught.value)
    assert reason in " ".join(go_problems(parse(pattern)))


@pytest.mark.parametrize(
    "pattern, reason",
    [("(?:|a)*", "empty"), ("(?:.??)?", "empty"), ("(?P<a>x)|(?P<a>y)", "twice"), ("[^b]|[^a]", "negated class")],
)
def test_javascript_refusals(pattern, reason):
    with pytest.raises(UnsupportedPattern, match=reason):
        to_js(parse(pattern))
    assert js_problems(parse(pattern))


@needs_node
def test_refused_empty_iterations_really_differ_in_javascript(tmp_path):
    # the regex module ends `(?:|a)*` at its first, empty, iteration
    assert regex.compile("(?:|a)*").search("aa").span() == (0, 0)
    (spans,) = run_node([("(?:|a)*", [("aa", 0)])], tmp_path)
    assert spans == [[0, 2]]


def test_quirky_patterns_are_refused_everywhere():
    tree = parse("c[^b]|c[^a]")
    assert regex_module_quirk(tree)
    assert js_problems(tree) and go_problems(tree)
