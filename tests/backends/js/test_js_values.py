"""The JavaScript runtime's Python semantics, value by value, against the
Python runtime (itself checked against the reference): json.loads (NaN,
Infinity, big integers, lone surrogates, duplicate keys, control characters),
the json dialects (string_delims, unquoted_keys, allow_non_json), int /
float / bool, xml-inline, kv-lines and tool-argument typing. One Node process
for every case; values cross as Python-compatible JSON."""

from __future__ import annotations

import copy
import json
import random
import unicodedata
import subprocess
from pathlib import Path

from compiler.backends.js import RUNTIME_DIR, _Sets, regex_code
from compiler.regex import parse
from runtime import core
from js_support import same_js

RUNNER = r"""
import { readFileSync } from "node:fs";
import { parseContent, castArgument, dumps, loads, pyStrip, schemaTypes, toolParameters, typeToolCalls } from "RUNTIME";
import "./regexes.mjs";
const cases = loads(readFileSync(0, "utf8"));
const lines = cases.map(([kind, a, b, c]) => {
  try {
    let value;
    if (kind === "content") value = parseContent(a, b, c);
    else if (kind === "cast") value = castArgument(a, b);
    else if (kind === "dumps") value = b ? dumps(a) : dumps(a, { ensureAscii: false });
    else if (kind === "schema") value = schemaTypes(a);
    else if (kind === "typing") value = typeToolCalls(structuredClone(a), toolParameters(b));
    else value = pyStrip(a);
    return dumps({ value });
  } catch (error) {
    return dumps({ error: error.pythonType ?? `JavaScript:${error.name}: ${error.message}` });
  }
});
process.stdout.write(lines.join("\n"));
"""

XML_ARGS = [
    {"tag_pattern": r"<(?P<key>\w+)>(?P<value>.*?)</(?P<close>\w+)>"},
    {"tag_pattern": r"<parameter=(?P<key>[^>\n]+)>\n?(?P<value>.*?)\n?</parameter>"},
    {"tag_pattern": r"<(?P<key>\w+)>(?P<value>[^<]*)</\w+>", "merge_duplicates": True},
    {"tag_pattern": r"<(?P<key>\w+)>(?P<value>[^<]*)</\w+>", "value_parser": {"name": "json"}},
    {"tag_pattern": r"<(?P<key>\w+)>(?P<value>[^<]*)</\w+>", "value_parser": {"name": "int"}},
    {"tag_pattern": r"<k>(?P<value>[^<]*)</k>"},
    {"tag_pattern": r"<(?P<key>\w+)/>(?P<value>x)?"},
    {},
]
JSON_ARGS = [
    {},
    {"allow_non_json": True},
    {"allow_non_json": True, "strip": False},
    {"unquoted_keys": True},
    {"string_delims": [["<|\"|>", "<|\"|>"]], "unquoted_keys": True},
    {"string_delims": [["'''", "'''"], ["«", "»"]]},
]
KV_ARGS = [{}, {"kv_sep": "="}, {"line_sep": ";", "strip": False}, {"value_parser": {"name": "int"}}, {"kv_sep": ""}]
SCALAR_TEXTS = [
    "42", " -7 ", "+3", "1_000", "1__0", "٣٤", "0x10", "3.0", "1e3", "-1E-2", ".5", "5.", "inf", "-Infinity", "nan",
    "NaN", "1_0.5", "", " ", "True", "TRUE", "1", "0", "yes", "12345678901234567890", "-98765432109876543210",
    "1e400", "\u00a0 8 \u2003", "\x1c9\x1f", "\ufeff1", "𝟗", "1.5e", "e5", "--1",
]
JSON_TEXTS = [
    '{"a": 1, "b": [true, false, null]}', "[NaN, Infinity, -Infinity]", "12345678901234567890123",
    "-0", "-0.0", "1.0", "1E400", '{"a": 1, "a": 2, "b": 3}', '"\\ud83d"', '"\\ud83d\\ude00"', '"\\udc00\\ud800"',
    '"tab\there"', '"ok\\u0041"', "{'a': 1}", '{"a": 1,}', "[1, 2", "  [] ", "\ufeff[]", "nul", "truex",
    "{a: 1, b_2: [1, {c: 2}]}", '{"x": <|"|>a "quoted"\nline<|"|>}', "{key: '''multi\nline''', k2: «é»}",
    '{"__proto__": 1, "constructor": 2}', '{"1": "a", "0": "b"}', "[" * 50 + "]" * 50, "0" * 5000, "1" * 4400,
    "\x01", '"\\x"', '"\\u12"', "[1.5e-7, 100000000000000000000.0, 1e22]", "{\"a\":\u3000 1}",
]
XML_TEXTS = [
    "<city>Paris</city><days>3</days>", "<a>1</a><a>2</a><a>3</a>", "<a>{\"x\": NaN}</a><b>[1,</b>",
    "<parameter=q>\nfind it\n</parameter><parameter=n>5</parameter>", "<x/>x<y/>", "<k>v</k>", "no tags",
    "<é>ü</é>", "<a>12345678901234567890</a>", "",
]
KV_TEXTS = ["a: 1\nb: 2\n\nc", "x=1;y = 2 ; z", " key : value : more ", "k: 007\nk: 8", "", "\u2028a: b"]
TYPES = [
    ["integer"], ["number"], ["boolean"], ["null"], ["object"], ["array"], ["integer", "null"], ["null", "integer"],
    ["number", "string"], ["array", "object"], ["string"],
]
# Added for the mutation run of the JavaScript runtime (docs/mutation.md):
# each pins a branch of runtime/js/pyjson.mjs that the texts above leave open.
JSON_TEXTS += [
    "nulx", "trux", "falsx", "NaX", "Infinitx", "-Infinitx",  # a literal's name read in full, not by its first letter
    '{a": 1}', '{"a"x1}', '{"a": 1x"b": 2}', "[1x2]",  # each delimiter checked
    "[1,\t2,\r3]", '"\\/\\b\\f\\r\\t\\n"', '"\\u12G4"', '"\\u00e9\\u00E9"',  # whitespace, escapes
    "[" * 2000 + "]" * 2000, '{"a": ' * 2000 + "1" + "}" * 2000,  # deeper than Python's recursion limit
    "1" * 4300, "-" + "1" * 4300, "1" * 16,  # at the int digit limit; 16 digits
]
_SEVENS = "".join(chr(c) for c in range(0x110000) if unicodedata.decimal(chr(c), None) == 7)
SCALAR_TEXTS += [
    "\t5\n", "9\x1f", "\x1c9", "-\u0663", "\u0661\u0660", "\u06634", "\u0663x", "1e1_0", "\u0661.\u0665e\u0662",
    _SEVENS,  # the digit 7 of every script: each range of the decimal table
    "0" * 4301 + "1", "0" * 4300,  # leading zeros count towards the digit limit
]
STRIP_ARGS = [{"strip": {}}, {"strip": ""}, {"strip": {"a": 1}}, {"strip": [0]}, {"strip": 10**30}, None]
JSON_TEXTS += ['["Set"]', "«x»", "{:1}", "{a 1}"]
JSON_ARGS += [{"string_delims": [["", "1"]]}, {"string_delims": None}, {"string_delims": [["", ""]]}, {"strip": ""}, {"strip": {}}, {"strip": 10**30}]
KV_ARGS += [{"line_sep": 5}, {"kv_sep": 5}]
# Tool typing: schema_types, tool_parameters and type_tool_calls, as the driver applies them.
SCHEMAS = [
    {"type": "integer"}, {"type": ["integer", 5, "null"]}, {"anyOf": [{"type": "number"}, "junk", {"type": "string"}]},
    {"oneOf": "ab"}, {"oneOf": {"type": "x"}}, {"anyOf": 5}, {"nullable": True}, {"type": "null", "nullable": True},
    {"type": "string", "nullable": 1}, "notadict", {"anyOf": []}, {"type": "integer", "anyOf": [{"type": "integer"}]},
]
TYPING_TOOLS = [
    [{"type": "function", "function": {"name": "f", "parameters": {"type": "object", "properties": {
        "n": {"type": "integer"}, "b": {"type": ["boolean", "null"]}, "x": {"anyOf": [{"type": "number"}, {"type": "string"}]},
        "o": {"oneOf": [{"type": "object"}]}, "z": {"type": "integer", "nullable": True}, "u": {}, "l": {"type": "integer"},
        "a": {"type": "array"}, "0": {"type": "integer"},
    }}}}],
    [{"name": "g", "parameters": {"properties": {"n": {"type": "number"}}}}],
    [{"function": {"name": "f"}}, {"function": {"name": 5}}, "notadict", {"function": "x"}, {"name": "g", "parameters": []}],
    None, [],
]
TYPING_VALUES = [
    {"function": {"name": "f", "arguments": {"n": "5", "b": "null", "x": "2.5", "o": '{"a": 1}', "z": "None", "u": "7",
                                             "l": ["1", "x", 2], "a": ["1"], "extra": "3"}}},
    [{"function": {"name": "g", "arguments": {"n": "3"}}}, {"function": {"name": "h", "arguments": {"n": "3"}}}],
    {"function": {"name": "f", "arguments": "notadict"}}, {"function": {"name": "f", "arguments": "5"}}, {"function": {"name": 7, "arguments": {"n": "1"}}},
    {"function": "x"}, "text", {"name": "f"},
]
# json.dumps of values JavaScript holds as Python does (no integral floats).
DUMPS_VALUES = [
    None, True, False, 0, -5, 12345678901234567890, 1.5, -2.25e-7, 1e300, float("nan"), float("inf"), float("-inf"),
    1e16, 1.5e17, 1e-05, 0.0001, 123.456, 9007199254740994.0, 5e-324, -0.5, 9.1e15, "a b~", -0.0, ["\u00e9"],
    "", "plain", 'q"b\\s/', "\n\r\t\b\f\x00\x1f\x7f", "é€😀", "\ud800", "\udc00x", "a\ud83d\ude00b\ud83d",
    [], [1, [2, []], {}], {"k": [None, "v"], "é": {"x": 1}}, {"__proto__": 1},
]

CAST_TEXTS = SCALAR_TEXTS + ['{"a": 1}', "[1, 2]", "null", "None", " none ", "false", "0.0", "3.5", "-0", "1e2"]


def _cases():
    cases = []
    for text in SCALAR_TEXTS:
        for name in ("text", "int", "float", "bool"):
            cases.append(["content", text, name, {}])
        cases.append(["content", text, "text", {"strip": False}])
        cases.append(["strip", text, None, None])
    for text in JSON_TEXTS + SCALAR_TEXTS:
        for args in JSON_ARGS:
            cases.append(["content", text, "json", args])
    for text in XML_TEXTS:
        for args in XML_ARGS:
            cases.append(["content", text, "xml-inline", args])
    for text in KV_TEXTS:
        for args in KV_ARGS:
            cases.append(["content", text, "kv-lines", args])
    for text in CAST_TEXTS:
        for types in TYPES:
            cases.append(["cast", text, types, None])
    cases.append(["content", "x", "nope", {}])
    for args in STRIP_ARGS:
        cases.append(["content", " x ", "text", args])
    cases.append(["cast", "[" * 2000 + "]" * 2000, ["array"], None])
    for schema in SCHEMAS:
        cases.append(["schema", schema, None, None])
    for tools in TYPING_TOOLS:
        for value in TYPING_VALUES:
            cases.append(["typing", value, tools, None])
    for value in DUMPS_VALUES:
        cases.append(["dumps", value, True, None])
        if not any(0xD800 <= ord(c) <= 0xDFFF or c == "\x7f" for c in json.dumps(value, ensure_ascii=False)):
            cases.append(["dumps", value, False, None])
    rng = random.Random(5)
    pieces = ['{', '}', '[', ']', ',', ':', '"', 'a', 'key', '1', '-', '.', 'e', 'NaN', ' ', '\n', '\\', 'u', 'é', "'"]
    for _ in range(400):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 12)))
        cases.append(["content", text, "json", rng.choice(JSON_ARGS)])
    return cases


def _python(case):
    kind, a, b, c = case
    try:
        if kind == "content":
            value = core.parse_content(a, b, c)
        elif kind == "cast":
            value = core.cast_argument(a, tuple(b))
        elif kind == "schema":
            value = list(core.schema_types(a))
        elif kind == "typing":
            value = core.type_tool_calls(copy.deepcopy(a), core.tool_parameters(b))
        elif kind == "dumps":
            value = json.dumps(a, ensure_ascii=b)
        else:
            value = a.strip()
        return {"value": json.loads(json.dumps(value))}
    except Exception as error:  # noqa: BLE001 - the class is the result
        return {"error": type(error).__name__}


def test_runtime_values_match_python(tmp_path: Path):
    cases = _cases()
    sets = _Sets()
    codes = [regex_code(parse(args["tag_pattern"]), args["tag_pattern"], "p", "t", sets) for args in XML_ARGS if "tag_pattern" in args]
    module = f"import {{ Regex, registerContentRegex }} from {json.dumps((RUNTIME_DIR / 'index.mjs').as_uri())};\n"
    module += "".join(f"const {c['var']} = {c['code']};\n" for c in sets.constants())
    module += "".join(f"registerContentRegex({code});\n" for code in codes)
    (tmp_path / "regexes.mjs").write_text(module, encoding="utf-8")
    (tmp_path / "run.mjs").write_text(RUNNER.replace("RUNTIME", (RUNTIME_DIR / "index.mjs").as_uri()), encoding="utf-8")
    done = subprocess.run(
        ["node", str(tmp_path / "run.mjs")], input=json.dumps(cases), capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    actual = [json.loads(line) for line in done.stdout.splitlines()]
    assert len(actual) == len(cases)
    mismatches = []
    for case, got in zip(cases, actual):
        want = _python(case)
        if not same_js(got, want) if set(got) == set(want) else True:
            mismatches.append((case, want, got))
    for item in mismatches[:30]:
        print(item)
    assert mismatches == []


FIXTURE = Path(__file__).resolve().parents[3] / "tests" / "js" / "fixtures" / "values.mjs"


def fixture_module() -> str:
    """tests/js/fixtures/values.mjs: the cases above with Python's results, for
    the Node tests (and so for the mutation run, which runs only those)."""
    from compiler.backends.literals import js_literal

    cases = _cases()
    sets = _Sets()
    codes = [regex_code(parse(a["tag_pattern"]), a["tag_pattern"], "p", "t", sets) for a in XML_ARGS if "tag_pattern" in a]
    lines = [
        "// Generated by tests/backends/js/test_js_values.py (fixture_module) from the Python runtime. Do not edit.",
        'import { Regex, registerContentRegex } from "response-template-runtime";',
        "",
    ]
    lines += [f"const {c['var']} = {c['code']};" for c in sets.constants()]
    lines += [f"registerContentRegex({code});" for code in codes]
    lines += ["", "// [kind, a, b, c, expected]: expected is {value} or {error: Python class name}", "export const CASES = ["]
    for case in cases:
        lines.append(f"  {js_literal([*case, _python(case)])},")
    lines += ["];", ""]
    return "\n".join(lines)


def test_node_fixture_is_fresh():
    """Regenerate with: python -c 'import sys; sys.path[:0]=[\"tests\"]; import test_js_values as t; t.write_fixture()'"""
    assert FIXTURE.is_file() and FIXTURE.read_text(encoding="utf-8") == fixture_module()


def write_fixture() -> None:
    FIXTURE.parent.mkdir(parents=True, exist_ok=True)
    FIXTURE.write_text(fixture_module(), encoding="utf-8")
