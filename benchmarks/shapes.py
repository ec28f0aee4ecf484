"""Benchmark streams per shape, for any template, built from the template and
its samples (templates_src/samples/<name>.json), never by hand per template.

A region shape takes a sample whose expected message holds the field's text,
finds that text in the sample's output and puts a long run of tokens of one
shape in its place (prose, tokens ending in whitespace, code, lone `<`,
delimiter prefixes that never complete), so the delimiters around it are the
template's own. The call shapes take a sample with a tool call, find its
open and close with the template's own delimiters and repeat the call (many
small calls) or put a long string in place of one of its arguments.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from pathlib import Path

import regex

from .streams import filler, tokenize

ROOT = Path(__file__).resolve().parent.parent

# Words with no delimiter character of any bundled template in them.
WORDS = (
    "the model should check the weather before answering because the user asked about tomorrow "
    "first compute the total then compare it with the budget and report the difference clearly "
    "résumé naïve café Zürich 東京 数据 données ünïcödé 🙂"
).split()

CODE = [
    "def", " solve", "(", "n", "):", "\n   ", " if", " n", " <", " 2", ":\n       ", " return", " n", "\n   ",
    " total", " =", " solve", "(", "n", " -", " 1", ")", " +", " solve", "(", "n", " -", " 2", ")", "\n   ",
    " html", " =", ' "', "<", "b", ">", "bold", "</", "b", '>"', "\n   ", " return", " total", "\n\n",
]


@dataclass(frozen=True)
class Shape:
    name: str
    target: float  # ratio to the reference, at least
    what: str


SHAPES = (
    Shape("prose", 10.0, "content, words with a leading space (` word`)"),
    Shape("reasoning", 10.0, "reasoning, words with a leading space"),
    Shape("content_space", 8.0, "content, tokens ending in a space (`word `)"),
    Shape("content_newline", 8.0, "content, tokens ending in a newline (`word\\n`, `.\\n`, indentation)"),
    Shape("reasoning_space", 8.0, "reasoning, tokens ending in a space"),
    Shape("reasoning_newline", 8.0, "reasoning, tokens ending in a newline"),
    Shape("code", 10.0, "content, code: newline and indentation tokens, `(`, `:`, a few `<` and `</`"),
    Shape("lone_lt", 5.0, "content, a lone `<` token between words"),
    Shape("prefixes", 5.0, "content, prefixes of the state's delimiters that never complete"),
    Shape("calls", 5.0, "many small tool calls (open, body, close as single tokens)"),
    Shape("long_argument", 10.0, "one tool call whose string argument is 20k tokens"),
)
SHAPE_BY_NAME = {shape.name: shape for shape in SHAPES}


@dataclass
class Stream:
    template: str
    shape: str
    prefix: str
    tokens: list[str]
    note: str = ""

    @property
    def text(self) -> str:
        return "".join(self.tokens)


class NotApplicable(Exception):
    """The template (or its samples) has nothing this shape needs."""


def load_template(name: str) -> dict:
    return json.loads((ROOT / "templates_src" / f"{name}.json").read_text(encoding="utf-8"))


def load_samples(name: str) -> list[dict]:
    path = ROOT / "templates_src" / "samples" / f"{name}.json"
    if not path.exists():
        return []
    return [s for s in json.loads(path.read_text(encoding="utf-8"))["samples"] if "expected" in s]


def template_names() -> list[str]:
    return sorted(path.stem for path in (ROOT / "templates_src").glob("*.json"))


def delimiter_regex(spec: dict, kind: str):
    """The field's open or close as a compiled regex (literals escaped, longest first)."""
    if f"{kind}_pattern" in spec:
        return regex.compile(spec[f"{kind}_pattern"], regex.DOTALL)
    if kind in spec:
        literals = spec[kind] if isinstance(spec[kind], list) else [spec[kind]]
        return regex.compile("|".join(regex.escape(lit) for lit in sorted(literals, key=len, reverse=True)))
    return None


def specials(name: str) -> tuple[str, ...]:
    """Delimiter texts as the samples spell them: a tokenizer's special tokens."""
    template = load_template(name)
    found: set[str] = set()
    for sample in load_samples(name):
        for spec in template["fields"].values():
            for kind in ("open", "close"):
                rx = delimiter_regex(spec, kind)
                if rx is None:
                    continue
                for match in rx.finditer(sample["output"]):
                    text = match.group().strip()
                    if text:
                        found.add(text)
    return tuple(sorted(found, key=len, reverse=True))


def _words(rng: random.Random, count: int, form: str) -> list[str]:
    return [form.format(rng.choice(WORDS)) for _ in range(count)]


def _region_skeleton(name: str, field: str):
    """(sample, text before, text after) of a sample whose output holds the field's value once."""
    best = None
    for sample in load_samples(name):
        value = sample["expected"].get(field)
        if not isinstance(value, str) or not value or sample["output"].count(value) != 1:
            continue
        if field == "content" and sample["expected"].get("tool_calls"):
            continue
        at = sample["output"].index(value)
        candidate = (sample, sample["output"][:at], sample["output"][at + len(value) :])
        if best is None or len(sample["output"]) < len(best[0]["output"]):
            best = candidate
    if best is None:
        raise NotApplicable(f"no sample has {field} text")
    return best


def _region_tokens(name: str, shape: str, count: int, rng: random.Random, module) -> list[str]:
    if shape in ("prose", "reasoning"):
        return _words(rng, count, " {}")
    if shape.endswith("_space"):
        return _words(rng, count, "{} ")
    if shape.endswith("_newline"):
        out = []
        while len(out) < count:
            out.extend(_words(rng, rng.randint(3, 8), " {}"))
            out.append(rng.choice([".\n", ":\n", ")\n", "\n    ", "\n\n"]))
            out.extend(_words(rng, 2, "{}\n"))
        return out[:count]
    if shape == "code":
        out = []
        while len(out) < count:
            out.extend(CODE)
        return out[:count]
    if shape == "lone_lt":
        out = []
        while len(out) < count:
            out.extend([rng.choice([" x", " a"]), "<", rng.choice([" y", " b"])])
        return out[:count]
    if shape == "prefixes":
        pieces = delimiter_prefixes(module)
        if not pieces:
            raise NotApplicable("no delimiter prefixes")
        out = []
        while len(out) < count:
            out.extend([rng.choice(pieces), rng.choice([" a", " b", " word"])])
        return out[:count]
    raise KeyError(shape)


def delimiter_prefixes(module) -> list[str]:
    """Proper prefixes (2 or more characters, and the first) of the strings
    the implicit state watches for: `<`, `<tool`, `</`, `<|im` for qwen3."""
    strings: set[str] = set()
    for _kind, _index, delim in module.ResponseParser.WATCH.get(-1, ()):
        owned = delim.literals if delim.literals is not None else (delim.triggers or ())
        strings.update(owned)
    out = set()
    for string in strings:
        for size in (1, 2, len(string) // 2, len(string) - 1):
            if 0 < size < len(string) and not string[:size].isspace():
                out.add(string[:size])
    return sorted(out)


def region_stream(name: str, shape: str, count: int, module, seed: int = 0) -> Stream:
    field = "reasoning_content" if shape.startswith("reasoning") else "content"
    if field not in load_template(name)["fields"]:
        raise NotApplicable(f"no {field} field")
    sample, before, after = _region_skeleton(name, field)
    rng = random.Random(f"{name}/{shape}/{seed}")
    marks = specials(name)
    tokens = tokenize(before, marks, seed) + _region_tokens(name, shape, count, rng, module) + tokenize(after, marks, seed)
    return Stream(name, shape, sample["prefix"], tokens, note=f"sample {sample['id']}")


def _call_parts(name: str, every: bool = False):
    """(sample, before, open, body, close, after) of the first tool call of a
    sample (with `every`: a list of these for every call of every sample)."""
    template = load_template(name)
    spec = template["fields"].get("tool_calls")
    if spec is None:
        raise NotApplicable("no tool_calls field")
    open_rx, close_rx = delimiter_regex(spec, "open"), delimiter_regex(spec, "close")
    if open_rx is None or close_rx is None:
        raise NotApplicable("tool_calls has no open or no close")
    found = []
    for sample in load_samples(name):
        if not sample["expected"].get("tool_calls"):
            continue
        output = sample["output"]
        at = 0
        while True:
            opened = open_rx.search(output, at)
            if opened is None:
                break
            closed = close_rx.search(output, opened.end())
            if closed is None:
                break
            found.append(
                (
                    sample,
                    output[: opened.start()],
                    opened.group(),
                    output[opened.end() : closed.start()],
                    closed.group(),
                    output[closed.end() :],
                )
            )
            if not every:
                return found[0]
            at = max(closed.end(), opened.end() + 1)
    if not found:
        raise NotApplicable("no sample with a tool call found by its delimiters")
    return found


def _calls_closed(template: dict, prefix: str, text: str) -> int:
    """How many tool-call regions the reference closes on `text` (raises when it fails)."""
    from transformers.utils.chat_parsing import ResponseParser

    parser = ResponseParser(template, prefix=prefix)
    events = parser.feed(text)
    _, final = parser.finalize()
    return sum(1 for e in events + final if e["type"] == "region_close" and e["field"] == "tool_calls")


def _whitespace_split(text: str) -> list[str]:
    """Leading whitespace as its own token, as a tokenizer would."""
    stripped = text.lstrip()
    return [piece for piece in (text[: len(text) - len(stripped)], stripped) if piece]


def calls_stream(name: str, count: int, seed: int = 0) -> Stream:
    """`count` tokens of small tool calls: the sample's call repeated, each as
    its open, body and close tokens (open+body+close repeated, or, when the
    close only fits the last call, open+body repeated and one close)."""
    template = load_template(name)
    marks = specials(name)
    for sample, before, opened, body, closed, after in _call_parts(name, every=True):
        unit = _whitespace_split(opened) + ([body] if body else []) + _whitespace_split(closed)
        variants = [(unit, []), (_whitespace_split(opened) + ([body] if body else []), _whitespace_split(closed))]
        for repeated, tail in variants:
            try:
                probe = before + "".join(repeated) * 3 + "".join(tail) + after
                if _calls_closed(template, sample["prefix"], probe) < 3:
                    continue
            except Exception:  # noqa: BLE001 - this variant does not fit the template
                continue
            calls = max(1, count // len(repeated))
            tokens = tokenize(before, marks, seed) + repeated * calls + tail + tokenize(after, marks, seed)
            return Stream(name, "calls", sample["prefix"], tokens, note=f"sample {sample['id']}, {calls} calls")
    raise NotApplicable("repeating a sample's call does not give one region per call")


def _string_arguments(value):
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _string_arguments(item)
    elif isinstance(value, list):
        for item in value:
            yield from _string_arguments(item)


def long_argument_stream(name: str, count: int, seed: int = 0) -> Stream:
    """One call whose first string argument (found in its body) becomes `count` word tokens."""
    sample, before, opened, body, closed, after = _call_parts(name)
    marks = specials(name)
    call = sample["expected"]["tool_calls"][0]
    arguments = call.get("function", call).get("arguments", call) if isinstance(call, dict) else call
    for value in _string_arguments(arguments):
        if len(value) >= 2 and body.count(value) == 1:
            at = body.index(value)
            rng = random.Random(f"{name}/long/{seed}")
            tokens = (
                tokenize(before, marks, seed)
                + _whitespace_split(opened)
                + [body[:at]]
                + _words(rng, count, " {}")
                + [body[at + len(value) :]]
                + _whitespace_split(closed)
                + tokenize(after, marks, seed)
            )
            return Stream(name, "long_argument", sample["prefix"], [t for t in tokens if t], note=f"sample {sample['id']}")
    raise NotApplicable("no string argument found in the call's body")


def shape_stream(name: str, shape: str, count: int, module, seed: int = 0) -> Stream:
    if shape == "calls":
        return calls_stream(name, count, seed)
    if shape == "long_argument":
        return long_argument_stream(name, count, seed)
    return region_stream(name, shape, count, module, seed)


def mixed_stream(name: str, count: int, seed: int = 0) -> Stream:
    """A realistic output of about `count` tokens: the richest sample with its
    reasoning and content replaced by prose, code and non-ASCII text, cut as
    a tokenizer cuts it (delimiters whole or split)."""
    template = load_template(name)
    best = None
    for sample in load_samples(name):
        expected = sample["expected"]
        texts = [
            expected[field]
            for field in ("reasoning_content", "content")
            if field in template["fields"]
            and isinstance(expected.get(field), str)
            and expected[field]
            and sample["output"].count(expected[field]) == 1
        ]
        score = (len(texts), bool(expected.get("tool_calls")))
        if texts and (best is None or score > best[0]):
            best = (score, sample, texts)
    if best is None:
        raise NotApplicable("no sample with reasoning or content text")
    _, sample, texts = best
    rng = random.Random(f"{name}/mixed/{count}/{seed}")
    text = sample["output"]
    spans = sorted((text.index(value), len(value)) for value in texts)
    for at, size in reversed(spans):  # from the end, so the earlier positions hold
        text = text[:at] + filler(rng, count // len(texts)) + text[at + size :]
    return Stream(name, "mixed", sample["prefix"], tokenize(text, specials(name), seed), note=f"sample {sample['id']}")
