"""Hypothesis strategies for the regex tests: random ASTs from the supported
subset (rendered with to_source) and texts over a small alphabet that makes
matches, near misses and partial matches common."""

from __future__ import annotations

from hypothesis import strategies as st

from compiler.regex.nodes import (
    ANCHORS,
    CATEGORIES,
    Alt,
    Anchor,
    Category,
    Char,
    Class,
    Concat,
    Dot,
    Group,
    Range,
    Repeat,
)

# Letters (ASCII and not), word/non-word, "<" ">" delimiters, a newline, an
# ASCII and a non-ASCII space, a digit.
TEXT_ALPHABET = ["a", "b", "A", "<", ">", " ", "\n", "é", "\u3000", "1"]
PATTERN_CHARS = ["a", "b", "<", ">", " ", "\n", "é"]

chars = st.sampled_from(PATTERN_CHARS)
class_items = st.one_of(
    chars.map(Char),
    st.sampled_from([Range("a", "c"), Range("<", ">"), Range("\x00", " "), Range("à", "ÿ")]),
    st.sampled_from(CATEGORIES).map(Category),
)


def _regex_reads_it(node: Class) -> bool:
    """The regex module misreads [^...] holding a shorthand and its complement."""
    names = {item.name for item in node.items if isinstance(item, Category)}
    return not (node.negated and any(name.swapcase() in names for name in names))


single = st.one_of(
    st.builds(Char, chars, st.sampled_from([False] * 6 + [True])),
    st.sampled_from([Dot(True), Dot(True), Dot(False)]),
    st.sampled_from(CATEGORIES).map(Category),
    st.builds(
        Class,
        st.lists(class_items, min_size=1, max_size=3).map(tuple),
        st.booleans(),
        st.sampled_from([False] * 6 + [True]),
    ).filter(_regex_reads_it),
)
anchors = st.sampled_from(ANCHORS).map(Anchor)


def _repeat(lazy: bool):
    bounds = st.sampled_from([(0, None), (1, None), (0, 1), (2, 2), (0, 2), (1, 3), (2, None)])

    def build(body, bound, is_lazy):
        return Repeat(body, bound[0], bound[1], is_lazy)

    return lambda child: st.builds(
        build, child.filter(lambda n: not isinstance(n, Anchor)), bounds, st.booleans() if lazy else st.just(False)
    )


def _extend(lazy: bool):
    def extend(child):
        return st.one_of(
            st.lists(child, min_size=2, max_size=3).map(lambda items: Concat(tuple(items))),
            st.lists(child, min_size=2, max_size=3).map(lambda items: Alt(tuple(items))),
            _repeat(lazy)(child),
            st.builds(Group, child, st.sampled_from([None, 1])),
        )

    return extend


def patterns(lazy: bool = False, leaf_anchors: bool = True):
    """Random ASTs (no lookarounds); lazy quantifiers only when asked."""
    leaves = st.one_of(single, single, anchors) if leaf_anchors else single
    return st.recursive(leaves, _extend(lazy), max_leaves=6)


texts = st.lists(st.sampled_from(TEXT_ALPHABET), max_size=9).map("".join)


# ---------------------------------------------------------------------------
# A seeded plain-random generator of the same shapes, for batch tests that
# send many cases to one Node.js / Go process.
# ---------------------------------------------------------------------------

_BOUNDS = [(0, None), (1, None), (0, 1), (2, 2), (0, 2), (1, 3), (2, None)]
_ITEMS = [Range("a", "c"), Range("<", ">"), Range("\x00", " "), Range("à", "ÿ")]


def random_single(rng):
    kind = rng.randrange(4)
    if kind == 0:
        return Char(rng.choice(PATTERN_CHARS), rng.random() < 0.1)
    if kind == 1:
        return Dot(rng.random() < 0.8)
    if kind == 2:
        return Category(rng.choice(CATEGORIES))
    while True:
        items = []
        for _ in range(rng.randint(1, 3)):
            pick = rng.randrange(3)
            if pick == 0:
                items.append(Char(rng.choice(PATTERN_CHARS)))
            elif pick == 1:
                items.append(rng.choice(_ITEMS))
            else:
                items.append(Category(rng.choice(CATEGORIES)))
        node = Class(tuple(items), rng.random() < 0.4, rng.random() < 0.1)
        if _regex_reads_it(node):
            return node


def random_pattern(rng, depth: int = 3, lazy: bool = False, leaf_anchors: bool = True):
    """A random AST (no lookarounds) of at most `depth` levels."""
    if depth == 0 or rng.random() < 0.3:
        if leaf_anchors and rng.random() < 0.15:
            return Anchor(rng.choice(ANCHORS))
        return random_single(rng)
    kind = rng.randrange(4)
    if kind == 0:
        return Concat(tuple(random_pattern(rng, depth - 1, lazy, leaf_anchors) for _ in range(rng.randint(2, 3))))
    if kind == 1:
        branches = tuple(random_pattern(rng, depth - 1, lazy, leaf_anchors) for _ in range(rng.randint(2, 3)))
        if lazy and rng.random() < 0.3:
            # branches sharing a leading character: the module hoists it out (lazy_partial.py)
            lead = Char(rng.choice(PATTERN_CHARS))
            branches = tuple(Concat((lead, branch)) for branch in branches)
        return Alt(branches)
    if kind == 2:
        body = random_pattern(rng, depth - 1, lazy, leaf_anchors)
        if isinstance(body, Anchor):
            body = random_single(rng)
        low, high = rng.choice(_BOUNDS)
        return Repeat(body, low, high, lazy and rng.random() < 0.5)
    return Group(random_pattern(rng, depth - 1, lazy, leaf_anchors), rng.choice([None, 1]))


def random_text(rng, size: int = 9) -> str:
    return "".join(rng.choice(TEXT_ALPHABET) for _ in range(rng.randint(0, size)))


# Lazy repeats of every shape before every kind of tail, as sources: the
# `regex` module's partial matches for them follow its own backtracking
# rules (compiler/regex/lazy_partial.py), which the ports reproduce.
LAZY_BODIES = [
    r"[^<]", r".", r"\s", r"[^q]", r"[ab]", r"a", r"(?:[^x])", r"\w", r"[^<｜\n]", r"(?:ab)", r"(a)",
    r"(?:a|b)", r"(?:x|[ab])", r"(?:ab|a)", r"(?:a\s)", r"(?:x?y)", r"(?:[a-z]|_)", r"(?:.|a)", r"(?:\s|<)",
]
LAZY_QUANTIFIERS = ["*?", "+?", "??", "{0,2}?", "{1,3}?", "{2,}?", "{1,}?", "{2,4}?", "{0,5}?", "{3,}?", "{1,2}?"]
LAZY_TAILS = [
    "x", "<a>", "xy", "(x)", "(?:x)y", "(x)y", "[x]", "x+", "\\d", "(?=x)", "(?=xy)", "(?!x)", "$", "",
    "(?:x|yz)", "x|y", "<｜tool▁sep｜>", "\\|", "(?:<a>|<b>)", "\\b", "<abcdef>", "x{2}", "(?:xb){1,2}",
    "(?:<a>)+", "\\s*<a>", "x?", "a", "(?:x|(?=y))", "(?<=a)x", "\\Z",
    # alternations whose branches share leading characters (the module hoists them)
    "(?:xa|xb)", "(?:<ab>|<ac>)", "(?:x|xy)", "(?:(?:xa|xc)|xb)", "a(?:xb|xc)", "(?:<a>|<b>|c)", "(?:[ab]x|[ab]y)",
    # case-insensitive tests (the module's CHARACTER_IGN / STRING_IGN)
    "(?i:x)", "(?i:xy)", "(?i:x)y", "x(?i:y)", "(?i:<a>)", "<(?i:a)>", "(?i:k)", "(?i:xy|xz)", "(?i:x)+",
]
LAZY_HEADS = ["", "a", "<", "\\[\\[", "(?P<n>", "x", "<｜tool▁call▁begin｜>(?P<n>", "[ab]", "(?:a|bb)"]
# case-insensitive characters before the repeat: the case state their sequence carries (lazy_partial.case_states)
LAZY_HEADS += ["(?i:a)", "(?i:<)b", "(?i:a)(?P<n>", "(?i:x)<"]
# heads the module builds no first set for (a negated single character): its search_start reads the first node
LAZY_HEADS += ["[^<]", "[^q]+"]
LAZY_ALPHABET = "aqx<>by |[\n｜zXYK\u212a"


def random_lazy_pattern(rng) -> str:
    """A source with a lazy repeat: head, body, quantifier, tail; sometimes
    inside an alternation or followed by more."""
    head = rng.choice(LAZY_HEADS)
    pattern = head + rng.choice(LAZY_BODIES) + rng.choice(LAZY_QUANTIFIERS) + (")" if head.endswith("(?P<n>") else "")
    pattern += rng.choice(LAZY_TAILS)
    if rng.random() < 0.3:
        pattern = "(?:" + pattern + "|zz)" + rng.choice(["", "y", "xy"])
    return pattern


def random_lazy_text(rng, pattern: str, size: int = 9) -> str:
    """A text of the pattern's own characters and a few others."""
    pieces = list(LAZY_ALPHABET) + [c for c in pattern if c.isprintable() and c not in "\\?*+{}()"]
    return "".join(rng.choice(pieces) for _ in range(rng.randint(0, size)))
