"""The runtime's shortcuts on transitions and whole texts give exactly what
the plain code gives: `json_loads` is `json.loads`, a transform compiled to
one expression builds what the closures build (and raises what they raise,
first error first)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from runtime import core  # noqa: E402

JSON_TEXTS = [
    "",
    " ",
    "{}",
    '{"a": 1}',
    '  {"a": [1, 2.5, null, true]}  \n',
    "\t\r\n[1]\n\r\t",
    "\ufeff{}",
    " \ufeff{}",
    "{} x",
    "{}{}",
    "{} \u00a0",
    "\u00a0{}",
    "NaN",
    "-Infinity",
    "1e400",
    '"s"',
    '"\\ud83d\\ude42"',
    '{"a": 1, "a": 2}',
    "[1,]",
    "{",
    "12 ",
    " 12",
    "tru",
    "[" * 50 + "]" * 50,
]


def outcome(function, *args):
    try:
        value = function(*args)
    except Exception as error:  # noqa: BLE001 - class and message are the result
        return ("error", type(error), str(error))
    return ("value", json.dumps(value, sort_keys=True), type(value))


@pytest.mark.parametrize("text", JSON_TEXTS)
def test_json_loads_is_json_loads(text):
    assert outcome(core.json_loads, text) == outcome(json.loads, text)


P = core.Placeholder
TRANSFORMS = [
    {"type": "function", "function": {"name": P("name"), "arguments": P("content.arguments")}},
    {"a": [1, P("name"), {"b": None, "c": [P("content.x"), True]}], "e": {}, "f": []},
    P("content"),
    P("content.arguments.city"),
    "plain",
    7,
    None,
    [],
    {},
    [P("missing"), P("content.arguments.city")],
    {"first": P("content.arguments.nope"), "second": P("missing")},
    {"x": P("name.deeper")},
]
SCOPES = [
    {"name": "f", "content": {"arguments": {"city": "Paris"}, "x": 1}},
    {"name": "f", "content": []},
    {"content": {"arguments": {}}},
    {"name": {"deeper": 2}, "content": {"arguments": None}},
    {},
]


@pytest.mark.parametrize("transform", TRANSFORMS, ids=repr)
@pytest.mark.parametrize("scope", SCOPES, ids=repr)
def test_transform_source_builds_what_the_closures_build(transform, scope):
    compiled = core.transform_builder(transform)
    walked = core._transform_closures(transform)
    assert outcome(compiled, scope) == outcome(walked, scope)


def test_transform_builds_fresh_containers():
    build = core.transform_builder({"a": {"b": [P("name")]}})
    first, second = build({"name": 1}), build({"name": 1})
    assert first == second and first is not second and first["a"] is not second["a"]
