"""Grammars of random templates, with random tools, agree with the parser in
both directions (issue 37, point 2), through llguidance:

- every valid call, rendered as a model writes it (raw strings where the
  parser reads them as strings, parameters in any order), that the parser
  reads back as that call, is accepted by the template's Lark grammar;
- random walks of the grammar are accepted by llguidance and parse to calls
  that satisfy the tools' schemas.

Template styles: Qwen-style `<p=key>value</p>` tags with a `json` value
parser and `allow_non_json`, and MiniMax-style `<invoke name="...">` /
`<parameter name="...">` sections (text or json values); each with or
without `merge_duplicates` and with random tag names and whitespace.
"""

from __future__ import annotations

import json
import os
import random
from functools import lru_cache
from pathlib import Path

import jsonschema
import pytest

from compiler import compile_template
from compiler.grammar import grammar, grammar_model
from compiler.grammar.schema import ANY_ORDER_LIMIT

from grammar_engine import accepts, to_llguidance, walk

TEMPLATES = int(os.environ.get("GRAMMAR_RANDOM_TEMPLATES", "40"))
CALLS = int(os.environ.get("GRAMMAR_RANDOM_CALLS", "12"))
RANDOM_WALKS = int(os.environ.get("GRAMMAR_RANDOM_WALKS", "25"))

# Strings a model writes raw; some read as JSON values when raw (the
# grammar has them written JSON-quoted then).
STRINGS = [
    "Paris",
    "New York",
    "São Paulo",
    "東京",
    "a b c",
    "today",
    "tru",
    "nul",
    "NaN bread",
    "Infinity pool",
    "true story",
    "falsehood",
    "x-ray",
    "3 apples",
    "12",
    "-5",
    "true",
    "null",
    "NaN",
    "[draft]",
    "[ x ]",
    "{x}",
    "{ y: 1 }",
    '"quoted"',
    '"unterminated',
    '"a" said b',
    "",
    "line one\nline two",
    "é",
    "a < b",
    "1.5e3",
]
WORDS = ["alpha", "beta", "gamma", "delta", "city", "days", "unit", "query", "tags", "flag", "ratio", "opts"]


def random_schema(rng: random.Random) -> dict:
    kind = rng.choice(["string", "string", "integer", "number", "boolean", "array", "object", "enum"])
    if kind == "enum":
        return {"type": "string", "enum": rng.sample(["celsius", "fahrenheit", "true", "12", "a b", "null"], 2)}
    if kind == "array":
        return {"type": "array", "items": {"type": rng.choice(["string", "integer"])}}
    if kind == "object":
        return {"type": "object", "properties": {"x": {"type": "integer"}, "y": {"type": "string"}}}
    return {"type": kind}


def random_tools(rng: random.Random) -> list[dict]:
    tools = []
    for name in rng.sample(["get_weather", "search", "run", "lookup"], rng.randint(1, 2)):
        keys = rng.sample(WORDS, rng.choice([1, 2, 3, 4, 10]))  # 10: past schema.ANY_ORDER_LIMIT
        props = {k: random_schema(rng) for k in keys}
        required = [k for k in keys if rng.random() < 0.5]
        tools.append(
            {
                "type": "function",
                "function": {"name": name, "parameters": {"type": "object", "properties": props, "required": required}},
            }
        )
    return tools


def random_value(rng: random.Random, schema: dict):
    if "enum" in schema:
        return rng.choice(schema["enum"])
    kind = schema["type"]
    if kind == "string":
        return rng.choice(STRINGS)
    if kind == "integer":
        return rng.choice([0, 3, -7, 120])
    if kind == "number":
        return rng.choice([0.5, 2, -1.25, 3.0])
    if kind == "boolean":
        return rng.choice([True, False])
    if kind == "array":
        item = schema["items"]["type"]
        return [random_value(rng, {"type": item}) for _ in range(rng.randint(0, 2))]
    return {k: random_value(rng, v) for k, v in schema["properties"].items() if rng.random() < 0.7}


def random_call(rng: random.Random, tool: dict) -> dict:
    params = tool["function"]["parameters"]
    args = {
        k: random_value(rng, v)
        for k, v in params["properties"].items()
        if k in params["required"] or rng.random() < 0.6
    }
    return {"name": tool["function"]["name"], "arguments": args}


def _reads_as_json(text: str) -> bool:
    try:
        json.loads(text)
    except ValueError:
        return False
    return True


def rendered_value(value, parser: str) -> str:
    """A value as a model writes it: strings raw unless a `json` parser would
    read the raw text as another value; everything else as JSON."""
    if isinstance(value, str) and (parser == "text" or not _reads_as_json(value)):
        return value
    return json.dumps(value, ensure_ascii=False)


class Style:
    """A random template of one style and how a model writes its calls."""

    def __init__(self, rng: random.Random, index: int):
        self.in_schema_order: set[str] = set()  # tools whose arguments the grammar keeps in schema order
        self.kind = ("xml", "minimax")[index % 2]
        self.parser = "json" if self.kind == "xml" or rng.random() < 0.6 else "text"
        self.merge = rng.random() < 0.5
        value_parser = {"name": "text"} if self.parser == "text" else {"name": "json", "args": {"allow_non_json": True}}
        if self.kind == "xml":
            self.p, self.f, self.w = (
                rng.choice(["parameter", "param", "arg"]),
                rng.choice(["function", "fn"]),
                rng.choice(["tool_call", "tc"]),
            )
            self.ws = rng.random() < 0.5  # `\s*` around the value in the tag pattern
            space = r"\s*" if self.ws else ""
            args = {
                "tag_pattern": f"<{self.p}=(?P<key>[^>\\n]+)>{space}(?P<value>.*?){space}</{self.p}>",
                "value_parser": value_parser,
            }
            if self.merge:
                args["merge_duplicates"] = True
            self.prefix = "<|im_start|>assistant\n"
            self.template = {
                "defaults": {"role": "assistant"},
                "start_anchor": self.prefix,
                "fields": {
                    "reasoning_content": {"open": "<think>", "close": "</think>", "content": "text"},
                    "tool_calls": {
                        "open_pattern": f"\\s*<{self.w}>\\s*<{self.f}=(?P<name>[^>\\n]+)>",
                        "close_pattern": f"</{self.f}>\\s*</{self.w}>",
                        "repeats": True,
                        "content": "xml-inline",
                        "content_args": args,
                        "transform": {"type": "function", "function": {"name": "{name}", "arguments": "{content}"}},
                    },
                    "content": {"close_pattern": r"\s*<\|im_end\|>", "content": "text"},
                },
            }
        else:
            from compiler.frontend.source import read

            self.section = rng.choice(["minimax:tool_call", "tool_calls", "x:calls"])
            text = json.dumps(read("minimax_m2").template).replace("minimax:tool_call", self.section)
            self.template = json.loads(text)
            inner = self.template["fields"]["tool_calls"]["content_args"]["value_parser"]["args"]
            inner["value_parser"] = value_parser
            if self.merge:
                inner["merge_duplicates"] = True
            self.prefix = "]~b]ai\n"

    def render(self, rng: random.Random, calls: list[dict]) -> str:
        nl = rng.choice(["\n", "\n", ""])
        out = rng.choice(["", "<think>\nLet me see.\n</think>\n\n"]) + rng.choice(["", "Sure."])

        def params(call):
            items = list(call["arguments"].items())
            if call["name"] not in self.in_schema_order:
                rng.shuffle(items)
            for key, value in items:
                text = rendered_value(value, self.parser)
                if self.kind == "xml":
                    pad = rng.choice(["\n", " ", ""]) if self.ws else ""
                    yield f"<{self.p}={key}>{pad}{text}{pad}</{self.p}>{nl}"
                else:
                    yield f'<parameter name="{key}">{text}</parameter>{nl}'

        if self.kind == "xml":
            for call in calls:
                out += (
                    f"\n<{self.w}>{nl}<{self.f}={call['name']}>{nl}"
                    + "".join(params(call))
                    + f"</{self.f}>{nl}</{self.w}>"
                )
            return out + "<|im_end|>"
        # One section for all calls, or one per call with text between and
        # after them.
        sections = [calls] if rng.random() < 0.5 else [[call] for call in calls]
        for group in sections if calls else []:
            out += f"\n<{self.section}>\n"
            for call in group:
                out += f'<invoke name="{call["name"]}">\n' + "".join(params(call)) + "</invoke>\n"
            out += f"</{self.section}>" + rng.choice(["", "\nNext one.", "\nDone, a < b."])
        return out + "[e~["


def check_calls(message, tools, text):
    schemas = {t["function"]["name"]: t["function"]["parameters"] for t in tools}
    for call in message.get("tool_calls") or []:
        function = call["function"]
        assert function["name"] in schemas, text
        jsonschema.validate(function["arguments"], schemas[function["name"]])


@lru_cache(maxsize=None)
def case(index: int):
    rng = random.Random(f"grammar-random-{index}")
    style = Style(rng, index)
    tools = random_tools(rng)
    # Past ANY_ORDER_LIMIT arguments with merge_duplicates the grammar keeps schema order.
    style.in_schema_order = {
        t["function"]["name"]
        for t in tools
        if style.merge and len(t["function"]["parameters"]["properties"]) > ANY_ORDER_LIMIT
    }
    return rng, style, tools


COUNTS: dict[str, int] = {}


@pytest.mark.parametrize("index", range(TEMPLATES))
def test_random_template_grammar_agrees(index):
    rng, style, tools = case(index)
    module = compile_template(style.template)
    text = grammar(style.template, tools, format="lark", prefix=style.prefix)
    engine = to_llguidance(text, "lark")
    read_back = 0
    for _ in range(CALLS):
        calls = [random_call(rng, rng.choice(tools)) for _ in range(rng.randint(0, 2))]
        output = style.render(rng, calls)
        message = module.parse_response(output, prefix=style.prefix, tools=tools)
        got = [
            {"name": c["function"]["name"], "arguments": c["function"]["arguments"]}
            for c in message.get("tool_calls") or []
        ]
        if got != calls:
            continue  # the parser reads something else: not a rendering of these calls
        read_back += 1
        check_calls(message, tools, output)
        assert accepts(engine, output), (output, text)
    assert read_back >= CALLS // 2, "most renderings should read back"
    model = grammar_model(style.template, tools, prefix=style.prefix)
    walk_rng = random.Random(f"walk-{index}")
    for _ in range(RANDOM_WALKS):
        output = walk(model, walk_rng)
        assert accepts(engine, output), output
        check_calls(module.parse_response(output, prefix=style.prefix, tools=tools), tools, output)


def _style_template(parser: str, merge: bool = False) -> dict:
    for index in range(200):
        style = Style(random.Random(f"grammar-random-{index}"), index)
        if style.kind == "xml" and style.parser == parser and style.merge == merge and not style.ws:
            return style
    raise AssertionError("no such style")


def test_raw_strings_that_read_as_json_are_quoted():
    """A string argument read by `json` with `allow_non_json`: raw when the
    raw text is not JSON, JSON-quoted when it would read as another value."""
    style = _style_template("json", merge=True)
    tools = [
        {
            "type": "function",
            "function": {
                "name": "f",
                "parameters": {"type": "object", "properties": {"s": {"type": "string"}}, "required": ["s"]},
            },
        }
    ]
    text = grammar(style.template, tools, format="lark", prefix=style.prefix)
    assert "merge_duplicates: each argument is written once" in text
    engine = to_llguidance(text, "lark")
    module = compile_template(style.template)
    call = lambda value: f"<{style.w}><{style.f}=f><{style.p}=s>{value}</{style.p}></{style.f}></{style.w}><|im_end|>"
    for raw in [
        "Paris",
        "New York",
        "true story",
        "tru",
        "NaN bread",
        "3 apples",
        "x-ray",
        "",
        "nul l",
        "[draft]",
        "{x}",
        "[ x ]",
        '"open',
        '"a" b',
        '"',
    ]:
        assert accepts(engine, call(raw)), raw
        assert module.parse_response(call(raw), prefix=style.prefix, tools=tools)["tool_calls"][0]["function"][
            "arguments"
        ] == {"s": raw}
    for raw in ["12", "-5", "1.5e3", "true", "false ", "null", "NaN", "Infinity", "[1]", "{}", "[ ]", '{"a": 1}']:
        assert not accepts(engine, call(raw)), raw
        assert accepts(engine, call(json.dumps(raw))), raw
    for quoted in ['"a"', '"a</b"', '"\\u00e9"', json.dumps("[1]")]:  # a JSON string: read as the string it holds
        assert accepts(engine, call(quoted)), quoted
        assert module.parse_response(call(quoted), prefix=style.prefix, tools=tools)["tool_calls"][0]["function"][
            "arguments"
        ] == {"s": json.loads(quoted)}
    repeated = call("a").replace(f"</{style.p}>", f"</{style.p}><{style.p}=s>b</{style.p}>", 1)
    assert not accepts(engine, repeated)  # each key once: merge_duplicates would make a list


def test_minimax_samples_with_their_tools():
    """MiniMax M2's samples whose calls, read with the sample's tools,
    satisfy the schemas are accepted by its grammar (parameters in the
    order the model wrote them), except the grammar's deliberate limits."""
    from compiler.frontend.source import read

    stricter = {"closing_tags_inside_argument": "free text never holds `</parameter>`"}
    module = compile_template(read("minimax_m2").template)
    samples = json.loads(
        (Path(__file__).resolve().parents[2] / "templates_src" / "samples" / "minimax_m2.json").read_text(
            encoding="utf-8"
        )
    )["samples"]
    checked = 0
    for sample in samples:
        tools = sample.get("tools") or []
        if sample.get("expected_error") or "cut_off" in sample["id"]:
            continue
        message = module.parse_response(sample["output"], prefix=sample["prefix"], tools=tools)
        try:
            check_calls(message, tools, sample["output"])
        except (AssertionError, jsonschema.ValidationError):
            continue
        engine = to_llguidance(grammar("minimax_m2", tools, format="lark", prefix=sample["prefix"]), "lark")
        assert accepts(engine, sample["output"]) is (sample["id"] not in stricter), sample["id"]
        checked += 1
    assert checked >= 8


def test_many_arguments_in_any_order():
    """More than schema.ANY_ORDER_LIMIT arguments: any order, a key written
    again keeps its last value (without merge_duplicates), the required
    ones still needed; with merge_duplicates, schema order."""
    keys = [f"k{i}" for i in range(ANY_ORDER_LIMIT + 3)]
    props = {k: {"type": "integer"} if i % 2 else {"type": "string"} for i, k in enumerate(keys)}
    tools = [
        {
            "type": "function",
            "function": {"name": "f", "parameters": {"type": "object", "properties": props, "required": keys[:2]}},
        }
    ]
    for merge in (False, True):
        style = _style_template("json", merge=merge)
        text = grammar(style.template, tools, format="lark", prefix=style.prefix)
        engine = to_llguidance(text, "lark")
        module = compile_template(style.template)

        def call(pairs):
            tags = "".join(f"<{style.p}={k}>{v}</{style.p}>\n" for k, v in pairs)
            return f"<{style.w}><{style.f}=f>\n{tags}</{style.f}></{style.w}><|im_end|>"

        in_order = [(k, i if i % 2 else f"s{i}") for i, k in enumerate(keys)]
        assert accepts(engine, call(in_order))
        shuffled = in_order[::-1]
        repeated = [("k1", 5), ("k0", "a"), ("k1", 7)]
        assert accepts(engine, call(shuffled)) is not merge
        assert accepts(engine, call(repeated)) is not merge
        assert not accepts(engine, call([("k0", "a"), ("k3", 1)]))  # k1 is required
        if not merge:
            assert f"more than {ANY_ORDER_LIMIT} arguments: any order" in text
            for pairs in (shuffled, repeated):
                args = module.parse_response(call(pairs), prefix=style.prefix, tools=tools)["tool_calls"][0][
                    "function"
                ]["arguments"]
                assert args == {k: v for k, v in pairs}
                jsonschema.validate(args, tools[0]["function"]["parameters"])
        else:
            assert "written in schema order" in text
        model = grammar_model(style.template, tools, prefix=style.prefix)
        walk_rng = random.Random(f"many-{merge}")
        for _ in range(10):
            output = walk(model, walk_rng)
            assert accepts(engine, output), output
            check_calls(module.parse_response(output, prefix=style.prefix, tools=tools), tools, output)


def test_text_between_sections():
    """Text after a call's section and another section: a qwen3_5-style call
    close that looks ahead at free text then a block (qwen3_5 and seed_oss
    end a call before following text); the grammar takes the sample, and
    every output it generates parses to the calls it wrote."""
    from compiler.frontend.source import read

    root = Path(__file__).resolve().parents[2]
    for name in ("qwen3_5", "seed_oss"):
        sample = next(
            s
            for s in json.loads((root / "templates_src" / "samples" / f"{name}.json").read_text(encoding="utf-8"))[
                "samples"
            ]
            if s["id"] == "text_before_between_after_calls"
        )
        tools = sample["tools"]
        template = read(name).template
        module = compile_template(template)
        message = module.parse_response(sample["output"], prefix=sample["prefix"], tools=tools)
        assert len(message["tool_calls"]) == 2
        check_calls(message, tools, sample["output"])
        engine = to_llguidance(grammar(template, tools, format="lark", prefix=sample["prefix"]), "lark")
        assert accepts(engine, sample["output"]), name
        model = grammar_model(template, tools, prefix=sample["prefix"])
        walk_rng = random.Random(f"between-{name}")
        for _ in range(20):
            output = walk(model, walk_rng)
            assert accepts(engine, output), output
            check_calls(module.parse_response(output, prefix=sample["prefix"], tools=tools), tools, output)
