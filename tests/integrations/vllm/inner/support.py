"""Helpers for the tests that run inside the vLLM environment (.venv-vllm).

A tokenizer is made locally with the `tokenizers` package (byte-level BPE
trained on the template's samples; the template's special tokens are added
tokens, so each stays one token), wrapped as transformers' fast tokenizer,
which is what vLLM serves with. Streams are fed through vLLM's own
`ChatStreamProcessor`, one engine step per token, with the delta text the
detokenizer would produce (the decoded text grows; a step that ends inside a
UTF-8 sequence waits for the rest).
"""

from __future__ import annotations

import functools
import json
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[4]
TEMPLATES = ROOT / "templates_src"
BUNDLED = sorted(p.stem for p in TEMPLATES.glob("*.json"))
SPECIAL = re.compile(
    r"<\|[^|<>\s]{1,40}\|>|<｜[^｜]{1,40}｜>|</?[A-Za-z_][\w:.-]{0,30}>|\[/?[A-Z_]{2,30}\]|<[a-z_]+\|>|<\|[a-z_]+>"
)


def template(name: str) -> dict:
    return json.loads((TEMPLATES / f"{name}.json").read_text(encoding="utf-8"))


def samples(name: str) -> list[dict]:
    return json.loads((TEMPLATES / "samples" / f"{name}.json").read_text(encoding="utf-8"))["samples"]


def special_tokens(template_dict: dict, texts: list[str]) -> list[str]:
    """Marker-like strings that both the template and the sample texts contain."""
    source = json.dumps(template_dict, ensure_ascii=False).replace("\\\\", "\\").replace("\\|", "|")
    source = source.replace("\\[", "[").replace("\\]", "]")
    found = {m.group(0) for text in texts for m in SPECIAL.finditer(text)}
    return sorted(token for token in found if token in source)


@functools.lru_cache(maxsize=None)
def _tokenizer(key: str, texts: tuple, specials: tuple):
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=600, special_tokens=list(specials), initial_alphabet=pre_tokenizers.ByteLevel.alphabet()
    )
    tok.train_from_iterator(list(texts), trainer)
    return PreTrainedTokenizerFast(tokenizer_object=tok, additional_special_tokens=list(specials))


def tokenizer_for(name: str, template_dict: dict | None = None, *, attach: bool = True):
    """A tokenizer for the samples of bundled template `name`; `template_dict` (default: that
    template) is set as its `response_template` unless attach is False."""
    template_dict = template(name) if template_dict is None else template_dict
    texts = [s.get("prefix", "") + s["output"] for s in samples(name)]
    tok = _tokenizer(
        name + json.dumps(template_dict, sort_keys=True), tuple(texts), tuple(special_tokens(template_dict, texts))
    )
    import copy

    tok = copy.copy(tok)
    if attach:
        tok.response_template = template_dict
    return tok


def steps(tokenizer, text: str) -> list[tuple[str, list[int]]]:
    """(delta_text, delta_token_ids) per engine step, one token each, as the detokenizer emits them."""
    ids = tokenizer.encode(text, add_special_tokens=False)
    out, sent, pending = [], "", []
    for index in range(len(ids)):
        pending.append(ids[index])
        decoded = tokenizer.decode(ids[: index + 1], skip_special_tokens=False, clean_up_tokenization_spaces=False)
        if decoded.endswith("\ufffd") and index + 1 < len(ids):
            continue
        out.append((decoded[len(sent) :], pending))
        sent, pending = decoded, []
    assert sent == text, (sent, text)
    return out


def request(tools=None, **options):
    from vllm.entrypoints.openai.chat_completion.protocol import ChatCompletionRequest

    body = {"model": "m", "messages": [{"role": "user", "content": "hi"}], **options}
    if tools:
        body["tools"] = tools
    return ChatCompletionRequest(**body)


def parser_class(tool: str | None, reasoning: str | None, tokenizer, *, plugin: str | None = None):
    """The parser class vLLM's manager composes for these names (after importing the plugin)."""
    from vllm.parser.parser_manager import ParserManager
    from vllm.tool_parsers import ToolParserManager

    if plugin:
        ToolParserManager.import_tool_parser(plugin)
    return ParserManager.get_parser(
        tool_parser_name=tool,
        reasoning_parser_name=reasoning,
        enable_auto_tools=True,
        model_name="m",
        tokenizer=tokenizer,
    )


def stream(parser_cls, tokenizer, req, prefix: str, output: str, *, chunk: int | None = None):
    """Feed `output` through vLLM's ChatStreamProcessor; returns the non-empty DeltaMessages.
    `chunk`: characters per step instead of one token (delta token ids are then the tokens of the piece)."""
    from vllm.entrypoints.openai.chat_completion.stream_processor import ChatStreamProcessor

    parser = parser_cls(tokenizer, req.tools)
    req = parser.adjust_request(req)
    processor = ChatStreamProcessor(req, parser, enable_auto_tools=True, parser_cls=parser_cls)
    prompt_ids = tokenizer.encode(prefix, add_special_tokens=False)
    if chunk is None:
        pieces = steps(tokenizer, output)
    else:
        pieces = [(output[i : i + chunk], [0]) for i in range(0, len(output), chunk)] or [("", [])]
    deltas = []
    for index, (text, ids) in enumerate(pieces):
        finished = "stop" if index == len(pieces) - 1 else None
        step = processor.step(text, ids, finished, prompt_ids)
        if step.delta is not None:
            deltas.append(step.delta)
    return deltas


def whole(parser_cls, tokenizer, req, prefix: str, output: str):
    """(reasoning, content, tool_calls) as vLLM's non-streaming path gets them."""
    parser = parser_cls(tokenizer, req.tools)
    req = parser.adjust_request(req)
    parser.set_prompt_token_ids(tokenizer.encode(prefix, add_special_tokens=False))
    return parser.parse(output, req, enable_auto_tools=True)


def merged(deltas) -> dict:
    """The message the deltas add up to: reasoning, content, and calls as (name, arguments text)."""
    reasoning, content, calls = "", "", {}
    for delta in deltas:
        reasoning += delta.reasoning or ""
        content += delta.content or ""
        for call in delta.tool_calls or ():
            entry = calls.setdefault(call.index, {"id": None, "name": "", "arguments": ""})
            if call.id:
                assert entry["id"] is None, "a call id sent twice"
                entry["id"] = call.id
            if call.function is not None:
                if call.function.name:
                    assert not entry["name"], "a call name sent twice"
                    entry["name"] = call.function.name
                entry["arguments"] += call.function.arguments or ""
    return {"reasoning": reasoning, "content": content, "tool_calls": [calls[i] for i in sorted(calls)]}


def message_of(result) -> dict:
    reasoning, content, calls = result
    return {
        "reasoning": reasoning or "",
        "content": content or "",
        "tool_calls": [{"id": c.id, "name": c.name, "arguments": c.arguments} for c in calls or ()],
    }


def expected_message(module, prefix: str, output: str, tools=None) -> dict:
    """What the compiled parser alone gives, in the same shape."""
    from runtime.openai import to_openai_message

    out = to_openai_message(module.parse_response(output, prefix=prefix, tools=tools))
    return {
        "reasoning": out.get("reasoning_content") or "",
        "content": out.get("content") or "",
        "tool_calls": [dict(c["function"]) for c in out.get("tool_calls", ())],
    }


def comparable(message: dict) -> dict:
    """Calls without ids, arguments as values."""
    return {
        **message,
        "tool_calls": [(c["name"], json.loads(c["arguments"])) for c in message["tool_calls"]],
    }


def tools_for(sample: dict) -> list | None:
    """The sample's tools, or (so that vLLM returns the calls at all) one schema-free tool per
    name the expected message calls."""
    if sample.get("tools"):
        return sample["tools"]
    names = []
    for call in (sample.get("expected") or {}).get("tool_calls") or ():
        name = (call.get("function") or {}).get("name") if isinstance(call, dict) else None
        if isinstance(name, str) and name not in names:
            names.append(name)
    return [{"type": "function", "function": {"name": n, "parameters": {"type": "object"}}} for n in names] or None


def cases(name: str):
    """(sample, tools for the request, tools for the parser) of every sample with an expected message."""
    for sample in samples(name):
        if "expected" in sample:
            yield sample, tools_for(sample), sample.get("tools")
