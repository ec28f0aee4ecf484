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


SAFE = "abc xyz.\n,;0123_"


def walk(grammar, rng: random.Random, node=None, depth: int = 0, budget=None) -> str:
    """A random string of a model grammar (compiler.grammar.model), read off
    its nodes: free text from a small alphabet, then one of its exits."""
    from compiler.grammar import model as m

    if budget is None:
        budget = [600]
    node = grammar.rules["start"] if node is None else node
    budget[0] -= 1
    deep = depth > 40 or budget[0] < 0
    if isinstance(node, m.Lit):
        return node.text
    if isinstance(node, m.Chars):
        options = [c for c in SAFE + "\t\"{}[]<>:/" if c in node.chars]
        if options:
            return rng.choice(options)
        lo, hi = node.chars.ranges[0]
        return chr(lo)
    if isinstance(node, m.Seq):
        return "".join(walk(grammar, rng, item, depth + 1, budget) for item in node.items)
    if isinstance(node, m.Alt):
        items = node.items
        if deep:  # prefer the shortest-looking option to finish
            items = sorted(items, key=lambda n: isinstance(n, (m.Ref, m.Seq)))[:1]
        return walk(grammar, rng, rng.choice(items), depth + 1, budget)
    if isinstance(node, m.Rep):
        high = node.max if node.max is not None else node.min + 3
        count = node.min if deep else rng.randint(node.min, min(high, node.min + 3))
        return "".join(walk(grammar, rng, node.body, depth + 1, budget) for _ in range(count))
    if isinstance(node, m.Ref):
        return walk(grammar, rng, grammar.rules[node.name], depth + 1, budget)
    if isinstance(node, m.Until):
        alphabet = [c for c in SAFE if node.chars is None or c in node.chars]
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 12))) if alphabet else ""
        if node.may_end and (not node.exits or rng.random() < 0.2):
            return text
        trigger, exit = rng.choice(node.exits)
        return text + trigger + walk(grammar, rng, exit, depth + 1, budget)
    raise TypeError(node)
