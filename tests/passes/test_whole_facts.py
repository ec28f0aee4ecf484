"""The facts the whole-text parse (runtime/whole.py, `parse_whole_text` in
each generated module) reads off the IR: the order ties are broken in, and
whether the start anchor's last match is its rfind."""

from __future__ import annotations

import random

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
    # (several literals none of which starts inside another are found from the end too: Program.anchors_from_end)
    [
        ("<|im_start|>assistant\n", True),
        ("abab", False),
        ("aa", False),
        ("ab", True),
        (["x", "y"], True),
        (["xy", "y"], False),
    ],
)
def test_anchor_from_end_only_without_a_border(anchor, from_end):
    template = {"start_anchor": anchor, "fields": {"content": {"content": "text"}}}
    module = compile_template(template, name="anchor")

    class Prompt(str):
        """Notes whether the prompt's tail was found by rfind (from its end)."""

        rfinds = 0

        def rfind(self, *args):
            Prompt.rfinds += 1
            return str.rfind(self, *args)

    module.ResponseParser.prompt_tail(Prompt("abab-ab"))
    assert (Prompt.rfinds > 0) == from_end
    text = "x"
    for prefix in ("ababab", "aaa", "abab-ab", "xyx", "<|im_start|>assistant\nhi<|im_start|>assistant\nab"):
        assert module.parse_response(text, prefix=prefix) == reference_parse(text, template, prefix=prefix)
        parser = module.ResponseParser(prefix)
        parser.feed(text)
        assert parser.finalize()[0] == reference_parse(text, template, prefix=prefix)


@pytest.mark.parametrize(
    "anchor, from_end",
    [
        (["<|assistant|></think>", "<|assistant|>"], True),
        (["<x>", "<y>"], True),
        (["ab", "ba"], False),  # "b" starts "ba" inside "ab"
        (["abc", "b"], False),  # "b" inside "abc"
        (["aa", "b"], False),  # "aa" overlaps itself
    ],
)
def test_anchor_set_from_end_only_when_no_literal_starts_inside_one(anchor, from_end):
    template = {"start_anchor": anchor, "fields": {"content": {"content": "text"}}}
    program = to_program(sources.from_dict(template, "anchors"))
    assert program.anchors_from_end == from_end
    module = compile_template(template, name="anchors")
    rng = random.Random(str(anchor))
    pieces = list(anchor) + [a[: len(a) // 2] for a in anchor] + ["x", "\n", "<", ">", "a", "b"]
    for _ in range(300):
        prefix = "".join(rng.choice(pieces) for _ in range(rng.randrange(0, 8)))
        text = rng.choice(["", "hi", "b>"])
        assert module.parse_response(text, prefix=prefix) == reference_parse(text, template, prefix=prefix)


def test_bundled_anchor_sets_from_end_find_the_last_match():
    """Every bundled template whose anchor set is read from the end: the
    prompt's tail after the last match, as last_anchor_end finds it."""
    from pathlib import Path

    from runtime.core import last_anchor_end

    root = Path(__file__).resolve().parents[2]
    seen = 0
    for path in sorted((root / "templates_src").glob("*.json")):
        source = sources.read(str(path))
        program = to_program(source)
        if not program.anchors_from_end:
            continue
        seen += 1
        module = compile_template(source.template, name=path.stem)
        literals = list(program.start_anchor.literals)
        rng = random.Random(path.stem)
        pieces = literals + [lit[: rng.randrange(1, len(lit) + 1)] for lit in literals] + ["x", "\n", " "]
        for _ in range(200):
            prefix = "".join(rng.choice(pieces) for _ in range(rng.randrange(0, 8)))
            parser = module.ResponseParser(prefix)  # the streaming parser reads the anchor with last_anchor_end
            parser.feed("ok")
            assert module.parse_response("ok", prefix=prefix) == parser.finalize()[0], (path.stem, prefix)
            end = last_anchor_end(module.ResponseParser.START_ANCHOR, prefix)
            best, mine = -1, None
            for literal in module.ResponseParser.START_ANCHOR.literals:
                at = prefix.rfind(literal)
                if at > best:
                    best, mine = at, at + len(literal)
            assert mine == end, (path.stem, prefix)
    assert seen >= 10
