"""The runtime's content parsers, transforms and tool typing, rule by rule,
against the reference's own functions on tables of edge inputs.

The conformance vectors pin these rules for every port (see
compiler/conformance/inventory.json); these tables add the Python-only detail
(exception classes of each rule in isolation, many inputs per rule) cheaply,
so mutation testing of runtime/core.py has fast, precise killers.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from transformers.utils.chat_parsing import content_parsers as ref_parsers
from transformers.utils.chat_parsing import response_parser as ref_driver

from differential import same
from runtime import core, markup, values

NUMBERS = [
    "3",
    " 7 ",
    "-0",
    "+4",
    "1_000",
    "٣",
    "3.0",
    "3.5",
    "-2.50",
    "1e3",
    "1E-2",
    ".5",
    "5.",
    "0x10",
    "inf",
    "-inf",
    "nan",
    "NaN",
    "Infinity",
    "1e400",
    "9007199254740993",
    "18446744073709551616",
    "1" * 400,
    "",
    "  ",
    "abc",
    "1,5",
    "true",
    "1.0e0",
    "3.000",
    "-3.0",
    "1e16",
    "0.1",
]
BOOLS = ["true", "TRUE", " True ", "1", " 1\n", "0", "false", "yes", "", "tRuE", "10", "İ"]

TEXTS = ["", " ", "\t\n", "  a b  ", "\r\nx\r\n", "🙂 ", "\u00a0x\u2003", "x"]

JSON_CASES = [
    ('{"a": 1}', {}),
    ("  [1, 2]  ", {}),
    ("NaN", {}),
    ("not json", {}),
    ("not json ", {"allow_non_json": True}),
    ("  not json  ", {"allow_non_json": True, "strip": False}),
    ("{a:1,b_c:2}", {"unquoted_keys": True}),
    ("{a:1}", {}),
    ("{ a:1}", {"unquoted_keys": True}),
    ('{"k":<|"|>x "y"\n z<|"|>}', {"string_delims": [['<|"|>', '<|"|>']]}),
    ('{"k":<<a>>, "j":<<b>>}', {"string_delims": [["<<", ">>"]]}),
    ('{"k":<<a>>, "j":[[b]]}', {"string_delims": [["<<", ">>"], ["[[", "]]"]]}),
    ('{"k": "\x01"}', {"string_delims": [["<<", ">>"]]}),
    ('{"k": "\x02"}', {"string_delims": [["<<", ">>"]]}),
    ('{"k": "\x01"}', {}),
    ("{k:<<\x01>>}", {"string_delims": [["<<", ">>"]], "unquoted_keys": True}),
    ("{k:<<\x02>>}", {"string_delims": [["<<", ">>"]], "unquoted_keys": True, "allow_non_json": True}),
    ("{k:<<v>>}", {"string_delims": [["<<", ">>"]], "unquoted_keys": True}),
    ("{k:<<v>>", {"string_delims": [["<<", ">>"]]}),
    ("{k:<<v>>", {"string_delims": [["<<", ">>"]], "allow_non_json": True}),
    ('{"a": 1, "a": 2}', {}),
]

XML = r"<(?P<key>\w+)>(?P<value>.*?)</(?P=key)>"
XML_CASES = [
    ("<a>1</a><b> 2 </b>", {"tag_pattern": XML}),
    ("<a>1</a><a>2</a><a>3</a>", {"tag_pattern": XML}),
    ("<a>1</a><a>2</a><a>3</a>", {"tag_pattern": XML, "merge_duplicates": True}),
    ("<a>1</a><b>x</b><a>2</a>", {"tag_pattern": XML, "merge_duplicates": True, "value_parser": {"name": "int"}}),
    ("<a> 4 </a>", {"tag_pattern": XML, "value_parser": {"name": "int"}}),
    ("<a> 4 </a>", {"tag_pattern": XML, "value_parser": {"args": {"strip": False}}}),
    ("<a>x\ny</a>", {"tag_pattern": XML}),
    ("<a>1</a>", {"tag_pattern": r"<(?P<key>\w+)>"}),
    ("<a>1</a>", {"tag_pattern": r"<(?P<name>\w+)>"}),
    ("<a>1</a>", {}),
    ("", {"tag_pattern": XML}),
    ("<a>1</a>", {"tag_pattern": r"<(?P<key>\w+)>(?:(?P<value>\d)|x)</(?P=key)>"}),
    # Value parsers a field prepares once (core.prepared_parser), and
    # malformed ones, read at the close as the reference reads them
    ("<a>1</a><b>x</b>", {"tag_pattern": XML, "value_parser": {"name": "json", "args": {"allow_non_json": True}}}),
    (
        "<a> x </a>",
        {"tag_pattern": XML, "value_parser": {"name": "json", "args": {"allow_non_json": True, "strip": False}}},
    ),
    ("<a>[1]</a><b>{k:2}</b>", {"tag_pattern": XML, "value_parser": {"name": "json", "args": {"unquoted_keys": True}}}),
    ("<a>x</a>", {"tag_pattern": XML, "value_parser": {"name": "json"}}),
    ("<a> 1 </a>", {"tag_pattern": XML, "value_parser": {"name": "xml-inline", "args": {"tag_pattern": XML}}}),
    ("<a>1</a>", {"tag_pattern": XML, "value_parser": "int"}),
    ("<a>1</a>", {"tag_pattern": XML, "value_parser": {"name": "nope"}}),
    ("<a>1</a>", {"tag_pattern": XML, "value_parser": {"name": 3}}),
    ("<a>1</a>", {"tag_pattern": XML, "value_parser": {"name": "int", "args": []}}),
    ("<a>1</a>", {"tag_pattern": XML, "value_parser": {"name": "int", "args": None}}),
    ("no tags", {"tag_pattern": XML, "value_parser": {"name": "nope"}}),
    ("<a>1</a>", {"tag_pattern": XML, "value_parser": []}),
]

KV_CASES = [
    ("a: 1\nb:2\n\nbad\n c : d : e ", {}),
    ("a=1;b=2", {"line_sep": ";", "kv_sep": "="}),
    (" a = 1 \n b = 2 ", {"kv_sep": "=", "strip": False}),
    ("a: 1\na: 2", {}),
    ("a: 3\nb: x", {"value_parser": {"name": "int"}}),
    ("x: 3", {"value_parser": {"name": "float"}}),
    ("x: yes\ny: 1", {"value_parser": {"name": "bool"}}),
    ("k: v\r\nk2: v2\r\n", {}),
    (":\n: v\nk:", {}),
    ("a:b", {"kv_sep": "::"}),
    ("a::b::c", {"kv_sep": "::"}),
    ("", {}),
    ("   ", {"strip": False}),
    ("\n", {"strip": False}),
]


def outcome(function, *args):
    try:
        return ("value", function(*args))
    except Exception as error:  # noqa: BLE001 - the class is the result
        return ("error", type(error))


CONTENT_CASES = (
    [("text", t, {}) for t in TEXTS]
    + [("text", t, {"strip": False}) for t in TEXTS]
    + [(name, t, {}) for name in ("int", "float") for t in NUMBERS]
    + [("int", " 5 ", {"strip": False}), ("float", " 5 ", {"strip": False})]
    + [("bool", t, {}) for t in BOOLS]
    + [("bool", " true", {"strip": False})]
    + [("json", t, a) for t, a in JSON_CASES]
    + [("xml-inline", t, a) for t, a in XML_CASES]
    + [("kv-lines", t, a) for t, a in KV_CASES]
)


@pytest.mark.parametrize("name,text,args", CONTENT_CASES)
def test_content_parser_matches_reference(name, text, args):
    expected = outcome(ref_parsers.parse_content, text, name, args)
    actual = outcome(core.parse_content, text, name, args)
    assert same(actual, expected), (actual, expected)


@pytest.mark.parametrize(
    "name,text,args", CONTENT_CASES + [("json", "[1]", []), ("text", " a ", []), ("int", "1", None)]
)
def test_prepared_parser_matches_reference(name, text, args):
    """A field's parser, its args read once (`core.prepared_parser`), gives
    what the reference gives, at every use (the same parser twice) and with
    args that are no object (read at the close, as the reference does)."""
    parse = core.prepared_parser(name, args)
    expected = outcome(ref_parsers.parse_content, text, name, args)
    for _ in range(2):
        actual = outcome(parse, text)
        assert same(actual, expected), (actual, expected)


@pytest.mark.parametrize(
    "value_parser",
    [{"name": "json", "args": {"allow_non_json": True}}, {"name": "int"}, {"args": {"strip": False}}, {}],
)
def test_value_parser_is_prepared_once(value_parser, monkeypatch):
    """A well-formed value parser is prepared with its field (`_value_parser`):
    at the close nothing reads it again through `_parse_value`."""
    parse = core.xml_inline_parser({"tag_pattern": XML, "value_parser": value_parser})
    args = {"tag_pattern": XML, "value_parser": value_parser}
    expected = ref_parsers.parse_content("<a> 1 </a>", "xml-inline", args)

    def read_again(raw, parser):
        raise AssertionError("the value parser was read at the close")

    monkeypatch.setattr(markup, "_parse_value", read_again)
    assert parse("<a> 1 </a>") == expected


@pytest.mark.parametrize(
    "name, args, generic",
    [
        ("json", {"allow_non_json": True}, "parse_json"),
        ("json", {}, "parse_json"),
        ("xml-inline", {"tag_pattern": XML}, "xml_inline_parser"),
    ],
)
def test_field_parser_is_prepared_once(name, args, generic, monkeypatch):
    """A field's json parser without rewrites tries json.loads first and an
    xml-inline one is built once (`prepared_parser`): parsing a body reaches
    neither the generic json parser nor the xml-inline builder again."""
    parse = core.prepared_parser(name, args)
    text = '{"a": 1}' if name == "json" else "<a>1</a>"
    expected = ref_parsers.parse_content(text, name, args)

    def again(*_):
        raise AssertionError(f"{generic} ran at the close")

    monkeypatch.setattr(markup if generic == "xml_inline_parser" else values, generic, again)
    assert parse(text) == expected


TYPES = [
    ("integer",),
    ("number",),
    ("boolean",),
    ("null",),
    ("object",),
    ("array",),
    ("string",),
    ("mystery",),
    ("integer", "null"),
    ("null", "integer"),
    ("boolean", "integer"),
    ("number", "integer"),
    ("array", "object"),
    ("object", "array"),
    ("string", "integer"),
    (),
]
RAWS = NUMBERS + BOOLS + ["null", "None", " None ", "none", '{"a": 1}', "[1, 2]", "[", "{}", "[]", '"x"', "1.5e0"]


@pytest.mark.parametrize("types", TYPES, ids=["-".join(t) or "none" for t in TYPES])
def test_cast_matches_reference(types):
    for raw in RAWS:
        expected = ref_driver._coerce(raw, types)
        actual = core.cast_argument(raw, types)
        assert same(actual, expected), (raw, types, actual, expected)


SCHEMAS = [
    {"type": "integer"},
    {"type": ["integer", "null"]},
    {"type": ["string", 3, "number"]},
    {"anyOf": [{"type": "null"}, {"type": "integer"}]},
    {"oneOf": [{"type": "boolean"}, {"anyOf": [{"type": "array"}]}]},
    {"type": "string", "nullable": True},
    {"type": "null", "nullable": True},
    {"type": ["integer", "null"], "nullable": True},
    {"nullable": True},
    {"anyOf": None, "oneOf": [], "type": "number"},
    {"type": "integer", "anyOf": [{"type": "string"}], "oneOf": [{"type": "null"}]},
    {},
    "integer",
    None,
    {"type": 5},
    {"anyOf": ["integer", {"type": "number"}]},
]


@pytest.mark.parametrize("schema", SCHEMAS, ids=[str(i) for i in range(len(SCHEMAS))])
def test_schema_types_match_reference(schema):
    assert core.schema_types(schema) == ref_driver._schema_types(schema)


SCOPE = {"content": {"a": {"b": [1, 2]}, "n": None}, "name": "f"}
PLACEHOLDERS = [
    "content",
    "content.a",
    "content.a.b",
    "content.n",
    "name",
    "missing",
    "content.x",
    "content.a.b.c",
    "name.x",
    "content.n.x",
]


@pytest.mark.parametrize("path", PLACEHOLDERS)
def test_placeholder_matches_reference(path):
    transform = {"v": "{" + path + "}", "k": [1, "{name}", None, True, "plain"]}
    expected = outcome(ref_parsers._apply_transform, transform, SCOPE)
    compiled = {"v": core.Placeholder(path), "k": [1, core.Placeholder("name"), None, True, "plain"]}
    actual = outcome(core.apply_transform, compiled, SCOPE)
    assert same(actual, expected), (actual, expected)


def _large_transform(shape, path, placeholder):
    """A transform too large for one compiled expression (over 200 values),
    or one nested deeper than Python's parser takes (210 brackets; it stops
    at 200): both are built by the closures of `core._transform_closures`.
    Not much deeper, so that mutmut's trampolines stay within the recursion
    limit."""
    if shape == "wide":
        return {f"k{i}": [placeholder("name"), i, {"x": placeholder(path)}, None] for i in range(80)}
    deep = {"x": placeholder(path)}
    for _ in range(210):
        deep = [deep]
    return deep


@pytest.mark.parametrize("shape", ["wide", "deep"])
@pytest.mark.parametrize("path", PLACEHOLDERS)
def test_large_transform_matches_reference(path, shape):
    transform = _large_transform(shape, path, lambda p: "{" + p + "}")
    expected = outcome(ref_parsers._apply_transform, transform, SCOPE)
    actual = outcome(core.apply_transform, _large_transform(shape, path, core.Placeholder), SCOPE)
    assert same(actual, expected), (actual, expected)


def _is_compiled_expression(builder):
    """A builder `core.transform_builder` made by eval of one expression (its
    code comes from "<string>"), not the closures of its fallback."""
    return builder.__code__.co_filename == "<string>"


def test_transforms_that_fit_are_one_compiled_expression():
    """The speed rule of transform_builder: a transform that stays within the
    limits of `_transform_source` (200 values bound, 2,000 source parts at
    every node; every bundled transform does) is one compiled expression;
    only larger or deeper ones take the closures. The fallback builds the
    same value, so a broken expression would otherwise go unseen and only
    cost time. The lists below sit exactly at the limits."""
    fits = [
        {"v": core.Placeholder("content"), "k": [1, core.Placeholder("name"), None, True, "plain"]},
        {"name": core.Placeholder("name"), "arguments": core.Placeholder("content")},
        [core.Placeholder("content"), {}, [], {"x": []}],
        core.Placeholder("name"),
        "plain",
        list(range(201)),  # the last value is looked at with 200 names bound
        [0, 0] + [[]] * 666,  # the last value is looked at with 2,000 parts out
    ]
    too_large = [
        list(range(202)),  # 201 names bound at the last value
        [0] + [[]] * 667,  # 2,001 parts at the last value
        _large_transform("wide", "name", core.Placeholder),
        _large_transform("deep", "name", core.Placeholder),
    ]
    for transform in fits + too_large:
        builder = core.transform_builder(transform)
        assert _is_compiled_expression(builder) == (transform in fits), transform
        expected = core._transform_closures(transform)(SCOPE)
        assert same(outcome(builder, SCOPE), outcome(lambda scope: expected, SCOPE))


TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "f",
            "parameters": {
                "type": "object",
                "properties": {
                    "n": {"type": "integer"},
                    "b": {"type": "boolean"},
                    "s": {"type": "string"},
                    "u": {"type": ["null", "number"]},
                    "a": {"type": "array"},
                    "o": {"type": "object"},
                    "e": {},
                },
            },
        },
    },
    {"name": "g", "parameters": {"properties": {"n": {"type": "integer"}}}},
    {"name": "h", "parameters": {"properties": "not a dict"}},
    {"name": "p"},
    {"function": {"name": 5, "parameters": {"properties": {"n": {"type": "integer"}}}}},
    "not a tool",
]
CALLS = [
    {
        "function": {
            "name": "f",
            "arguments": {"n": "3.0", "b": "0", "s": "4", "u": "None", "a": "[1]", "o": "{}", "e": "5", "z": "6"},
        }
    },
    {"function": {"name": "f", "arguments": {"n": ["1", "x", 2], "a": ["1", "2"], "b": [True, "1"]}}},
    {"function": {"name": "g", "arguments": {"n": "7"}}},
    {"function": {"name": "h", "arguments": {"n": "7"}}},
    {"function": {"name": "p", "arguments": {"n": "7"}}},
    {"function": {"name": "q", "arguments": {"n": "7"}}},
    {"function": {"name": "f", "arguments": '{"n": "7"}'}},
    {"function": {"name": 5, "arguments": {"n": "7"}}},
    {"function": "f"},
    {"type": "function", "function": {"name": "g", "arguments": {"n": "8"}}},
    [{"function": {"name": "g", "arguments": {"n": "9"}}}, [{"function": {"name": "g", "arguments": {"n": "10"}}}]],
    "text",
    None,
]


class _Probe(ref_driver.ResponseParser):
    """The reference's tool-call typing, reached through its constructor."""

    def __init__(self, tools):
        super().__init__({"start_anchor": "x", "fields": {"content": {}}}, prefix="", tools=tools)


@pytest.mark.parametrize("index", range(len(CALLS)))
def test_tool_typing_matches_reference(index):
    import copy

    params = core.tool_parameters(TOOLS)
    assert params == _Probe(TOOLS)._tool_params
    expected = _Probe(TOOLS)._coerce_tool_calls(copy.deepcopy(CALLS[index]))
    actual = core.type_tool_calls(copy.deepcopy(CALLS[index]), params)
    assert same(actual, expected), (actual, expected)


def _forecast(city: str, days: int = 1, metric: bool = True) -> dict:
    """Weather forecast.

    Args:
        city: The city.
        days: How many days.
        metric: Celsius or not.
    """
    return {}


class _Service:
    def lookup(self, query: str, limit: int | None = None) -> list:
        """Search.

        Args:
            query: What to look for.
            limit: At most this many.
        """
        return []


def test_python_function_tools_match_reference():
    """Functions (and bound methods) become JSON schemas as in transformers."""
    tools = [_forecast, _Service().lookup]
    params = core.tool_parameters(tools)
    assert params == _Probe(tools)._tool_params
    assert set(params) == {"_forecast", "lookup"}
    call = {"function": {"name": "lookup", "arguments": {"query": "x", "limit": "None"}}}
    assert core.type_tool_calls(call, params)["function"]["arguments"] == {"query": "x", "limit": None}


def test_debug_reprs():
    """The runtime's tables print readably (the IR and generated modules are read by people)."""
    assert repr(core.Placeholder("content.args")) == "Placeholder('content.args')"
    assert repr(core.Literals(["<a>", "<abc>"], grows_at_edge=True)) == "Literals(['<abc>', '<a>'], grows_at_edge=True)"
    lead = core.Lead(r"\s", " \t\n")
    assert repr(lead) == "Lead('\\\\s')"
    assert repr(core.Pattern(r"<x>\s*")) == "Pattern('<x>\\\\s*')"


def test_parse_response_matches_reference():
    """The generated module's parse_response: one text, a batch with one
    prefix or one per text, tools applied (the vectors drive the streaming API)."""
    from transformers.utils.chat_parsing import parse_response as reference_parse

    from compiler import compile_template

    template = {
        "start_anchor": "<|a|>",
        "fields": {
            "calls": {
                "open": "<c>",
                "close": "</c>",
                "repeats": True,
                "content": "json",
                "transform": {"function": "{content}"},
            },
            "content": {},
        },
    }
    tools = [{"name": "f", "parameters": {"properties": {"n": {"type": "integer"}}}}]
    module = compile_template(template, name="parse_response_check")
    texts = ['one<c>{"name": "f", "arguments": {"n": "2"}}</c>', "two", "three"]
    prefixes = ["<|a|>x", "", "pre<|a|>"]
    single = module.parse_response(texts[0], prefix=prefixes[0], tools=tools)
    assert same(single, reference_parse(texts[0], template, prefix=prefixes[0], tools=tools))
    assert single["calls"][0]["function"]["arguments"] == {"n": 2}
    batch = module.parse_response(texts, prefix=prefixes, tools=tools)
    assert same(batch, [reference_parse(t, template, prefix=p, tools=tools) for t, p in zip(texts, prefixes)])
    one_prefix = module.parse_response(texts, prefix="<|a|>", tools=None)
    assert same(one_prefix, [reference_parse(t, template, prefix="<|a|>") for t in texts])
    assert module.parse_response([texts[1]], prefix=[]) == [reference_parse(texts[1], template, prefix="")]


def test_fields_expose_their_delimiters():
    """A generated module's FIELDS carry each field's open and close (tools
    such as tests/runtime/test_linear_time.py read them; the driver uses WATCH)."""
    from compiler import compile_template

    template = {
        "start_anchor": "<|a|>",
        "fields": {"t": {"open": ["<t>", "<tt>"], "close_pattern": r"</t\s*>"}, "content": {}},
    }
    fields = {field.name: field for field in compile_template(template, name="fields_check").ResponseParser.FIELDS}
    assert fields["t"].open.literals == ("<tt>", "<t>")
    assert fields["t"].close.pattern == r"</t\s*>"
    assert fields["content"].open is None and fields["content"].close is None


@given(
    st.lists(st.text(alphabet=" \t\n\r\x0b\x0c\x1c\x1f\x85\xa0\u2028\u3000ab\u00e9\U0001f642", max_size=6), max_size=8)
)
def test_join_stripped_is_join_then_strip(pieces):
    """A text region's body joined stripped (one copy): the same string as
    joining it and stripping the result, whatever whitespace (str.isspace)
    and empty pieces lie at either end."""
    from runtime.core import join_stripped

    assert join_stripped(pieces) == "".join(pieces).strip()


def test_text_fields_strip_by_their_args():
    """Only text content with strip on (the default) is joined stripped."""
    from runtime.core import Field

    assert Field("a").strips and Field("a", content_args={"strip": True}).strips
    assert not Field("a", content_args={"strip": False}).strips
    assert not Field("a", content="json").strips and not Field("a", content="int").strips


def _llama4_open():
    from conftest import load_generated

    return load_generated("llama4_pythonic").FIELDS[0].open


def test_choose_follows_the_buffer():
    """The facts of the llama4 open: the head `[` alive or dead, a
    `<|python_start|>` or a whitespace before `[` anywhere in the buffer,
    and the read position too close to the head."""
    settled = _llama4_open().settled
    assert isinstance(settled.dead, core.Pattern) and isinstance(settled.alive, core.Pattern)
    assert settled.choose("[f(a=1)] and then (x) more", 9, 0, {}) is settled.alive
    assert settled.choose("words (x) more", 3, 0, {}) is settled.dead
    assert settled.choose("[f(a=1)] and <|python_start|> more", 9, 0, {}) is None
    # ` [`: the forward search may report a partial match
    assert settled.choose("[f(a=1)] and [x] more", 9, 0, {}) is None
    assert settled.choose("[f(a=1)]", 1, 0, {}) is None  # `(?<=\))` at 1 would not see the head's end
    assert settled.choose("  ", 2, 0, {}) is None  # the head partly matches: nothing is settled
    assert settled.choose("[f(x)", 2, 0, {}) is settled.alive  # `(?<=\))` at 2 reads the 1 after the head
    assert settled.choose("   [f(x)", 5, 0, {}) is None  # whitespace before `[` is a probe match too (conservative)


def test_choose_remembers_what_it_searched():
    """The facts are searched once per text: `memo` keeps, in absolute
    positions, where each string occurs or how far it is absent, so a
    longer buffer is searched from there (less the string's width), and a
    buffer cut in front (base moved on) is searched again only if the
    occurrence was cut away."""

    class Reads(str):
        """A buffer that records where str.find starts."""

        starts: list = []

        def find(self, sub, start=None, end=None):
            Reads.starts.append(start)
            return str.find(self, sub, start, end)

    settled = _llama4_open().settled
    literal, probe = ("settled", "<|python_start|>", None), ("settled", "", "\\s\\[")
    memo = {}
    text = "words (x) and more words"
    assert settled.choose(Reads(text), 3, 0, memo) is settled.dead
    assert memo[literal] == (-1, len(text)) and memo[probe] == (-1, len(text))
    Reads.starts.clear()
    longer = text + " and then (y)"
    assert settled.choose(Reads(longer), 3, 0, memo) is settled.dead
    assert Reads.starts == [len(text) - len("<|python_start|>") + 1]
    assert memo[literal] == (-1, len(longer)) and memo[probe] == (-1, len(longer))
    assert settled.choose(text + " <|python_start|>", 3, 0, memo) is None
    assert memo[literal] == (len(text) + 1, 0)
    # The occurrence is in the buffer still: no search (a buffer without it
    # would be a different text, which no parser gives with the same memo).
    assert settled.choose("words", 3, 0, memo) is None
    # Cut away (base past it): searched again in what is left.
    assert settled.choose("more words", 3, len(text) + 20, memo) is settled.dead
    # Too short to hold the string: absent, searched to its end.
    short = {}
    assert settled.choose("(x)", 3, 0, short) is settled.dead and short[literal] == (-1, 3)


def test_settled_patterns_find_what_the_original_finds():
    """Wherever `choose` picks one of llama4_pythonic's smaller patterns,
    its search (trigger-driven, as the runtime runs it) and the regex's
    own give what the original pattern gives, partial or not, on seeded
    random texts of its pieces (tests/passes/test_lookbehind_settle.py draws more
    with hypothesis, for every settled template)."""
    import random

    delim = _llama4_open()
    pieces = [
        "[",
        "]",
        ")",
        "(",
        ",",
        " ,",
        " ",
        "\n",
        "x",
        "f(",
        "f(a=1)",
        "<|python_start|>",
        "<|python_end|>",
        "<|py",
        "\t[",
    ]
    rng = random.Random(7)
    chosen_count = {"alive": 0, "dead": 0}
    for _ in range(3000):
        head = "[" if rng.random() < 0.5 else ""  # the anchored head alive, half of the time
        text = head + "".join(rng.choice(pieces) for _ in range(rng.randint(0, 10)))
        pos = rng.randint(0, len(text))
        chosen = delim.settled.choose(text, pos, 0, {})
        if chosen is None:
            continue
        chosen_count["alive" if chosen is delim.settled.alive else "dead"] += 1
        for partial in (True, False):
            expected = delim.compiled.search(text, pos, partial=partial)
            expected = None if expected is None else (expected.span(), expected.partial, expected.groupdict())
            own = chosen.compiled.search(text, pos, partial=partial)
            assert (None if own is None else (own.span(), own.partial, own.groupdict())) == expected, (text, pos)
            found = chosen.search(text, pos, partial)
            if found is None and expected is not None and expected[0] == (len(text), len(text)):
                continue  # an empty partial match at the end holds nothing back
            found = (
                None
                if found is None
                else (found.span(), found.partial, found.groupdict() if not found.partial else expected[2])
            )
            assert found == expected, (text, pos, partial)
    assert min(chosen_count.values()) > 200, chosen_count
