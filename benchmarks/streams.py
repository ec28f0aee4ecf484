"""Benchmark inputs: long realistic outputs per template, and a tokenizer
stand-in that cuts text as BPE tokenizers do (words and subwords with their
leading space, digits, punctuation runs, newlines; delimiters whole or split
over two or three tokens)."""

from __future__ import annotations

import json
import random
from dataclasses import dataclass

import regex

WORDS = (
    "the model should check the weather before answering because the user asked about tomorrow "
    "first compute the total then compare it with the budget and report the difference clearly "
    "résumé naïve café Zürich 東京 数据 données ünïcödé 🙂 x < y and a > b so if n <= 3 we stop "
    "def solve ( n ) : return n * ( n + 1 ) // 2 # closed form for the sum of 1..n"
).split()

PRE_TOKENIZE = regex.compile(r" ?\p{L}+| ?\p{N}{1,3}| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+")


def filler(rng: random.Random, tokens: int) -> str:
    """About `tokens` tokens of prose with newlines, code and non-ASCII text."""
    out: list[str] = []
    approx = 0
    while approx < tokens:
        sentence = " ".join(rng.choice(WORDS) for _ in range(rng.randint(6, 18)))
        out.append(sentence[0].upper() + sentence[1:] + rng.choice([". ", ".\n", ".\n\n", "? ", ": "]))
        approx += len(sentence) // 4 + 2
    return "".join(out).strip()


@dataclass
class Stream:
    template: str
    prefix: str
    text: str
    specials: tuple[str, ...]  # delimiters a real tokenizer has as (special) tokens


def tokenize(text: str, specials: tuple[str, ...], seed: int) -> list[str]:
    """Cut `text` as a tokenizer would; delimiters are whole or split in 2-3 pieces."""
    rng = random.Random(seed)
    pattern = regex.compile("|".join(regex.escape(s) for s in sorted(specials, key=len, reverse=True)))
    tokens: list[str] = []
    pos = 0
    for match in pattern.finditer(text):
        tokens.extend(_words(text[pos : match.start()], rng))
        special = match.group()
        if rng.random() < 0.6 or len(special) < 3:
            tokens.append(special)
        else:
            cuts = sorted(rng.sample(range(1, len(special)), min(len(special) - 1, rng.randint(1, 2))))
            bounds = [0] + cuts + [len(special)]
            tokens.extend(special[a:b] for a, b in zip(bounds, bounds[1:]))
        pos = match.end()
    tokens.extend(_words(text[pos:], rng))
    assert "".join(tokens) == text
    return tokens


def _words(text: str, rng: random.Random) -> list[str]:
    out = []
    for piece in PRE_TOKENIZE.findall(text):
        while len(piece) > 7:  # long words become subwords
            size = rng.randint(3, 6)
            out.append(piece[:size])
            piece = piece[size:]
        out.append(piece)
    return out


def _call_json(rng: random.Random) -> str:
    city = rng.choice(["Paris", "Zürich", "東京", "São Paulo"])
    return json.dumps({"name": "get_weather", "arguments": {"city": city, "days": rng.randint(1, 7)}}, ensure_ascii=False)


def build(template: str, tokens: int, seed: int = 0) -> Stream:
    """A long output for `template`: reasoning, content and a few tool calls."""
    rng = random.Random(f"{template}/{tokens}/{seed}")
    reasoning, content = filler(rng, int(tokens * 0.45)), filler(rng, int(tokens * 0.45))
    calls = [_call_json(rng) for _ in range(3)]
    if template in ("qwen3", "qwen3_5"):
        prefix = "<|im_start|>user\nPlan my week.<|im_end|>\n<|im_start|>assistant\n"
        if template == "qwen3":
            body = "".join(f"\n<tool_call>\n{call}\n</tool_call>" for call in calls)
        else:
            body = "".join(
                f"\n<tool_call>\n<function=get_weather>\n<parameter=city>\n{json.loads(call)['arguments']['city']}\n"
                f"</parameter>\n<parameter=days>\n3\n</parameter>\n</function>\n</tool_call>"
                for call in calls
            )
        text = f"<think>\n{reasoning}\n</think>\n\n{content}\n{body}<|im_end|>"
        specials = ("<think>", "</think>", "<tool_call>", "</tool_call>", "<|im_end|>")
    elif template == "gpt_oss":
        prefix = "<|start|>user<|message|>Plan my week.<|end|><|start|>assistant"
        body = "".join(
            f"<|start|>assistant<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>"
            f"{json.dumps(json.loads(call)['arguments'], ensure_ascii=False)}<|call|>"
            for call in calls
        )
        text = f"<|channel|>analysis<|message|>{reasoning}<|end|>{body}<|start|>assistant<|channel|>final<|message|>{content}<|return|>"
        specials = ("<|start|>", "<|channel|>", "<|message|>", "<|end|>", "<|call|>", "<|return|>", "<|constrain|>")
    elif template == "gemma4":
        prefix = "<|turn>user\nPlan my week.<turn|>\n<|turn>model\n"
        body = "".join(
            f'<|tool_call>call:get_weather{{city:<|"|>{json.loads(call)["arguments"]["city"]}<|"|>,days:3}}<tool_call|>'
            for call in calls
        )
        text = f"<|channel>thought\n{reasoning}<channel|>{content}{body}<|tool_response>"
        specials = ("<|channel>", "<channel|>", "<|tool_call>", "<tool_call|>", '<|"|>', "<|tool_response>")
    elif template == "deepseek_v31":
        prefix = "<｜begin▁of▁sentence｜><｜User｜>Plan my week.<｜Assistant｜><think>"
        body = "".join(
            f"<｜tool▁call▁begin｜>get_weather<｜tool▁sep｜>{json.dumps(json.loads(call)['arguments'], ensure_ascii=False)}"
            "<｜tool▁call▁end｜>"
            for call in calls
        )
        text = f"{reasoning}</think>{content}<｜tool▁calls▁begin｜>{body}<｜tool▁calls▁end｜><｜end▁of▁sentence｜>"
        specials = (
            "</think>",
            "<｜tool▁calls▁begin｜>",
            "<｜tool▁call▁begin｜>",
            "<｜tool▁sep｜>",
            "<｜tool▁call▁end｜>",
            "<｜tool▁calls▁end｜>",
            "<｜end▁of▁sentence｜>",
        )
    else:
        raise KeyError(f"no benchmark stream for {template!r}")
    return Stream(template, prefix, text, specials)


TEMPLATES = ("qwen3", "qwen3_5", "gpt_oss", "gemma4", "deepseek_v31")


def degenerate(template: str, kind: str, count: int = 8000) -> Stream:
    """`count` newlines or '<' fed one per token, in the template's main text region."""
    base = build(template, 200)
    piece = {"newlines": "\n", "angles": "<"}[kind]
    return Stream(template, base.prefix, piece * count, ())
