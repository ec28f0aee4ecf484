"""The ports' regex matchers against the `regex` module's partial search:
`search(text, 0, partial=True)` and complete search, on the bundled
templates' delimiters (texts built from their pieces) and on hand-written
patterns for the module's look-behind partial rules
(compiler/regex/lookbehind_partial.py). JavaScript runs in one Node process;
Go in one `go run` of a generated program."""

from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
from pathlib import Path

import regex

from compiler.frontend import source as sources
from compiler.backends import js as js_backend
from compiler.backends.go import RUNTIME_DIR as GO_RUNTIME_DIR, RUNTIME_MODULE, _Emitter
from compiler.conformance.go import go_env
from compiler.ir import RegexDelimiter
from compiler.pipeline import to_program
from compiler.regex import parse
from compiler.regex.automaton import partial_problem
from compiler.regex.required_partial import required_string
from compiler.regex.emit import js_problems
from compiler.regex.lookbehind_partial import backtrack_literals
from regex_strategies import random_lazy_pattern, random_lazy_text

ROOT = Path(__file__).resolve().parents[2]
NODE = shutil.which("node")
GO = shutil.which("go")

# (pattern, texts): the module's rules, one case each.
HAND_WRITTEN = [
    (r"(?<=ab[ ]*c)", ["x c.", "x c..", "xx c.", "c", "x c", "xxc.", "x c.abc", "x c.ab", "abx c.", "ab  c.", "bxc.", "b\tc."]),
    (r"(?<=ab\s*c)", ["x c.", "b\tc.", "xxxxxxx c.", "x cz", "x c.c", "ab c."]),
    (r"(?<=ab[ ]+c)", ["x c.", "b  c.", "b   c.q"]),
    (r"(?<=ab[ ]{0,3}c)", ["x c.", "b    c."]),
    (r"(?<=ab[ ]?c)", ["x c.", "ab c."]),
    (r"(?<=a[ ]*c)", ["x c.", "a c."]),
    (r"(?<=(?:xa|ab)[ ]*c)", ["x c."]),
    (r"(?<=ab[ ]*?c)", ["x c."]),
    (r"(?<=(ab)[ ]*c)", ["x c."]),
    (r"(?<=ab([ ]*)c)", ["x c."]),
    (r"(?<=a(b)[ ]*c)", ["x c."]),
    (r"(?<=ab(?:c[ ]*)d)", ["x cd.", "xc  d."]),
    (r"(?<=ab(?:[ ]*)\b)", ["x c."]),
    (r"(?<=\n\n[ ]*c)", ["x c.", "\n\n c."]),
    (r"(?<=ab[ ]*c)|x c\.", ["x c.abc", "x c.ab"]),
    # the literal found where the repeat is at its minimum: a plain failure
    (r"(?<=^ab\w*c)", ["zabc.", "zabbc.", "abbc."]),
    (r"(?<!ab[ ]*c)\.", ["xx  c.", "ab  c."]),
    (r"(?<=(?:</arg_value>|<tool_call>\s*[^\s<]+)\s*</tool_call>)",
     ["<arg_value># Doc with </tool_call>.", "a" * 10 + " b </tool_call>.", "a" * 9 + " b </tool_call>.",
      "<tool_call>ab</tool_call>", "</arg_value></tool_call>b", "é😀 w </tool_call>."]),
    # attempted only where what follows the look-behind can start
    (r"(?<=ab[ ]*c)z", ["x c.", "x cz"]),
    (r"(?<=ab[ ]*c)\s*,", ["x c.", "x c,", "x c ,"]),
    (r"(?<=ab[ ]*c)\W", ["x c.", "x cq"]),
    (r"(?:(?<=ab[ ]*c)|x c\.)z", ["x c.abc", "x c.z"]),
    (r"(?<=^\s*(?:<\|python_start\|>\s*)?\[.*\))\s*,", ["{<|eot|>\n[get_weather(city=\"Bergen\")]\nI'll report", "[a(b) , c("]),
    # (?m): ^ also after a newline, $ also before one
    (r"(?m)^ASSISTANT:", ["x\nASSISTANT: hi", "xASSISTANT:", "x\nASSIST", "\nASSISTANT:"]),
    (r"(?m)\w+$", ["ab\ncd", "ab cd\n", "ab\n\n", "a b"]),
    (r"(?m:^)x(?m:$)|y$", ["ax\nx\n", "y\n", "x"]),
    # a look-ahead inside a look-behind reports no partial match
    (r"(?<!to=(?!as)[a-z]{1,9})<", ["|>as", "to=a", "qq<"]),
    (r"(?<=(?=as)[a-z])q", ["|>as", "qq<"]),
    (r"(?<=[a-z](?=\s*b))q", ["x a", "qa b"]),
    (r"(?<=x)(?=a\s*b)", ["xa", "x a"]),
    # lazy repeats of at most one (`??`, `{0,1}?`) follow the rules of the
    # bounded ones; an alternation whose branches share leading characters
    # is a test of those characters (compiler/regex/lazy_partial.py)
    (r"<[ab]??<abcdef>", ["<acbaa", "<a<abc", "<<abcdef>"]),
    (r"<.??(?:<a>)+", ["zy<z|\n.a<", ".<bqq", "<x<a>"]),
    (r"(?:<a??|zz)xy", ["a<|", "<axy", "<a"]),
    (r"a\s{0,1}?<a>", ["a x", "a  <", "a <a>"]),
    (r"a[^q]??(?:<a>|<b>)", ["]aq", "aq<", "ax<b>"]),
    (r"x\s??(?:<a>|<b>)", ["\nx|", "x <", "x<b"]),
    (r"<(?:[^x])??(?:<a>|<b>)", ["<｜<[^", "[<>x"]),
    (r"a.*?(?:<ab>|<ac>)", ["a x<a", "a<az", "a q<ac>"]),
    (r"a[^q]*?(?:xa|xb)", ["aq", "aqx", "a x"]),
    (r"a\s{0,2}?(?:(?:xa|xc)|xb)", ["a z", "a x", "a  xq"]),
    # a lazy repeat of an alternation of single characters is the module's
    # one-character repeat of their set
    (r"a(?:a|b)*?<a>", ["qbax", "a a", "a ab", "aab<a"]),
    (r"\[\[(?:a|b){1,3}?\|", [">a[[b>", "[[ab|", "[[aaaa"]),
    # ... not when one branch is a class of one range, or `.` (the module keeps the branches)
    (r"<call (?:[a-z]|_)+?>", ["<call a b>", "<call ab"]),
    (r"a(?:.|b)*?<a>", ["a a", "a ab"]),
    # a lazy repeat opening the pattern: attempted everywhere when the
    # module builds no first set ([^q] is a negated single character), the
    # run of its body skipped after a failed attempt, a partial match at the
    # last attempt when that run reaches the end
    (r"[^q]*?x", ["q", "qq", "aq", "qx"]),
    (r"[^qr]*?x", ["q", "r", "aq"]),
    (r"\s*?\b", ["|\n", "| \n", " |"]),
    (r"[^q]*?\b", ["\n", "\n\n", "\nq"]),
    (r"[^q]{0,2}?\b", ["\n\n\n", "\n"]),
    (r"(?:[^<]*?x+|zz)xy", ["<", "<<", "zx"]),
    (r"(?:x|[ab])*?(?i:k)", ["X", "|:zx:<X"]),
    # first-character pruning does not apply where a lazy repeat can be reached (Go)
    (r"a(?:[^<]*?x)y", ["a<", "a<b"]),
    (r"a(?:b|[^<]*?x)y", ["a<", "ab<"]),
    # a lazy repeat opening the pattern is no run to try from its start only (Go)
    (r"[^<]+?(?<=a)x", [",zb[", "qKx=KKa,", "= ]qb"]),
    # lazy repeats of groups backtrack iteration by iteration
    (r"a(?:xb)*?yz", ["axbxby", "axbq", "ay"]),
    (r"<(a)+?>", ["<aa", "<a>", "<b"]),
    # case-insensitive tests: the same rules, each character read with its cases
    (r"a[^q]*?(?i:x)", ["aq", "aqX", "a X"]),
    (r"a\s*?(?i:<ab>)", [" x", "a x<A", "a <aB>"]),
    (r"<.{1,3}?(?i:kx)", ["<zzzzK", "<a\u212aX", "<ab\u212ax"]),
    (r"(?i)<t>.*?</t>", ["<T> x</", "<t>aa</T", "<T>q"]),
    (r"a.*?<b(?i:c)", ["a x<b", "a<bC", "a<B"]),
]


def _expected(pattern: str, text: str, partial: bool):
    found = regex.compile(pattern, regex.DOTALL).search(text, 0, partial=partial)
    if found is None or (found.partial and found.start() == len(text)):
        return None
    return [found.start(), found.end(), bool(found.partial)]


def _regex_delimiters() -> dict[str, RegexDelimiter]:
    """pattern -> the first of every bundled template's regex opens and
    closes with that pattern."""
    out: dict[str, RegexDelimiter] = {}
    for path in sorted((ROOT / "templates_src").glob("*.json")):
        program = to_program(sources.read(str(path)))
        for field in program.fields:
            for delim in (field.open, field.close):
                if isinstance(delim, RegexDelimiter) and delim.ast is not None:
                    out.setdefault(delim.pattern, delim)
    return out


def _template_delimiters() -> list[tuple[str, object]]:
    """(pattern, ast) of every bundled template's regex opens and closes."""
    return [(pattern, delim.ast) for pattern, delim in _regex_delimiters().items()]


def _cases() -> list[tuple[str, str]]:
    rng = random.Random(2026)
    cases = [(pattern, text) for pattern, texts in HAND_WRITTEN for text in texts]
    for pattern, ast in _template_delimiters():
        flagged = bool(backtrack_literals(ast))
        pieces = [pattern.replace("\\", "")[i : i + 4] for i in range(0, len(pattern), 3)]
        pieces += [" ", "\n", "<", "}", "]", "x", "{", '"', "</tool_call>", "<tool_call>", "é", ")", "(", ",", "word "]
        for _ in range(60 if flagged else 15):
            cases.append((pattern, "".join(rng.choice(pieces) for _ in range(rng.randint(0, 10)))))
    return cases


def _lazy_cases() -> list[tuple[str, str]]:
    """Lazy repeats of every shape (regex_strategies.random_lazy_pattern)
    that the ports accept, and the issue's two opens, on random texts cut
    at every length (a stream fed one character at a time). LAZY_PATTERNS
    sets how many patterns (260) for a deeper run."""
    rng = random.Random(37)
    patterns = {
        r"<｜tool▁call▁begin｜>(?P<name>[^<｜]+?)<｜tool▁sep｜>": 40,
        r"\[\[(?P<name>[^<｜\n]+?)\|": 40,
        r"<tool_call>.*?</tool_call>": 20,
        r"<\|channel\|>(?P<channel>[^<]*?)<\|message\|>": 20,
        r"<\|channel\|>commentary to=functions\.(?P<name>.*?)(?: <\|constrain\|>json)?<\|message\|>": 20,
        # the case state a case-insensitive character leaves decides how the tail's test is packed
        r"(?i:a)(?:[^x])*?<a>": 20,
        r"(?i:x)<a*?(?:<ab>|<ac>)": 20,
    }
    while len(patterns) < int(os.environ.get("LAZY_PATTERNS", 260)):
        patterns.setdefault(random_lazy_pattern(rng), 6)
    cases = []
    for pattern, count in patterns.items():
        try:
            ast = parse(pattern)
        except Exception:  # noqa: BLE001 - a few generated ones are not in the grammar
            continue
        if partial_problem(ast, ports=True) or js_problems(ast):
            continue
        texts = [random_lazy_text(rng, pattern) for _ in range(count)]
        required = required_string(ast)
        if required is not None:
            # The module's partial search starts no earlier than the required
            # string's next occurrence less its offset, from where its
            # complete pass last found it: put occurrences far from the start.
            string = required[0] if isinstance(required[0], str) else "".join(chr(c.ranges[0][0]) for c in required[0])
            for _ in range(count):
                filler = "z" * rng.randint(0, 6)
                texts.append(random_lazy_text(rng, pattern, 4) + filler + string + random_lazy_text(rng, pattern, 4))
        for text in texts:
            cases += [(pattern, text[:cut]) for cut in range(len(text) + 1)]
    for pattern, text in REQUIRED_SEARCH_TEXTS:
        cases += [(pattern, text[:cut]) for cut in range(len(text) + 1)]
    return list(dict.fromkeys(cases))


# Where the module's search attempts a pattern with a required string decides
# (compiler/regex/required_partial.py), texts that tell its rules apart (each
# found by a mutant of one rule): search_start reads the next node's test
# (\w) after the first; it runs into the end there; the complete pass stops
# short of the minimum width, leaving where it last found the string.
REQUIRED_SEARCH_TEXTS = [
    (r"[^<]\w{1,3}?(x)", "x｜>zzzz"),
    (r"[^<][^<]{1,3}?(?i:<a>)", "<[X"),
    (r"[ab]\s{0,2}?xy[^q]{4}", "aqqzxy"),
    (r"[ab]\s{0,2}?xy[^q]{4}", "ayqzxyzz"),
]


CASES = _cases() + _lazy_cases()


def _rows():
    return [
        {"pattern": pattern, "text": text, "partial": partial, "want": _expected(pattern, text, partial)}
        for pattern, text in CASES
        for partial in (False, True)
    ]


def _report(rows, got) -> list[str]:
    return [
        f"{row['pattern']!r} on {row['text']!r} partial={row['partial']}: want {row['want']}, got {result}"
        for row, result in zip(rows, got)
        if result != row["want"]
    ]


def test_lookbehind_literals_flag_the_templates_that_meet_the_rule():
    flagged = {pattern for pattern, ast in _template_delimiters() if backtrack_literals(ast)}
    # glm47 (ling3 shares it), glm45's alternative of the same close, llama4_pythonic,
    # deepseek_v32's (and deepseek_v4's) self-closing invoke, kimi_k3's call close
    marks = ["</arg_value>", "observation", "python_start", "DSML", "call\\s{0,4}<\\|sep"]
    assert len(flagged) == len(marks) and all(any(mark in p for p in flagged) for mark in marks), flagged
    assert backtrack_literals(parse(r"(?<=a(b)[ ]*c)")) == {}
    assert sorted(backtrack_literals(parse(r"(?<=(ab)[ ]*c)")).values()) == ["ab"]


JS_PROGRAM = """
import {{ Regex }} from {runtime};
import {{ readFileSync }} from "node:fs";
{constants}
const regexes = [{regexes}];
const rows = JSON.parse(readFileSync(process.argv[2], "utf8"));
const cp = (s, i) => [...s.slice(0, i)].length;
const out = rows.map(([index, text, partial]) => {{
  const m = regexes[index].search(text, 0, partial);
  if (m === null || (m.partial && m.start === text.length)) return null;
  return [cp(text, m.start), cp(text, m.end), m.partial];
}});
console.log(JSON.stringify(out));
"""


def _js_probe(tmp_path: Path, sets, patterns: list[str], codes: list[str], rows) -> list[str]:
    """Run `rows` through the JS matcher (`codes[i]` is the emitted regex of
    `patterns[i]`); the rows whose answer differs from the regex module's."""
    constants = "\n".join(f"const {c['var']} = {c['code']};" for c in sets.constants())
    runtime = json.dumps((ROOT / "runtime" / "js" / "regex.mjs").as_uri())
    (tmp_path / "probe.mjs").write_text(
        JS_PROGRAM.format(runtime=runtime, constants=constants, regexes=",\n".join(codes)), encoding="utf-8"
    )
    index = {p: i for i, p in enumerate(patterns)}
    (tmp_path / "rows.json").write_text(
        json.dumps([[index[r["pattern"]], r["text"], r["partial"]] for r in rows]), encoding="utf-8"
    )
    done = subprocess.run([NODE, str(tmp_path / "probe.mjs"), str(tmp_path / "rows.json")], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return _report(rows, json.loads(done.stdout))


def test_javascript_matcher_agrees_with_the_regex_module(tmp_path: Path):
    assert NODE is not None
    rows = _rows()
    patterns = list(dict.fromkeys(row["pattern"] for row in rows))
    sets = js_backend._Sets()
    codes = [js_backend.regex_code(parse(p), p, "pattern", "test", sets) for p in patterns]
    wrong = _js_probe(tmp_path, sets, patterns, codes, rows)
    assert not wrong, "\n".join(wrong[:20])


def test_javascript_hinted_search_agrees_with_the_regex_module(tmp_path: Path):
    """The trigger-directed search (complete matches before trigger strings;
    partial ones before a trigger, a trigger prefix at the end or the lead
    run that ends the text), on the delimiters as the backend emits them."""
    assert NODE is not None
    delims = _regex_delimiters()
    sets = js_backend._Sets()
    codes = {p: js_backend._watched_code(d, "test", sets) for p, d in delims.items()}
    hinted = [p for p, code in codes.items() if "{ triggers" in code]
    assert len(hinted) >= 40, len(hinted)
    rows = [row for row in _rows() if row["pattern"] in hinted]
    rng = random.Random(12)
    for pattern in hinted:
        for run in ("\n" * 40, " \n\t" * 30):
            for tail in ("", "x", "<", "</", "<|", "<tool", "\n<", "}"):
                text = rng.choice(["", "text ", "{\"a\": 1}"]) + run + tail
                for partial in (False, True):
                    rows.append({"pattern": pattern, "text": text, "partial": partial, "want": _expected(pattern, text, partial)})
    wrong = _js_probe(tmp_path, sets, hinted, [codes[p] for p in hinted], rows)
    assert not wrong, "\n".join(wrong[:20])


GO_PROGRAM = """package main

import (
	"encoding/json"
	"fmt"
	"os"
	"unicode/utf8"

	rt "{module}"
)

{sets}

func main() {{
	regexes := []*rt.Regex{{
{regexes},
	}}
	data, _ := os.ReadFile(os.Args[1])
	var rows [][3]any
	if err := json.Unmarshal(data, &rows); err != nil {{
		panic(err)
	}}
	out := make([]any, len(rows))
	for i, row := range rows {{
		text := row[1].(string)
		m := regexes[int(row[0].(float64))].Search(text, 0, row[2].(bool))
		if m == nil || (m.Partial && m.Start == len(text)) {{
			continue
		}}
		out[i] = []any{{utf8.RuneCountInString(text[:m.Start]), utf8.RuneCountInString(text[:m.End]), m.Partial}}
	}}
	result, _ := json.Marshal(out)
	fmt.Println(string(result))
}}
"""


def test_go_matcher_agrees_with_the_regex_module(tmp_path: Path):
    assert GO is not None
    rows = _rows()
    patterns = list(dict.fromkeys(row["pattern"] for row in rows))
    emit = _Emitter("rt.")
    codes = [emit.regex(parse(p), p) for p in patterns]
    sets = "\n".join(
        f"var {var} = []rune{{{', '.join(str(v) for lo, hi in ranges for v in (lo, hi))}}}" for ranges, var in emit.sets.items()
    )
    (tmp_path / "go.mod").write_text(
        f"module probe\n\ngo 1.22\n\nrequire {RUNTIME_MODULE} v0.0.0\n\nreplace {RUNTIME_MODULE} => {GO_RUNTIME_DIR.as_posix()}\n",
        encoding="utf-8",
    )
    (tmp_path / "main.go").write_text(GO_PROGRAM.format(module=RUNTIME_MODULE, sets=sets, regexes=",\n".join(codes)), encoding="utf-8")
    index = {p: i for i, p in enumerate(patterns)}
    (tmp_path / "rows.json").write_text(json.dumps([[index[r["pattern"]], r["text"], r["partial"]] for r in rows]), encoding="utf-8")
    done = subprocess.run([GO, "run", ".", str(tmp_path / "rows.json")], cwd=tmp_path, env=go_env(), capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-3000:]
    got = [None if r is None else [r[0], r[1], r[2]] for r in json.loads(done.stdout)]
    wrong = _report(rows, got)
    assert not wrong, "\n".join(wrong[:20])


def test_lazy_shapes_the_ports_follow():
    """compiler/regex/lazy_partial.py: what each lazy one-character repeat's
    tail test is; compiler/regex/required_partial.py: the required string
    the module's search starts late for; both backends compile them all."""
    from compiler.frontend import source as sources
    from compiler.backends import go as go_backend
    from compiler.regex.charset import set_of
    from compiler.regex.lazy_partial import lazy_tails
    from compiler.regex.nodes import Char

    def tails(pattern):
        return sorted(lazy_tails(parse(pattern)).values())

    assert tails(r"<｜tool▁call▁begin｜>(?P<name>[^<｜]+?)<｜tool▁sep｜>") == ["<｜tool▁sep｜>"]
    assert tails(r"\[\[(?P<name>[^<｜\n]+?)\|") == ["|"]
    assert tails(r"a.*?(x)y") == ["x"]  # a capturing group ends the string
    assert tails(r"a.*?(?:x)y") == ["xy"]
    assert tails(r"a.*?x+") == ["x"]
    assert tails(r"a.*?(?=x)") == [""]
    assert tails(r"(?:a.*?|b)xy") == ["xy"]
    for pattern in (
        r"<｜tool▁call▁begin｜>(?P<name>[^<｜]+?)<｜tool▁sep｜>",
        r"<a>.*?</a>",
        r"x\s*?<a>",
        r"a\s{0,3}?<a>",
        r"a\s{2,}?<a>",
        r"a[^q]{1,2}?x",
        r"a\s??<a>",
        r"a\s{0,1}?<a>",
        r"a.*?(?:xa|xb)",
        r"(?:a\s??x|b)",
        r"a(?:ab)*?c",  # a lazy repeat of a group: the general repeat
        r"a(?:a|b)*?<a>",  # an alternation of characters: the module's set
        r"[^q]*?x",  # opening the pattern: the module's attempt positions (lazy_partial.lazy_lead)
        r"\s*?\b",
        r"<(?:a\s??x|b)y",
    ):
        assert partial_problem(parse(pattern), ports=True) is None, pattern
    assert tails(r"a.*?(?:<a>|<b>)") == ["<"]  # the module hoists the common prefix out of the branches
    assert tails(r"a.*?(?:<ab>|<ac>)") == ["<a"]
    assert tails(r"a.*?(?:(?:xa|xc)|xb)") == ["x"]
    assert tails(r"a.*?y(?:xa|xb)") == ["yx"]
    assert tails(r"a.*?(?:xa|ya)") == [""]
    assert lazy_tails(parse(r"a.*?(?i:xy)")).popitem()[1] == tuple(set_of(Char(c, True)) for c in "xy")
    assert tails(r"a.*?<b(?i:c)") == ["<b"]  # a case-insensitive character ends the string
    # The case state the sequence carries to the test: "<" alone after a
    # case-insensitive "a" (the case-sensitive "b" starts a string of its own).
    assert tails(r"(?i:a).*?<b") == ["<"]
    assert tails(r"(?i:a)b.*?<b") == ["<b"]
    assert tails(r"(?i:a)(.*?)<b") == ["<"]  # across a capturing group's end, in the same sequence
    assert tails(r"(?:(?i:a).*?xb|(?i:a)zz)") == ["xb"]  # a branch after the hoisted "a" starts afresh
    assert lazy_tails(parse(r"(?i:a).*?<(?i:b)")).popitem()[1] == (set_of(Char("<")), set_of(Char("b", True)))
    for pattern in (r"a.*?(?i:xy)", r"(?i)<t>.*?</t>", r"(?i:a).*?xb", r"(?i:a).*?<b"):
        assert partial_problem(parse(pattern), ports=True) is None, pattern
    # The required string (the module's get_required_string, read from its
    # optimised and packed pattern) and the widest text before it.
    assert required_string(parse(r"(?:x[^q]??xy|zz)y"))[:2] == ("y", 4)
    assert required_string(parse(r"[ab]\s{0,2}?xy"))[:2] == ("xy", 3)
    assert required_string(parse(r"[ab](\s{0,2}?xy)z"))[:2] == ("xy", 3)  # inside a group that captures
    assert required_string(parse(r"(?:[ab]\s??x){2}y"))[:2] == ("x", 2)  # inside a repeat of at least one
    assert required_string(parse(r"[ab]\s{0,2}?(?i:xy)")).literal == tuple(set_of(Char(c, True)) for c in "xy")
    assert required_string(parse(r"(?:(?i:a)[^<]??(?=xy)|zz)y"))[:2] == ("y", 2)  # a look-ahead before it
    assert required_string(parse(r"<(?:x[^q]??xy|zz)y")) is None  # the string comes first
    assert required_string(parse(r"[ab]\s*?xy")) is None  # unbounded width before it: no late start
    assert required_string(parse(r"[ab]\s{0,2}?(?=x)")) is None  # no string
    # search_start: a first node's test and its next node's (the minimum copy of \w{1,3}?)
    found = required_string(parse(r"[^<]\w{1,3}?(x)"))
    assert found.ahead == (set_of(parse(r"\w").body),) and found.ahead_at == 1 and found.min_width == 3
    assert required_string(parse(r"(?:x[^q]??xy|zz)y")).starts == set_of(parse("[xz]").body)  # the first set
    template = {"start_anchor": "<a>", "fields": {"content": {"close_pattern": r"[ab]\s??<a>"}}}
    program = to_program(sources.from_dict(template, "t"))
    assert 'Required{String: "<a>", Offset: 2' in "".join(go_backend.render(program).values())
    assert '["<a>", 2, ' in "".join(js_backend.render(program).values())
