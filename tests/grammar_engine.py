"""llguidance as the engine that checks emitted grammars: a byte-level
vocabulary (one token per byte), a matcher per grammar, full-match tests and
random generation through the matcher's own token masks."""

from __future__ import annotations

import json
import random

import llguidance as llg
from llguidance import StructTag

EOS = 256


class _ByteTokenizer:
    eos_token_id = EOS
    bos_token_id = None
    tokens = [bytes([i]) for i in range(256)] + [b"<eos>"]
    special_token_ids = [EOS]

    def __call__(self, text):
        return list(text.encode("utf-8") if isinstance(text, str) else text)


TOKENIZER = llg.LLTokenizer(llg.TokenizerWrapper(_ByteTokenizer()))


def to_llguidance(text: str, fmt: str) -> str:
    """The emitted grammar as llguidance's grammar JSON."""
    if fmt == "lark":
        return llg.grammar_from("lark", text)
    if fmt in ("gbnf", "ebnf"):
        return llg.grammar_from("gbnf", text)
    if fmt == "structural-tag":
        tag = json.loads(text)
        tags = []
        for s in tag["structures"]:
            trigger = next(t for t in tag["triggers"] if s["begin"].startswith(t))
            tags.append(StructTag(trigger=trigger, begin=s["begin"], grammar=s["schema"], end=s["end"]))
        return StructTag.to_grammar(tags, assume_special=False)
    raise ValueError(fmt)


def matcher(grammar_json: str) -> llg.LLMatcher:
    found = llg.LLMatcher(TOKENIZER, grammar_json, log_level=0)
    if found.is_error():
        raise ValueError(found.get_error())
    return found


def accepts(grammar_json: str, text: str) -> bool:
    """The whole text is a complete match."""
    m = matcher(grammar_json)
    for byte in text.encode("utf-8"):
        if not m.consume_token(byte):
            return False
    return m.is_accepting()


def _allowed(mask: bytes) -> list[int]:
    return [i for i in range(257) if mask[i // 8] >> (i % 8) & 1]


def generate(grammar_json: str, rng: random.Random, max_bytes: int = 400, stop_bias: float = 0.15) -> str | None:
    """A random complete string of the grammar, byte by byte through the
    matcher's masks (None when it ran past max_bytes)."""
    m = matcher(grammar_json)
    out = bytearray()
    while len(out) < max_bytes:
        if m.is_stopped():
            break
        allowed = _allowed(m.compute_bitmask())
        if not allowed:
            return None
        if EOS in allowed and (len(allowed) == 1 or rng.random() < stop_bias):
            break
        choices = [t for t in allowed if t != EOS]
        # Prefer printable ASCII so text stays readable; sometimes take anything.
        nice = [t for t in choices if 0x20 <= t < 0x7F or t == 0x0A]
        byte = rng.choice(nice if nice and rng.random() < 0.9 else choices)
        if not m.consume_token(byte):
            return None
        out.append(byte)
    else:
        return None
    try:
        return out.decode("utf-8")
    except UnicodeDecodeError:
        return None
