"""`python -m benchmarks.realistic`'s bookkeeping, not its figures: the
variants are fresh per round and deterministic, keep the samples' shape and
the template's literals, the floor parsers give the compiled messages, and
the misses are named from the rows (no timing is asserted)."""

from __future__ import annotations

import pytest

from benchmarks import realistic
from benchmarks.realistic_floors import FLOORS


@pytest.fixture(scope="module")
def qwen3():
    return realistic.Workload("qwen3", per_round=2)


def test_variants_are_fresh_per_round_and_deterministic(qwen3):
    first, second = qwen3.round(0), qwen3.round(1)
    assert len(first) == 2 * len(qwen3.samples)
    assert [item["text"] for item in first] == [item["text"] for item in qwen3.round(0)]
    texts = [item["text"] for item in first + second]
    originals = {sample["text"] for sample in qwen3.samples}
    changed = [text for text in texts if text not in originals]
    assert len(set(changed)) == len(changed) > len(texts) // 2
    for item in first:
        assert "".join(item["chunks"]) == item["text"]
        assert all(len(chunk) <= realistic.CHUNK for chunk in item["chunks"])


def test_variants_keep_the_shape_and_the_delimiters(qwen3):
    by_id = {sample["id"]: sample for sample in qwen3.samples}
    for item in qwen3.round(3):
        sample = by_id[item["id"]]
        assert realistic.shape(qwen3.reference_whole(item)) == sample["shape"]
        for literal in ("<think>", "</think>", "<tool_call>", "</tool_call>", "<|im_end|>", '"name"', '"arguments"'):
            assert item["text"].count(literal) == sample["text"].count(literal)
        assert item["prefix"].endswith("<|im_start|>assistant\n") == sample["prefix"].endswith(
            "<|im_start|>assistant\n"
        )


def test_mutate_keeps_escapes_zeros_and_kept_words():
    import random

    text = 'say \\n "keep" 10 \\u00e9 Word'
    out = realistic.mutate(text, random.Random(1), {"keep", "say"})
    assert out[:4] == "say " and "\\n" in out and '"keep"' in out and "\\u00e9" in out
    assert out[len('say \\n "keep" 1')] == "0" and len(out) == len(text) and out[-4].isupper()


@pytest.mark.parametrize("name", sorted(FLOORS))
def test_floors_give_the_compiled_message(name):
    work = realistic.Workload(name, per_round=1)
    module = realistic.load_module(name)
    assert realistic.check_exact(work, module, work.round(0), FLOORS[name]) == []


def test_misses_are_named_from_the_rows():
    row = {
        "template": "t",
        "problems": [],
        "whole_ratio": 12.0,
        "stream_ratio": 7.0,
        "setup_ratio": 1.5,
        "floor_ratio": 3.0,
        "c_whole_ns": 1000.0,
        "c_stream_ns": 2000.0,
    }
    ports = {"js": {"t": {"whole": 900.0, "stream": 2500.0}}, "go": {"t": {"whole": 100.0, "stream": 100.0}}}
    missed = realistic.misses([row], ports)
    assert [line.split(":")[1].split()[0] for line in missed[:-1]] == ["stream", "whole", "construction", "js"]
    assert "floor" in missed[1] and "js stream" in missed[3]
    assert missed[-1].startswith("whole geometric mean 12.0x")
    good = dict(row, stream_ratio=9.0, setup_ratio=0.5, floor_ratio=2.0, whole_ratio=20.0)
    assert realistic.misses([good], {"js": {}, "go": {}}) == []
