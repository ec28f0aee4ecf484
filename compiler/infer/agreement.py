"""Agreement of an inferred template with the hand-written one of its family, on the family's samples
(templates_src/samples/): both parse each sample to the same message, or both raise the same error class."""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from ..frontend import source as sources
from ..pipeline import compile_template
from ..resources import TEMPLATES_DIR
from .validate import normalise

# The bundled family each corpus chat template belongs to (templates_src/README.md says which models each covers).
FAMILIES = {
    "Apertus-8B-Instruct": "apertus",
    "ByteDance-Seed-OSS": "seed_oss",
    "CohereForAI-c4ai-command-r7b-12-2024-tool_use": "cohere_command",
    "GLM-4.6": "glm45",
    "GLM-4.7-Flash": "glm47",
    "HuggingFaceTB-SmolLM3-3B": "smollm3",
    "Kimi-K2-Instruct": "kimi_k2",
    "Kimi-K2-Thinking": "kimi_k2",
    "moonshotai-Kimi-K2": "kimi_k2",
    "LFM2-8B-A1B": "lfm2",
    "LFM2.5-8B-A1B": "lfm2",
    "MiniMax-M2": "minimax_m2",
    "Mistral-Small-3.2-24B-Instruct-2506": "mistral",
    "mistralai-Ministral-3-14B-Reasoning-2512": "mistral",
    "mistralai-Mistral-Nemo-Instruct-2407": "mistral_v3",
    "unsloth-mistral-Devstral-Small-2507": "magistral",
    "NVIDIA-Nemotron-3-Nano-30B-A3B-BF16": "nemotron3_nano",
    "NousResearch-Hermes-3-Llama-3.1-8B-tool_use": "hermes2_pro",
    "Qwen-QwQ-32B": "qwen3",
    "Qwen-Qwen2.5-7B-Instruct": "qwen3",
    "Qwen-Qwen3-0.6B": "qwen3",
    "Qwen3-Coder": "qwen3_coder",
    "Qwen3.5-4B": "qwen3_5",
    "deepseek-ai-DeepSeek-R1-Distill-Qwen-32B": "deepseek_r1",
    "llama-cpp-deepseek-r1": "deepseek_r1",
    "deepseek-ai-DeepSeek-V3.1": "deepseek_v31",
    "deepseek-ai-DeepSeek-V3.2": "deepseek_v32",
    "glm_4_5": "glm45",
    "google-gemma-4-31B-it": "gemma4",
    "google-gemma-4-31B-it-interleaved": "gemma4",
    "ibm-granite-granite-3.3-2B-Instruct": "granite",
    "ibm-granite-granite-4.0": "granite4",
    "ibm-granite-granite-4.1": "granite4",
    "llama-cpp-microsoft-Phi-4-mini-instruct": "phi4_mini",
    "meta-llama-Llama-3.1-8B-Instruct": "llama3_json",
    "meta-llama-Llama-3.2-3B-Instruct": "llama3_json",
    "openai-gpt-oss-120b": "gpt_oss",
    "vllm-tool_chat_template_hunyuan_a13b": "hunyuan",
    "vllm-tool_chat_template_llama4_pythonic": "llama4_pythonic",
    "vllm-tool_chat_template_minimax_m1": "minimax_m1",
    "vllm-tool_chat_template_olmo3": "olmo3",
}


@dataclass
class Agreement:
    family: str
    agree: int = 0
    total: int = 0
    disagreements: list[str] = field(default_factory=list)

    @property
    def ratio(self) -> float:
        return self.agree / self.total if self.total else 0.0


def _outcome(module, sample):
    try:
        return normalise(module.parse_response(sample["output"], prefix=sample["prefix"], tools=sample.get("tools")))
    except (ValueError, KeyError, TypeError) as error:
        return type(error).__name__


def agreement(inferred: dict | None, family: str) -> Agreement:
    result = Agreement(family)
    data = json.loads((TEMPLATES_DIR / "samples" / f"{family}.json").read_text(encoding="utf-8"))
    hand = compile_template(sources.read(family).template, name=family)
    module = compile_template(inferred, name="inferred") if inferred is not None else None
    for sample in data["samples"]:
        result.total += 1
        want = _outcome(hand, sample)
        got = _outcome(module, sample) if module is not None else "no template"
        if got == want:
            result.agree += 1
        else:
            result.disagreements.append(sample["id"])
    return result
