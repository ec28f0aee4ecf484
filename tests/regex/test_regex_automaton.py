"""compiler.regex.automaton agrees with the regex module's search, partial
matching included, at every prefix of random texts, on random patterns and
on the templates' delimiters.

REGEX_EXAMPLES sets the number of random patterns (each tried on 8 texts
and at every prefix of each); the default run checks over 10,000 (pattern,
text) pairs. REGEX_RANDOM=1 draws new examples instead of the fixed ones.
"""

from __future__ import annotations

import json
import os
from collections import Counter
from pathlib import Path

import pytest
import regex
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from compiler.regex import UnsupportedPattern, parse, to_source
from compiler.regex.analysis import has_lookaround
from compiler.regex.automaton import Automaton, compile_automaton, partial_problem
from compiler.regex.nodes import LINE_END, LINE_START, Anchor, walk
from regex_strategies import patterns, texts

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = int(os.environ.get("REGEX_EXAMPLES", "1400"))
TEXTS_PER_PATTERN = 8
RANDOM = os.environ.get("REGEX_RANDOM") == "1"


def reference(compiled, text: str, pos: int, partial: bool):
    """regex's answer as (start, end, is_partial); the empty partial match
    at the end of the text is None."""
    found = compiled.search(text, pos, partial=partial)
    if found is None:
        return None
    if found.partial and found.start() == found.end() == len(text):
        return None
    return found.start(), found.end(), bool(found.partial)


def check_everywhere(automaton: Automaton, compiled, text: str, pos: int, partials=(False, True)) -> int:
    """Compare at every prefix of `text`; returns the number of searches."""
    count = 0
    for cut in range(len(text) + 1):
        prefix, start = text[:cut], min(pos, cut)
        for partial in partials:
            expected = reference(compiled, prefix, start, partial)
            assert automaton.search(prefix, start, partial) == expected, (automaton.pattern, prefix, start, partial)
            count += 1
    return count


def _settings(examples: int):
    return settings(
        max_examples=examples,
        deadline=None,
        derandomize=not RANDOM,
        database=None,
        suppress_health_check=list(HealthCheck),
    )


def _compiled(source: str):
    try:
        return regex.compile(source, regex.DOTALL)
    except Exception:  # noqa: BLE001 - the regex module crashes on a few odd patterns
        return None


def test_random_patterns_agree_with_regex_partial_and_complete():
    stats: Counter = Counter()

    @_settings(EXAMPLES)
    @given(patterns(), st.lists(texts, min_size=TEXTS_PER_PATTERN, max_size=TEXTS_PER_PATTERN), st.integers(0, 3))
    def check(ast, samples, pos):
        source = to_source(ast)
        compiled = _compiled(source)
        if compiled is None:
            stats["regex module cannot compile"] += 1
            return
        tree = parse(source)
        try:
            automaton = compile_automaton(tree)
        except UnsupportedPattern:
            # multiline anchors are refused by design (the Python backend runs
            # those patterns on the regex module); anything else counts
            multiline = any(isinstance(n, Anchor) and n.kind in (LINE_START, LINE_END) for n in walk(tree.body))
            stats["multiline" if multiline else "refused"] += 1
            return
        stats["patterns"] += 1
        partials = (False, True) if automaton.partial_exact else (False,)
        for text in samples:
            stats["searches"] += check_everywhere(automaton, compiled, text, pos, partials)
            stats["pairs"] += 1
            stats["pairs with partial"] += automaton.partial_exact

    check()
    print(dict(stats))
    assert stats["pairs"] >= min(10_000, EXAMPLES * TEXTS_PER_PATTERN * 9 // 10), stats
    assert stats["pairs with partial"] >= stats["pairs"] * 0.6, stats
    assert stats["refused"] <= stats["patterns"] * 0.05, stats


def test_random_lazy_patterns_agree_on_complete_matches():
    stats: Counter = Counter()

    @_settings(max(EXAMPLES // 5, 50))
    @given(patterns(lazy=True), st.lists(texts, min_size=4, max_size=4), st.integers(0, 3))
    def check(ast, samples, pos):
        source = to_source(ast)
        compiled = _compiled(source)
        if compiled is None:
            return
        try:
            automaton = compile_automaton(parse(source))
        except UnsupportedPattern:
            return
        if not automaton.partial_exact:
            with pytest.raises(UnsupportedPattern):
                automaton.search("abc", 0, partial=True)
        for text in samples:
            check_everywhere(automaton, compiled, text, pos, (False,))
            stats["pairs"] += 1

    check()
    assert stats["pairs"] >= 100


# ---------------------------------------------------------------------------
# Known patterns
# ---------------------------------------------------------------------------

CASES = [
    # priority: leftmost-first, greedy/lazy order
    ("a|ab", ["ab", "xab"]),
    ("ab|a", ["ab", "a", "xa"]),
    ("a+?b?", ["aab"]),
    ("(?:a|ab)(?:c|bcd)", ["abcd"]),
    # empty iterations end a repeat once its minimum is reached
    ("(?:|a)*", ["aa"]),
    ("(?:a|)*", ["aa"]),
    ("(?:|a){2,}", ["aaa"]),
    ("(?:a|^){2}", ["a"]),
    ("(?:a??)*", ["aa"]),
    ("(?:(?:|a)*b)*", ["aabab"]),
    ("(?:.??)?", ["ab"]),
    # anchors, with the context before pos visible
    ("^a", ["ba", "a"]),
    (r"\Aa", ["ab"]),
    (r"\ba", ["ba", " a", "éa"]),
    (r"\Ba", ["ba", "a"]),
    (r"a\b", ["a", "ab", "a é"]),
    (r"x\B", ["x", "xy"]),
    ("a$", ["a", "a\n", "a\n\n", "ab"]),
    (r"a\Z", ["a", "a\n"]),
    ("a$b", ["a", "a\n"]),
    (r"a\Zb", ["a"]),
    (r"\s*</s>\s*$", ["x </s> \n", "</s>\n", "</s>x", " </"]),
    # partial matches
    (r"\s*<tool_call>", ["", " ", "x <tool_", "<tool_call", "a<b<tool_call>c", "\u3000<"]),
    (r"<\|im_end\|>|<\|endoftext\|>", ["x<|", "<|im_e", "<|end"]),
    ("a.*b|c", ["a c", "a"]),
    ("ab", ["xa", "xy"]),
    (r"\w+", ["ab", "é1_", " "]),
    (r"[^\s<]+", ["name<", "na"]),
]


@pytest.mark.parametrize("pattern, samples", CASES)
def test_known_patterns(pattern, samples):
    automaton = compile_automaton(parse(pattern))
    compiled = regex.compile(pattern, regex.DOTALL)
    partials = (False, True) if automaton.partial_exact else (False,)
    for text in samples:
        for pos in range(len(text) + 1):
            check_everywhere(automaton, compiled, text, pos, partials)


def _template_delimiters():
    """(pattern, sample outputs of its template) for every delimiter without lookaround."""
    from regex_corpus import CORPUS

    outputs: dict[str, list[str]] = {}
    for path in (ROOT / "templates_src" / "samples").glob("*.json"):
        data = json.loads(path.read_text(encoding="utf-8"))
        outputs[path.stem] = [s["output"] for s in data["samples"] if isinstance(s.get("output"), str)]
    found = []
    for pattern, where in sorted(CORPUS.items()):
        if not has_lookaround(parse(pattern)):
            found.append((pattern, where, outputs.get(where.split(".")[0], [])))
    return found


TEMPLATE_DELIMITERS = _template_delimiters()


@pytest.mark.parametrize("pattern, where, outputs", TEMPLATE_DELIMITERS, ids=[w for _, w, _ in TEMPLATE_DELIMITERS])
def test_template_delimiters_on_their_samples(pattern, where, outputs):
    automaton = compile_automaton(parse(pattern))
    if "tag_pattern" not in where:  # delimiters (tag patterns are for finditer)
        assert automaton.partial_exact
    partials = (False, True) if automaton.partial_exact else (False,)
    compiled = regex.compile(pattern, regex.DOTALL)
    assert outputs
    for text in outputs:
        # every cut of the stream, searched from a little before it (as a
        # streaming parser does) and once from the start
        for cut in range(0, len(text) + 1, 2):
            prefix = text[:cut]
            starts = {max(0, cut - 40)} | ({0} if cut % 32 == 0 else set())
            for pos in starts:
                for partial in partials:
                    expected = reference(compiled, prefix, pos, partial)
                    assert automaton.search(prefix, pos, partial) == expected, (where, prefix, pos, partial)


def test_most_template_delimiters_get_an_automaton():
    assert len(TEMPLATE_DELIMITERS) >= 30


# ---------------------------------------------------------------------------
# Refusals and the regex module's quirks they avoid
# ---------------------------------------------------------------------------


def test_lookarounds_are_refused():
    for pattern in [r"(?<=\})\s*</tool_call>", r"a(?=b)", r"(?!x)y", r"(?<!a)b"]:
        with pytest.raises(UnsupportedPattern, match="lookaround"):
            compile_automaton(parse(pattern))


def test_patterns_the_regex_module_misreads_are_refused():
    with pytest.raises(UnsupportedPattern, match="negated class"):
        compile_automaton(parse("[^b]|[^a]"))


def test_lazy_partial_matching_is_refused():
    # the regex module's partial match here is no prefix of any match
    found = regex.compile(r"\s*?<a>", regex.DOTALL).search(" x", partial=True)
    assert found.partial and found.start() == 0
    automaton = compile_automaton(parse(r"\s*?<a>"))
    assert not automaton.partial_exact and "lazy" in partial_problem(parse(r"\s*?<a>"))
    assert automaton.search(" <a>", 0, False) == (0, 4, False)
    with pytest.raises(UnsupportedPattern, match="lazy"):
        automaton.search(" x", 0, partial=True)
    with pytest.raises(UnsupportedPattern, match="lazy"):
        compile_automaton(parse(r"\s*?<a>"), partial=True)


def test_repeated_group_partial_matching_is_refused():
    # a further iteration starting at the end of the text gives no partial match ...
    star = regex.compile("(?:ab)*^c", regex.DOTALL).search("ab", partial=True)
    assert star.span() == (2, 2)
    # ... though the same language written with + does report one
    plus = regex.compile("(?:ab)+^c", regex.DOTALL).search("ab", partial=True)
    assert plus.span() == (0, 2) and plus.partial
    with pytest.raises(UnsupportedPattern, match="repeated group"):
        compile_automaton(parse("(?:ab)*^c"), partial=True)
    assert compile_automaton(parse("(?:ab)*^c")).search("abc", 0) is None
    assert compile_automaton(parse("x[ab]*^c"), partial=True).partial_exact  # one character: fine


def test_patterns_starting_with_any_character_refuse_partial_matching():
    # searched from the end of the text, the regex module matches past it
    found = regex.compile(".", regex.DOTALL).search("ab", 2, partial=True)
    assert found.end() == 3
    automaton = compile_automaton(parse(".+"))
    assert not automaton.partial_exact and "any character" in automaton.no_partial
    assert automaton.search("ab", 2, False) is None
    assert compile_automaton(parse(".b"), partial=False).search("xab", 0) == (1, 3, False)


def test_tables_are_plain_json():
    automaton = compile_automaton(parse(r"\s*(?:<a>|<b>)\s*$"))
    tables = json.loads(json.dumps(automaton.tables()))
    assert tables["symbols"] == automaton.symbols
    assert len(tables["fwd_next"]) == len(automaton.fwd_next)
    assert all(len(row) == automaton.end + 1 for row in tables["fwd_next"])
    assert all(len(row) == automaton.end for row in tables["rev_next"])
    assert automaton.final_nl >= 0  # `$` sees a final newline as its own symbol
