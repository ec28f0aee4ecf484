"""The prefix's tail, fed by the whole-text parse (runtime/whole.py
`_feed_tail`) as the reference feeds it: the same state, read position,
body, captures and message so far as the reference's parser after its
prefix, on every conformance template, for tails cut from its vectors'
texts at every position."""

from __future__ import annotations

import copy
import random

import pytest
from transformers.utils.chat_parsing import ResponseParser as Reference

from compiler.conformance.vectors import VECTORS_DIR, read_json_lines
from runtime.whole import _feed_tail
from vector_modules import module_for

FILES = sorted(VECTORS_DIR.glob("*.jsonl"))


def _reference_state(template, tail, tools):
    reference = Reference(template, prefix="", tools=tools)
    reference._buffer = tail
    reference._process([], eos=False)
    names = list(template["fields"])
    implicit = reference._implicit_name
    current = reference._current
    state = -1 if current is None or current == implicit else names.index(current)
    return state, reference._pos, reference._body, reference._captures, reference._opened, reference._output


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_tail_steps_are_the_references(path):
    rng = random.Random(path.stem)
    cases = [case for case in read_json_lines(path) if len(case["chunks"]) == 1]
    texts = sorted({case["chunks"][0] for case in cases})[:12]
    name = cases[0]["template"] if cases else None
    if name is None:
        pytest.skip("no one-chunk case")
    module = module_for(name)
    template = module.TEMPLATE
    parser_class = module.ResponseParser
    tools = next((case.get("tools") for case in cases if case.get("tools")), None)
    for text in texts:
        cuts = sorted({rng.randrange(len(text) + 1) for _ in range(6)} | {len(text)})
        for cut in cuts:
            tail = text[:cut]
            if not tail:
                continue
            for with_tools in (None, tools):
                try:
                    expected = _reference_state(template, tail, with_tools)
                except Exception as error:  # noqa: BLE001 - compared by class
                    expected = type(error)
                output = copy.deepcopy(template.get("defaults") or {})
                try:
                    state, pos, pieces, captures, opened = _feed_tail(parser_class, tail, output, _params(with_tools))
                    actual = (state, pos, "".join(pieces), captures, opened, output)
                except Exception as error:  # noqa: BLE001
                    actual = type(error)
                assert actual == expected, (name, tail)


def _params(tools):
    from runtime.core import tool_parameters

    return tool_parameters(tools) if tools else None
