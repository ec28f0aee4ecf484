"""The Python driver's own bookkeeping, which the vectors can only see by
chance: the buffer's absolute offset and contents, and the `captures`
property between regions.

`StreamParser._base` (the absolute offset of `_buf`) keys the memo of
literal searches and of regex searches; a wrong offset or a wrong kept
context shows in events only when a stale memo entry happens to be read.
So the invariant is checked directly, after every call, on every vector
case: the text from `_base` on is exactly the buffer, then (on the common
path, see `_materialize`) the body pieces routed since `_hot_from`, then the
held pieces; and the table of remembered steps stays bounded. Part of mutmut's selection (pyproject.toml, docs/mutation.md).
"""

from __future__ import annotations

import json

import pytest

from compiler.vectors import VECTORS_DIR, read_json_lines
from conftest import load_generated
from runtime import core
from test_vectors import module_for


def _unconsumed(parser) -> str:
    """The text from `_base` on, as the parser holds it."""
    routed = "".join(parser._body[parser._hot_from :]) if parser._stale else ""
    return parser._buf + routed + "".join(parser._pieces)


def _kept(parser, text: str) -> str:
    """The text from `_base` on; after a cut with a dead anchored head, its
    first character is the head's sentinel (see ContextCut)."""
    kept = text[parser._base :]
    cut = parser.CUT
    if cut is not None and cut.anchored is not None and parser._base > 0:
        kept = cut.sentinel + kept[1:]
    return kept


def _check_case(module, case) -> None:
    cls = module.ResponseParser
    prefix = case["prefix"]
    try:
        parser = cls(prefix, tools=case["tools"])
    except Exception:  # noqa: BLE001 - the vectors pin the error itself
        return
    end = core.last_anchor_end(cls.START_ANCHOR, prefix) if prefix else None
    text = (prefix if end is None else prefix[end:]) if prefix else ""
    where = f"{case['id']} after the prefix"
    assert _kept(parser, text) == _unconsumed(parser), where
    for index, chunk in enumerate(case["chunks"]):
        try:
            parser.feed(chunk)
        except Exception:  # noqa: BLE001
            return
        text += chunk
        assert _kept(parser, text) == _unconsumed(parser), f"{case['id']} after chunk {index}"


def test_buffer_is_the_text_from_its_offset_on_every_vector():
    per_file = [read_json_lines(path) for path in sorted(VECTORS_DIR.glob("*.jsonl"))]
    modules = {}
    for cases in per_file:
        for case in cases:
            name = case["template"]
            if name not in modules:
                modules[name] = module_for(name)
            _check_case(modules[name], case)
    for name, module in modules.items():
        _check_step_table(name, module.ResponseParser)


def _check_step_table(name, cls) -> None:
    """The remembered general steps (`StreamParser._step`) are bounded: a
    key holds at most STEP_LIMIT unconsumed characters (longer rests take
    the step unremembered), and a template with an unbounded look-behind
    (CONTEXT -1, whose buffer keeps all of the text up to its last cut, see
    ContextCut) remembers only buffers of at most STEP_LIMIT characters in
    all, so remembering costs a bounded hash per step and bounded memory."""
    table = cls.__dict__.get("_STEP_TABLE") or {}
    for key in table:
        pos, buf = key[3], key[4]
        assert len(buf) - pos <= core.STEP_LIMIT, f"{name}: a remembered step of {len(buf) - pos} characters"
        if cls.CONTEXT < 0:
            assert len(buf) <= core.STEP_LIMIT, f"{name}: a remembered step on a buffer of {len(buf)} characters"
        else:
            assert pos <= cls.CONTEXT, f"{name}: a remembered step on an untrimmed buffer"


def test_captures_are_empty_outside_a_region_with_groups():
    module = load_generated("olmo3")
    parser = module.ResponseParser("<|im_start|>assistant\n")
    assert parser.captures == {}
    parser.feed("<function_calls>\nf(a=1")
    assert parser.captures == {"name": "f"}
    parser.feed(")\n</function_calls>")  # a regex close at the buffer's end is still pending
    parser.feed("done")
    assert parser.captures == {}
    assert json.dumps(parser.finalize()[0]["tool_calls"][0]["function"]["name"]) == '"f"'


@pytest.mark.parametrize("prefix", ["", "<|im_start|>assistant\n"])
def test_captures_start_empty(prefix):
    assert load_generated("olmo3").ResponseParser(prefix).captures == {}
