"""The bundled library covers at least 48 model families, and every family
added for the newer servers' formats has at least 15 hand-checked samples
that cover its shapes (answers, calls, text around calls, cut-off output)."""

from __future__ import annotations

import pytest

from compiler.frontend.source import bundled
from samples import load_samples

NEWER_FAMILIES = [
    "qwen3_coder",
    "nemotron3_nano",
    "hermes2_pro",
    "granite4",
    "glm47",
    "kimi_k25",
    "deepseek_v32",
    "minimax_m1",
    "magistral",
    "command_a_reasoning",
    "llama4_pythonic",
    "olmo3",
    "lfm2",
    "functiongemma",
    "apertus",
    # issue 34
    "gigachat3",
    "deepseek_v4",
    "nemotron_nano_v2",
    "llama_nemotron",
    "step3p5",
    "granite_thinking",
    "mimo",
    "ling3",
    "inkling",
    "kimi_k3",
    "minimax_m3",
    "apriel",
    "plamo3",
    "mirothinker",
]

# Formats that write one call per turn (GigaChat's chat template renders only the first call).
ONE_CALL_PER_TURN = {"gigachat3"}


def test_at_least_forty_eight_families():
    names = {path.stem for path in bundled()}
    assert len(names) >= 48
    assert set(NEWER_FAMILIES) <= names


@pytest.mark.parametrize("name", NEWER_FAMILIES)
def test_newer_family_has_fifteen_samples_with_cut_offs_and_calls(name):
    samples = load_samples(name)
    assert len(samples) >= 15
    ids = [sample["id"] for sample in samples]
    assert sum(1 for i in ids if i.startswith("cut_off")) >= 3, "cut-off output inside the delimiters"
    with_calls = [s for s in samples if len(s.get("expected", {}).get("tool_calls", [])) >= 2]
    assert with_calls or name in ONE_CALL_PER_TURN, "parallel calls"
    with_text_and_calls = [
        s for s in samples if s.get("expected", {}).get("content") and s["expected"].get("tool_calls")
    ]
    assert with_text_and_calls, "text around calls"
