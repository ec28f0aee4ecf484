"""End to end through vLLM's OpenAI serving layer on a scripted generator: the
`RequestOutput`s a model would produce (one token each) go through
`OpenAIServingChat.chat_completion_stream_generator` (the SSE frames a client
receives) and `chat_completion_full_generator`; frames and responses are read
back with the `openai` client's types and must give the compiled parser's message.

The serving object is made without an engine (`object.__new__` and the settings
these two methods read): the engine, the HTTP server and the renderer are not run;
the request is adjusted as the renderer does (prompt ids, then `adjust_request`)."""

from __future__ import annotations

import asyncio
import json

import pytest
import support as S

SETTINGS = dict(
    enable_auto_tools=True,
    enable_force_include_usage=False,
    response_role="assistant",
    request_logger=None,
    enable_log_outputs=False,
    enable_log_deltas=False,
    _include_reasoning_tokens_details=True,
    enable_prompt_tokens_details=False,
    enable_per_request_metrics=False,
    system_fingerprint=None,
    model_config=None,
    default_chat_template_kwargs={},
)


@pytest.fixture(scope="module", autouse=True)
def _plugin():
    from vllm.tool_parsers import ToolParserManager

    ToolParserManager.import_tool_parser("compiler.integrations.vllm")


def _serving(cls):
    from vllm.entrypoints.openai.chat_completion.serving import OpenAIServingChat

    serving = object.__new__(OpenAIServingChat)
    for key, value in dict(SETTINGS, parser_cls=cls).items():
        setattr(serving, key, value)
    return serving


def _outputs(tok, prompt_ids, output, *, whole=False):
    from vllm.outputs import CompletionOutput, RequestOutput

    steps = [(output, tok.encode(output, add_special_tokens=False))] if whole else S.steps(tok, output)

    async def generate():
        for index, (text, ids) in enumerate(steps):
            last = index == len(steps) - 1
            out = CompletionOutput(
                index=0,
                text=text,
                token_ids=list(ids),
                cumulative_logprob=None,
                logprobs=None,
                finish_reason="stop" if last else None,
            )
            yield RequestOutput(
                request_id="r",
                prompt=None,
                prompt_token_ids=prompt_ids,
                prompt_logprobs=None,
                outputs=[out],
                finished=last,
            )

    return generate()


def _adjusted(cls, tok, tools, prefix, stream):
    req = S.request(tools=tools, stream=stream)
    parser = cls(tok, req.tools)
    prompt_ids = tok.encode(prefix, add_special_tokens=False)
    parser.set_prompt_token_ids(prompt_ids)
    return parser.adjust_request(req), prompt_ids


def _streamed(cls, tok, tools, prefix, output):
    from openai.types.chat import ChatCompletionChunk
    from vllm.entrypoints.generate.base.protocol import RequestResponseMetadata

    req, prompt_ids = _adjusted(cls, tok, tools, prefix, True)

    async def run():
        frames = []
        async for frame in _serving(cls).chat_completion_stream_generator(
            req, _outputs(tok, prompt_ids, output), "chatcmpl-r", "m", [], tok, RequestResponseMetadata(request_id="r")
        ):
            frames.append(frame)
        return frames

    frames = asyncio.run(run())
    assert frames[-1] == "data: [DONE]\n\n"
    message = {"reasoning": "", "content": "", "tool_calls": {}}
    finish = None
    for frame in frames[:-1]:
        assert frame.startswith("data: ")
        chunk = ChatCompletionChunk.model_validate_json(frame[len("data: ") :])
        choice = chunk.choices[0]
        finish = choice.finish_reason or finish
        delta = choice.delta
        message["content"] += delta.content or ""
        message["reasoning"] += (delta.model_extra or {}).get("reasoning") or ""
        for call in delta.tool_calls or ():
            entry = message["tool_calls"].setdefault(call.index, {"name": "", "arguments": "", "id": None})
            entry["id"] = entry["id"] or call.id
            entry["name"] += (call.function.name or "") if call.function else ""
            entry["arguments"] += (call.function.arguments or "") if call.function else ""
    message["tool_calls"] = [message["tool_calls"][i] for i in sorted(message["tool_calls"])]
    return message, finish


def _full(cls, tok, tools, prefix, output):
    from openai.types.chat import ChatCompletion
    from vllm.entrypoints.generate.base.protocol import RequestResponseMetadata

    req, prompt_ids = _adjusted(cls, tok, tools, prefix, False)
    parser = cls(tok, req.tools)
    response = asyncio.run(
        _serving(cls).chat_completion_full_generator(
            req,
            _outputs(tok, prompt_ids, output, whole=True),
            "chatcmpl-r",
            "m",
            [],
            tok,
            RequestResponseMetadata(request_id="r"),
            parser=parser,
        )
    )
    completion = ChatCompletion.model_validate_json(response.model_dump_json())
    msg = completion.choices[0].message
    return {
        "reasoning": (msg.model_extra or {}).get("reasoning") or "",
        "content": msg.content or "",
        "tool_calls": [
            {"name": c.function.name, "arguments": c.function.arguments, "id": c.id} for c in msg.tool_calls or ()
        ],
    }, completion.choices[0].finish_reason


@pytest.mark.parametrize("name", S.BUNDLED)
def test_end_to_end(name):
    tok = S.tokenizer_for(name)
    reasoning = "compiled_template" if "reasoning_content" in S.template(name)["fields"] else None
    cls = S.parser_class("compiled_template", reasoning, tok)
    module = cls(tok).compiled.module
    for sample, req_tools, tools in S.cases(name):
        prefix, output = sample.get("prefix", ""), sample["output"]
        expected = S.comparable(S.expected_message(module, prefix, output, tools))
        for run in (_streamed, _full):
            message, finish = run(cls, tok, req_tools, prefix, output)
            assert S.comparable(message) == expected, (sample["id"], run.__name__)
            assert finish == ("tool_calls" if expected["tool_calls"] else "stop"), (sample["id"], run.__name__)
            assert all(c["id"] for c in message["tool_calls"])
