"""The facts the whole-text parse (runtime/whole.py, `parse_whole_text` in
each generated module) reads off the IR: the order ties are broken in, and
whether the start anchor's last match is its rfind."""

from __future__ import annotations

import pytest
from transformers.utils.chat_parsing import parse_response as reference_parse

from compiler import compile_template
from compiler.frontend import source as sources
from compiler.ir import OPEN
from compiler.pipeline import to_program


def test_tie_order_is_opens_then_closes_by_field_name():
    template = {
        "start_anchor": "A:",
        "fields": {
            "zeta": {"open": "<x", "content": "text"},
            "alpha": {"open": "<x", "content": "text"},
            "content": {"close": "<x", "content": "text"},
        },
    }
    program = to_program(sources.from_dict(template, "ties"))
    implicit = program.states[0]
    names = [program.fields[implicit.watch[i].field].name for i in implicit.tie_order]
    kinds = [implicit.watch[i].kind for i in implicit.tie_order]
    assert names == ["alpha", "zeta", "content"] and kinds[:2] == [OPEN, OPEN]
    module = compile_template(template, name="ties")
    # the same start and length everywhere: the reference takes the open of
    # the field first by name, never the implicit close listed after it
    for prefix in ("", "A:", "A:<x"):
        for text in ("<x1", "a<x<x", "<xb<x"):
            assert module.parse_response(text, prefix=prefix) == reference_parse(text, template, prefix=prefix)


@pytest.mark.parametrize(
    "anchor, from_end",
    [("<|im_start|>assistant\n", True), ("abab", False), ("aa", False), ("ab", True), (["x", "y"], False)],
)
def test_anchor_from_end_only_without_a_border(anchor, from_end):
    template = {"start_anchor": anchor, "fields": {"content": {"content": "text"}}}
    module = compile_template(template, name="anchor")
    assert (getattr(module.ResponseParser, "ANCHOR_FROM_END", None) is not None) == from_end
    text = "x"
    for prefix in ("ababab", "aaa", "abab-ab", "xyx", "<|im_start|>assistant\nhi<|im_start|>assistant\nab"):
        assert module.parse_response(text, prefix=prefix) == reference_parse(text, template, prefix=prefix)
        parser = module.ResponseParser(prefix)
        parser.feed(text)
        assert parser.finalize()[0] == reference_parse(text, template, prefix=prefix)
