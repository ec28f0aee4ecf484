"""The Go backend: runtime/go and generated/go build, vet and test clean;
every conformance vector passes through the generated Go parsers (except
the justified entries of compiler/conformance/failures/go.txt); the conformance command,
vendoring, and the runtime's Python semantics (json, int(), float(),
repr(float), str.strip, character classes) against Python itself."""

from __future__ import annotations

import json
import math
import subprocess
import sys

import pytest
import regex

from compiler.frontend import source as sources
from compiler.backends.go import RUNTIME_DIR, RUNTIME_MODULE, render, word_table_source
from compiler.conformance.go import build_harness, run_cases
from compiler.errors import TemplateError
from compiler.pipeline import to_program
from compiler.regex import parse
from compiler.regex.charset import set_of
from compiler.regex.nodes import Category, Char, Class, Dot, walk
from compiler.conformance.vectors import parse_json_lines, read_json_lines
from differential import same
from go_support import ROOT, go, runtime_module

VECTORS = ROOT / "compiler" / "conformance" / "vectors"
FAILURES = ROOT / "compiler" / "conformance" / "failures" / "go.txt"
GENERATED = ROOT / "generated" / "go"
RESULT_KEYS = ("initial_events", "feeds", "final_events", "message", "error")


def template_source(name: str) -> sources.Source:
    """templates_src/<name>.json first, then compiler/conformance/templates/<name>.json."""
    for path in (ROOT / "templates_src" / f"{name}.json", VECTORS.parent / "templates" / f"{name}.json"):
        if path.is_file():
            return sources.read(str(path))
    raise FileNotFoundError(name)


def vector_cases() -> list[dict]:
    """The vectors, then the recovery-mode ones (compiler/conformance/recovery/)."""
    paths = sorted(VECTORS.glob("*.jsonl")) + sorted((VECTORS.parent / "recovery").glob("*.jsonl"))
    return [case for path in paths for case in read_json_lines(path)]


def known_failures() -> dict[str, str]:
    out = {}
    for line in FAILURES.read_text("utf-8").splitlines():
        case_id, _, reason = line.partition("#")
        if case_id.strip():
            assert reason.strip(), f"{FAILURES}: {case_id.strip()} needs a reason after '#'"
            out[case_id.strip()] = reason.strip()
    return out


@pytest.fixture(scope="session")
def go_harness(tmp_path_factory):
    """One Go build holding the parser of every template the vectors use
    (and the names of templates the Go backend refuses, whose cases then fail)."""
    accepted, refused = {}, set()
    for name in sorted({case["template"] for case in vector_cases()}):
        source = template_source(name)
        try:
            render(to_program(source))
        except TemplateError:
            refused.add(name)
            continue
        accepted[name] = source
    return build_harness(accepted, tmp_path_factory.mktemp("go-harness")), refused


def test_every_vector_passes_in_go(go_harness):
    harness, refused = go_harness
    cases = vector_cases()
    runnable = [case for case in cases if case["template"] not in refused]
    results = {r["id"]: r for r in run_cases(harness, runnable)}
    assert list(results) == [c["id"] for c in runnable]
    listed = known_failures()
    failing, unexpectedly_passing = [], []
    for case in cases:
        result = results.get(case["id"])
        ok = result is not None and same({k: case[k] for k in RESULT_KEYS}, {k: result[k] for k in RESULT_KEYS})
        if not ok and case["id"] not in listed:
            failing.append(case["id"])
        if ok and case["id"] in listed:
            unexpectedly_passing.append(case["id"])
    assert failing == [], f"{len(failing)} vector case(s) differ in Go, first: {failing[:5]}"
    assert unexpectedly_passing == [], f"listed in {FAILURES} but passing: {unexpectedly_passing}"


def test_runtime_is_gofmt_and_vet_clean_and_its_tests_pass():
    assert subprocess.run(["gofmt", "-l", str(RUNTIME_DIR), str(GENERATED)], capture_output=True, text=True).stdout == ""
    go("vet", "./...", cwd=RUNTIME_DIR)
    go("test", "./...", cwd=RUNTIME_DIR)


def test_generated_module_vets_and_runs_the_vectors_under_go_test():
    go("vet", "./...", cwd=GENERATED)
    done = go("test", "-count=1", "./...", cwd=GENERATED)
    assert b"ok" in done.stdout


def test_runtime_word_table_is_fresh():
    """runtime/go/wordset.go is the regex module's \\w: `python -m compiler.backends.go` rewrites it."""
    assert (RUNTIME_DIR / "wordset.go").read_text("utf-8") == word_table_source()


def test_conformance_command_speaks_the_protocol():
    cases = [c for c in vector_cases() if c["template"] == "qwen3"][:6]
    cases.append({"id": "no-prefix", "prefix": None, "chunks": ["x"], "tools": None})
    payload = "".join(json.dumps({k: c[k] for k in ("id", "prefix", "chunks", "tools")}) + "\n" for c in cases)
    done = subprocess.run(
        [sys.executable, "-m", "compiler", "conformance", "qwen3", "--lang", "go"],
        input=payload, capture_output=True, text=True, cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr
    lines = parse_json_lines(done.stdout)
    assert [line["id"] for line in lines] == [c["id"] for c in cases]
    for case, line in zip(cases[:-1], lines):
        assert list(line) == ["id", *RESULT_KEYS]
        assert same({k: case[k] for k in RESULT_KEYS}, {k: line[k] for k in RESULT_KEYS})
    assert lines[-1]["error"] == {"stage": "init", "index": 0, "type": "ValueError"}


def test_vendored_package_builds_alone_and_parses(tmp_path):
    out = tmp_path / "vendored"
    done = subprocess.run(
        [sys.executable, "-m", "compiler", "build", "qwen3", "--lang", "go", "--vendor", "-o", str(out)],
        capture_output=True, text=True, cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr
    assert RUNTIME_MODULE not in (out / "qwen3" / "qwen3.go").read_text("utf-8")
    (out / "go.mod").write_text("module example.com/app\n\ngo 1.22\n", encoding="utf-8")
    (out / "main.go").write_text(
        'package main\n\nimport (\n\t"fmt"\n\t"os"\n\n\t"example.com/app/qwen3"\n)\n\n'
        "func main() {\n\tmessage, err := qwen3.ParseResponse(os.Args[1], \"\")\n"
        "\tif err != nil {\n\t\tpanic(err)\n\t}\n\tout, _ := message.MarshalJSON()\n\tfmt.Println(string(out))\n}\n",
        encoding="utf-8",
    )
    go("vet", "./...", cwd=out)
    text = '<think>Hm.</think>Sure.<tool_call>\n{"name": "f", "arguments": {"x": 1.0}}\n</tool_call><|im_end|>'
    ran = go("run", ".", text, cwd=out)
    from generated.python import qwen3

    assert same(json.loads(ran.stdout), qwen3.parse_response(text, prefix=""))


def test_template_outside_the_regex_grammar_is_refused_with_its_path(tmp_path):
    template = json.loads((ROOT / "templates_src" / "qwen3.json").read_text("utf-8"))
    template["fields"]["tool_calls"]["close_pattern"] = r"(</tool_call>)\1?"
    path = tmp_path / "backref.json"
    path.write_text(json.dumps(template), encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "compiler", "build", str(path), "--lang", "go", "-o", str(tmp_path / "out")],
        capture_output=True, text=True, cwd=ROOT,
    )
    assert done.returncode == 2
    assert "fields.tool_calls.close_pattern" in done.stderr and "Traceback" not in done.stderr


# --------------------------------------------------------------------------
# The runtime's Python semantics, probed against Python itself.
# --------------------------------------------------------------------------

PROBE = """package main

import (
	"bufio"
	"fmt"
	"os"
	"strings"

	rt "%s"
)

var (
	prog    = (&rt.Program{Defaults: "{}", StartAnchor: &rt.Delimiter{}}).Init()
	keys, _ = rt.Loads(`{"unquoted_keys": true}`)
)

func map1(key string) *rt.Object {
	o := rt.NewObject()
	o.Set(key, int64(1))
	return o
}

func main() {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<26)
	for in.Scan() {
		v, _ := rt.Loads(in.Text())
		op := v.([]any)[0].(string)
		arg := v.([]any)[1].(string)
		var out any
		var err error
		switch op {
		case "loads":
			out, err = rt.Loads(arg)
		case "int":
			out, err = rt.PyInt(arg)
		case "float":
			var f float64
			f, err = rt.PyFloat(arg)
			out = rt.Float(f)
		case "strip":
			out = rt.Strip(arg)
		case "cls":
			runes := []rune{}
			set := v.([]any)[2].([]any)
			for _, x := range set {
				runes = append(runes, rune(x.(int64)))
			}
			re := &rt.Regex{Root: &rt.Node{Op: rt.OpSet, Set: runes}, Names: []string{""}}
			var b strings.Builder
			start := rune(-1)
			for c := rune(0); c <= 0x110000; c++ {
				if c >= 0xD800 && c <= 0xDFFF {
					continue // not encodable in a Go string; the ranges are compared without them
				}
				in := false
				if c <= 0x10FFFF {
					m := re.Search(string(c), 0, false)
					in = m != nil && m.End > 0
				}
				if in && start < 0 {
					start = c
				} else if !in && start >= 0 {
					fmt.Fprintf(&b, "%%d-%%d,", start, c-1)
					start = -1
				}
			}
			out = b.String()
		case "word":
			// \b after and before one code point, \\B, and unquoted_keys'
			// (?<=[{,])(\\w+): on "{c:1}": the uses of the runtime's \\w table.
			anyChar := &rt.Node{Op: rt.OpSet, Set: []rune{0, 0x10FFFF}}
			probes := []func(string) bool{
				func(s string) bool { return (&rt.Regex{Root: &rt.Node{Op: rt.OpAssert, Kind: 'b'}, Names: []string{""}}).Search(s, 0, false) != nil },
				func(s string) bool {
					re := &rt.Regex{Root: &rt.Node{Op: rt.OpConcat, Subs: []*rt.Node{anyChar, {Op: rt.OpAssert, Kind: 'b'}}}, Names: []string{""}}
					return re.Search(s, 0, false) != nil
				},
				func(s string) bool { return (&rt.Regex{Root: &rt.Node{Op: rt.OpAssert, Kind: 'B'}, Names: []string{""}}).Search(s, 0, false) != nil },
				func(s string) bool {
					v, err := prog.ParseContent("{"+s+":1}", "json", keys.(*rt.Object))
					return err == nil && rt.Dumps(v) == rt.Dumps(map1(s))
				},
			}
			runs := []any{}
			for _, probe := range probes {
				var b strings.Builder
				start := rune(-1)
				for c := rune(0); c <= 0x110000; c++ {
					if c >= 0xD800 && c <= 0xDFFF {
						continue
					}
					in := c <= 0x10FFFF && probe(string(c))
					if in && start < 0 {
						start = c
					} else if !in && start >= 0 {
						fmt.Fprintf(&b, "%%d-%%d,", start, c-1)
						start = -1
					}
				}
				runs = append(runs, b.String())
			}
			out = runs
		}
		if err != nil {
			fmt.Println(rt.Dumps([]any{"error", rt.PythonType(err)}))
		} else {
			fmt.Println(rt.Dumps([]any{"ok", out}))
		}
	}
}
"""


@pytest.fixture(scope="module")
def probe(tmp_path_factory):
    folder = tmp_path_factory.mktemp("probe")
    runtime_module(folder)
    (folder / "main.go").write_text(PROBE % RUNTIME_MODULE, encoding="utf-8")
    go("build", "-o", "probe", ".", cwd=folder)

    def run(requests: list[list]) -> list[list]:
        payload = "".join(json.dumps(r) + "\n" for r in requests).encode("utf-8")
        done = subprocess.run([str(folder / "probe")], input=payload, capture_output=True)
        assert done.returncode == 0, done.stderr.decode()
        return parse_json_lines(done.stdout.decode("utf-8"))

    return run


def python_result(op: str, arg: str):
    try:
        if op == "loads":
            return ["ok", json.loads(arg)]
        if op == "int":
            return ["ok", int(arg)]
        if op == "float":
            return ["ok", float(arg)]
        return ["ok", arg.strip()]
    except ValueError:  # JSONDecodeError included: the runtime's callers only need ValueError
        return ["error", "ValueError"]


JSON_TEXTS = [
    '{"a": 1, "b": [1.5, -0.0, 1e400, -1e400, 1E2, 0.1, 1e16, 1e-05, 123456789012345678901234567890]}',
    '{"a": 1, "a": 2, "b": 3}', "NaN", "-Infinity", "Infinity", "[NaN, Infinity]", ' \t\n 42 \r\n', "01", "1.", "-",
    '"\\ud83d\\ude00 and \\ud83d alone and \\ude00"', '"tab\there"', '"\\u00e9\\/\\b\\f\\n\\r\\t"', '"\\u00E9\\u00c9\\uABCD\\uD83D\\uDE00"', '"\\u00FF\\uFEFF\\u00fF"', '"\\u00G0"', "[1,]", '{"a":1,}',
    "{'a': 1}", "tru", "true false", "", "   ", "[]", "{}", '{"": null}', "-0", "-0.0", "1e5", "1E-7", "2.5e+3",
    "[1, [2, [3, {\"x\": [true, false, null]}]]]", '"\\x"', '"unterminated', "1 2", "\ufeff1", "9007199254740993",
    "-12345678901234567890", "0.30000000000000004", "5e-324", "1.7976931348623157e308", '"日本語 🙂"',
]
NUMBER_TEXTS = [
    "42", " -7 ", "+3", "1_000", "_1", "1_", "1__0", "007", "٣", "١٢٣", "\u00a05", "\x1c5", "5\u3000", "3.0", "1e3",
    "1.", ".5", "1.e5", "e5", "nan", "-Infinity", "inf", "iNfInItY", "+nan", "1_0.5", "1_.5", "1e1_0", "0x10", "1e400",
    "-1e400", "١.٥", " 1.5\n", "", " ", "abc", "12abc", "1e", "1e+", "--1", "0.1", "123456789012345678901234567890",
    "1.5e-7", "1e22", "1e16", "12345678.9", "٣.٥e٢", "1 000", "𝟙𝟚",
]
STRIP_TEXTS = ["  a b  ", "\x1c\x1d x \x1e\x1f", "\u3000\u2028y\u2029\u00a0", "\u200bz\u200b", "\x85w\x85", "", " \t\n\r\x0b\x0c"]


def test_json_int_float_and_strip_match_python(probe):
    requests = (
        [["loads", t] for t in JSON_TEXTS]
        + [[op, t] for op in ("int", "float") for t in NUMBER_TEXTS]
        + [["strip", t] for t in STRIP_TEXTS + NUMBER_TEXTS]
    )
    for request, got in zip(requests, probe(requests)):
        expected = python_result(*request)
        if request[0] == "int" and expected[0] == "ok":
            assert got == expected, request
        elif request[0] == "float" and expected[0] == "ok":
            assert got[0] == "ok" and type(got[1]) is float, request
            assert got[1] == expected[1] or (math.isnan(got[1]) and math.isnan(expected[1])), request
        else:
            assert same(got, expected), (request, got, expected)


def test_float_repr_matches_python(probe):
    values = [0.1, 1e16, 1e15, 1e-4, 1e-5, 123.456, -0.0, 5e-324, 1.7976931348623157e308, 2.5, 100.0, 1 / 3, 1e22]
    requests = [["loads", json.dumps([v])] for v in values]
    for value, got in zip(values, probe([[op, arg] for op, arg in requests])):
        assert got[0] == "ok"
    # Dumps writes repr(float): check the text itself through the harness of loads -> Dumps.
    folder_texts = [json.dumps(v) for v in values]
    results = probe([["loads", t] for t in folder_texts])
    for value, (status, decoded) in zip(values, results):
        assert status == "ok" and repr(decoded) == repr(value)


def class_nodes():
    """Every one-character node of every regex the bundled templates use, plus case-folding probes."""
    patterns = []
    for path in sources.bundled():
        template = json.loads(path.read_text("utf-8"))

        def collect(value):
            if isinstance(value, dict):
                for key, item in value.items():
                    if key.endswith("pattern") and isinstance(item, str):
                        patterns.append(item)
                    else:
                        collect(item)
            elif isinstance(value, list):
                for item in value:
                    collect(item)

        collect(template)
    patterns += ["(?i)[a-zß]", "(?i)k", "(?i)[^\\W\\d]", "\\w", "\\W", "\\d", "\\s", "."]
    nodes = {}
    for pattern in patterns:
        for node in walk(parse(pattern).body):
            if isinstance(node, (Char, Class, Category, Dot)) and not (isinstance(node, Char) and not node.icase):
                nodes[node] = pattern
    return nodes


def test_character_classes_per_code_point_equal_the_regex_module(probe):
    """For every class the Go parsers use: the Go engine's answer on each code
    point (surrogates aside) equals the `regex` module's own fullmatch."""
    from compiler.regex import to_source

    nodes, seen = {}, set()
    for node, pattern in class_nodes().items():
        if set_of(node).ranges not in seen:
            seen.add(set_of(node).ranges)
            nodes[node] = pattern
    requests = [["cls", "", [bound for lo_hi in set_of(node).ranges for bound in lo_hi]] for node in nodes]
    # Code points in order, surrogates left out (as the Go side does): runs of
    # members are then ranges in both.
    everything = "".join(chr(c) for c in range(0x110000) if not 0xD800 <= c <= 0xDFFF)
    for (node, pattern), (status, members) in zip(nodes.items(), probe(requests)):
        flags = regex.DOTALL | (regex.IGNORECASE if getattr(node, "icase", False) else 0)
        compiled = regex.compile(f"(?:{to_source(node)})+", flags)
        expected = "".join(f"{ord(m.group()[0])}-{ord(m.group()[-1])}," for m in compiled.finditer(everything))
        assert members == expected, f"class {to_source(node)!r} of {pattern!r}"


def test_word_table_uses_per_code_point_equal_the_regex_module(probe):
    """The runtime's \\w table (wordset.go) where Go reads it: \\b after and
    before each code point, \\B, and unquoted_keys' (?<=[{,])(\\w+): on
    "{c:1}", each equal to the `regex` module on every code point (surrogates aside)."""
    [(status, runs)] = probe([["word", ""]])
    assert status == "ok"
    after, before, inside = regex.compile(r"\b"), regex.compile(r"(?s).\b"), regex.compile(r"\B")
    bare_key = regex.compile(r"(?<=[{,])(\w+):")
    tests = [
        lambda ch: after.match(ch) is not None,
        lambda ch: before.fullmatch(ch) is not None,
        lambda ch: inside.search(ch) is not None,
        lambda ch: bare_key.sub(r'"\1":', "{" + ch + ":1}") != "{" + ch + ":1}",
    ]
    for name, test, got in zip(("\\b after", "\\b before", "\\B", "unquoted_keys"), tests, runs):
        expected, start = [], None
        for c in [*range(0xD800), *range(0xE000, 0x110001)]:
            member = c < 0x110000 and test(chr(c))
            if member and start is None:
                start = c
            elif not member and start is not None:
                expected.append(f"{start}-{c - 1},")
                start = None
        assert got == "".join(expected), name


def test_xml_inline_finditer_with_empty_matches_matches_reference(tmp_path):
    """finditer after an empty match: the next match may start there only if it is not empty."""
    from compiler.conformance.vectors import run_reference

    template = {
        "start_anchor": "<|a|>",
        "fields": {
            "tool_calls": {
                "open": "<c>",
                "close": "</c>",
                "repeats": True,
                "content": "xml-inline",
                "content_args": {"tag_pattern": "(?P<key>x*?)(?P<value>y?)", "merge_duplicates": True},
            },
            "content": {"content": "text"},
        },
    }
    built = build_harness({"empties": sources.from_dict(template, "empties")}, tmp_path)
    texts = ["<c>axyb</c>", "<c></c>", "<c>xxyyx</c>", "<c>éxy🙂yx</c>", "<c>|a</c>"]
    cases = [{"id": str(i), "template": "empties", "prefix": "", "chunks": [t], "tools": None} for i, t in enumerate(texts)]
    for case, result in zip(cases, run_cases(built, cases)):
        expected = run_reference(template, "", case["chunks"], None)
        assert same(expected, {k: result[k] for k in RESULT_KEYS}), (case, expected, result)
