"""vLLM's unified parser, run by a compiled response parser.

vLLM 0.33 composes a response-template parser from a reasoning and a tool
parser class whose `unified_parser_cls()` names it (vllm/parser/
parser_manager.py). `CompiledReasoningParser` and `CompiledToolParser` do so
for `CompiledTemplateParser`, which parses the whole output (reasoning,
content, tool calls) with one generated parser and streams it through the
project's OpenAI adapter (runtime/openai).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from vllm.entrypoints.generate.base.protocol import DeltaFunctionCall, DeltaMessage, DeltaToolCall, FunctionCall
from vllm.entrypoints.openai.chat_completion.protocol import ChatCompletionRequest
from vllm.exceptions import VLLMValidationError
from vllm.logger import init_logger
from vllm.parser.abstract_parser import Parser
from vllm.parser.response_template import (
    ResponseTemplateReasoningParser,
    ResponseTemplateToolParser,
    _as_tool_dicts,
    _decode,
    _is_named_tool_choice,
    _tool_is_strict,
    _tool_parsing_enabled,
)
from vllm.reasoning.abs_reasoning_parsers import ReasoningParser
from vllm.renderers.chat_utils import make_tool_call_id
from vllm.sampling_params import StructuredOutputsParams

from runtime.core import last_anchor_end
from runtime.openai import OpenAIStreamAdapter, to_openai_message

from ...grammar import GrammarError
from . import tags
from .template import Compiled, compiled

logger = init_logger(__name__)
_WARNED: set = set()


def load(tokenizer, spec: str | None) -> Compiled:
    """The compiled template; extra fields are reported once per template."""
    found = compiled(tokenizer, spec)
    if found.dropped and found.origin + repr(found.dropped) not in _WARNED:
        _WARNED.add(found.origin + repr(found.dropped))
        logger.warning(
            "response template from %s: %s parsed but not sent: vLLM's chat message has only "
            "reasoning, content and tool_calls",
            found.origin,
            ", ".join(found.dropped),
        )
    return found


class _Spec:
    """Class attribute `template_spec`: a bundled name or a file, or None (tokenizer / environment)."""

    template_spec: str | None = None


class CompiledReasoningParser(_Spec, ResponseTemplateReasoningParser):
    """Reasoning end detection with the compiled parser (the structured-output
    engine asks it where reasoning ends, to start the tool grammar there)."""

    @classmethod
    def unified_parser_cls(cls):
        return CompiledTemplateParser

    def __init__(self, tokenizer, *args, **kwargs) -> None:
        ReasoningParser.__init__(self, tokenizer, *args, **kwargs)
        self.compiled = load(tokenizer, self.template_spec)
        chat_template_kwargs = kwargs.get("chat_template_kwargs") or {}
        self._thinking_disabled = not chat_template_kwargs.get("enable_thinking", True)
        self._seen: list[int] | None = None  # token ids fed to _stream
        self._text = ""
        self._stream = None
        self._ended = False

    def _literal(self, key: str) -> str | None:
        spec = self.compiled.fields.get("reasoning_content", {}).get(key)
        return spec[0] if isinstance(spec, list) and spec else spec if isinstance(spec, str) else None

    @property
    def reasoning_start_str(self) -> str | None:
        return self._literal("open")

    @property
    def reasoning_end_str(self) -> str | None:
        return self._literal("close")

    def _ended_by(self, events, state: dict) -> bool | None:
        """Follow region events: True once reasoning closed or an answer region opened."""
        for event in events:
            field = event["field"]
            if event["type"] == "region_open":
                state["open"] = field
                if field != "reasoning_content":
                    return True
            elif event["type"] != "region_chunk":
                state["open"] = None
                if field == "reasoning_content":
                    return True
        return None

    def is_reasoning_end(self, input_ids: Sequence[int]) -> bool:
        if not self.compiled.has_reasoning:
            return True
        try:
            parser = self.compiled.module.ResponseParser(_decode(self.model_tokenizer, list(input_ids)))
        except Exception:
            return False
        state: dict = {"open": None}
        if self._ended_by(parser.initial_events, state):
            return True
        return state["open"] is None and self._thinking_disabled

    def is_reasoning_end_streaming(self, input_ids: Sequence[int], delta_ids) -> bool:
        """Whether the output so far (`input_ids`) has left reasoning; one parser per
        generation, fed what each call adds."""
        if not self.compiled.has_reasoning or self._ended:
            return True
        input_ids = list(input_ids)
        if self._seen is None or input_ids[: len(self._seen)] != self._seen:
            self._stream = self.compiled.module.ResponseParser("")
            self._seen, self._text = [], ""
        text = _decode(self.model_tokenizer, input_ids)
        new = text[len(self._text) :] if text.startswith(self._text) else text
        self._seen, self._text = input_ids, text
        try:
            self._ended = bool(self._ended_by(self._stream.feed(new), {"open": None}))
        except Exception:
            self._ended = True  # a parse error: let the grammar decide from here
        return self._ended


class CompiledToolParser(_Spec, ResponseTemplateToolParser):
    """Selects `CompiledTemplateParser` as the tool parser; it extracts the calls."""

    @classmethod
    def unified_parser_cls(cls):
        return CompiledTemplateParser


def _spec_of(cls) -> str | None:
    specs = {c.template_spec for c in (cls.reasoning_parser_cls, cls.tool_parser_cls) if c is not None}
    if len(specs) > 1:
        raise ValueError(f"the reasoning and tool parsers name different templates: {sorted(map(str, specs))}")
    return next(iter(specs), None)


class CompiledTemplateParser(Parser):
    """Reasoning, content and tool calls from one compiled response parser."""

    reasoning_parser_cls = CompiledReasoningParser
    tool_parser_cls = CompiledToolParser
    always_adjust_request = True
    _enable_auto_tools = False

    def __init__(self, tokenizer, tools=None, *, enable_auto_tools: bool | None = None, **kwargs) -> None:
        self.compiled = load(tokenizer, _spec_of(type(self)))
        super().__init__(tokenizer, tools, **kwargs)
        if enable_auto_tools is not None:
            self._enable_auto_tools = enable_auto_tools
        self._tools = _as_tool_dicts(tools)
        self._recovery = self.compiled.recovery
        self._prompt_token_ids: list[int] | None = None
        self._prefix = ""
        self._stream: _Stream | None = None

    # -- request --------------------------------------------------------

    def set_prompt_token_ids(self, prompt_token_ids: Sequence[int]) -> None:
        prompt_token_ids = list(prompt_token_ids)
        if prompt_token_ids != self._prompt_token_ids:
            self._prompt_token_ids = prompt_token_ids
            self._prefix = _decode(self.model_tokenizer, prompt_token_ids)
            self._stream = None

    def adjust_request(self, request):
        """Keep special tokens in the detokenised text (the template's delimiters), and
        constrain the output when the request's tool options ask for a guarantee."""
        request.skip_special_tokens = False
        if hasattr(request, "spaces_between_special_tokens"):
            request.spaces_between_special_tokens = False
        constraint = self.constraint(request)
        if constraint is not None:
            kind, value = constraint
            if kind == "structural_tag":
                params = StructuredOutputsParams(structural_tag=json.dumps(value, ensure_ascii=False))
            else:  # the whole output's grammar, from the prompt's state: reasoning included
                params = StructuredOutputsParams(grammar=value)
            if isinstance(request, ChatCompletionRequest):
                request.structured_outputs = params
                request.response_format = None
            else:
                request._parser_structured_outputs = params
            request._grammar_from_parser = kind == "grammar"
        return request

    def structural_tag(self, request) -> dict | None:
        """The structural tag for the request's tool options (None: no guarantee asked, or a grammar)."""
        constraint = self.constraint(request)
        return constraint[1] if constraint is not None and constraint[0] == "structural_tag" else None

    def constraint(self, request) -> tuple[str, Any] | None:
        """("structural_tag", tag dict) or ("grammar", EBNF text) for the request's tool options, or
        None when it asks for no guarantee. Raises VLLMValidationError when neither can be built."""
        if self._tool_parser is None or not request.tools or request.tool_choice == "none":
            return None
        tools = _as_tool_dicts(request.tools)
        strict = {t["function"]["name"] for t, raw in zip(tools, request.tools) if _tool_is_strict(raw)}
        named = _named(request) if _is_named_tool_choice(request) else None
        required = request.tool_choice == "required"
        parallel = getattr(request, "parallel_tool_calls", True) is not False
        if not (strict or required or named or not parallel):
            return None
        if request.extract_structured_outputs() is not None and not (required or named):
            logger.warning_once("structured outputs take precedence over strict tools / parallel_tool_calls")
            return None
        options = dict(required=required, named=named, parallel=parallel)
        try:
            return "structural_tag", tags.structural_tag(self.compiled.template, tools, strict=strict, **options)
        except GrammarError as error:
            tag_error = error
        try:
            return "grammar", tags.grammar(self.compiled.template, tools, prefix=self._prefix, **options)
        except (GrammarError, ValueError) as error:
            raise VLLMValidationError(
                f"the response template's tool calls cannot be constrained for this request: no structural "
                f"tag ({tag_error}) and no grammar ({error})",
                parameter="tool_choice" if required or named else "tools",
            ) from error

    # -- reasoning ------------------------------------------------------

    def is_reasoning_end(self, input_ids: list[int]) -> bool:
        return self._reasoning_parser is None or self._reasoning_parser.is_reasoning_end(input_ids)

    # -- parsing --------------------------------------------------------

    def _parse_tools(self, request, enable_auto_tools: bool) -> bool:
        return self._tool_parser is not None and _tool_parsing_enabled(request, enable_auto_tools=enable_auto_tools)

    def parse(self, model_output: str, request, enable_auto_tools: bool = False, model_output_token_ids=()):
        """(reasoning, content, tool_calls) of a whole output."""
        self._initialize_history_tool_call_cnt(request)
        module = self.compiled.module
        options = {"recover": True} if self._recovery else {}
        try:
            message = module.parse_response(model_output, prefix=self._prefix, tools=self._tools, **options)
        except Exception as error:  # without recovery mode: the whole text as content
            logger.warning("response template: %s; the output is returned as content", error)
            return None, model_output or None, None
        out = to_openai_message(message)
        reasoning = out.get("reasoning_content")
        content = out.get("content")
        if self._reasoning_parser is None and reasoning:  # reasoning is content without a reasoning parser
            content = reasoning + (content or "")
            reasoning = None
        calls = None
        if self._parse_tools(request, enable_auto_tools) and out.get("tool_calls"):
            calls = [
                FunctionCall(id=self._new_tool_call_id(c["function"]["name"]), **c["function"])
                for c in out["tool_calls"]
            ]
        return reasoning, content, calls

    def parse_delta(self, delta_text, delta_token_ids, request, prompt_token_ids=None, *, finished: bool):
        self._initialize_history_tool_call_cnt(request)
        if self._prompt_token_ids is None and prompt_token_ids is not None:
            self.set_prompt_token_ids(prompt_token_ids)
        if self._stream is None:
            self._stream = _Stream(self, request)
        return self._stream.feed(delta_text, finished)

    def _new_tool_call_id(self, name: str) -> str:
        state = self._stream_state
        call_id = make_tool_call_id(id_type=state.tool_call_id_type, func_name=name, idx=state.history_tool_call_cnt)
        state.history_tool_call_cnt += 1
        return call_id


def _named(request) -> str:
    choice = request.tool_choice
    function = getattr(choice, "function", None)
    return function.name if function is not None else choice.name


class _Stream:
    """One generation: text in, `DeltaMessage`s out, through the OpenAI adapter."""

    def __init__(self, owner: CompiledTemplateParser, request) -> None:
        self.owner = owner
        self.reasoning = owner._reasoning_parser is not None
        self.include_reasoning = bool(getattr(request, "include_reasoning", True))
        self.tools = owner._parse_tools(request, owner._enable_auto_tools)
        self.ids: dict[int, str] = {}
        self.failed = False
        self.adapter = None
        module = owner.compiled.module
        if owner._recovery:
            adapter = OpenAIStreamAdapter.__new__(OpenAIStreamAdapter)
            self.adapter = _with_recovery(adapter, module, owner._prefix, owner._tools)
        else:
            try:
                self.adapter = OpenAIStreamAdapter(module, owner._prefix, tools=owner._tools, model="")
            except Exception as error:
                self._fail(error)
        self.pending = self._take(self.adapter._chunks()) if self.adapter is not None else []

    def _fail(self, error) -> None:
        logger.warning("response template: %s; the rest of the output is sent as content", error)
        self.failed = True

    def feed(self, text: str, finished: bool) -> DeltaMessage | None:
        chunks = self.pending
        self.pending = []
        if self.failed:
            return _delta(chunks + [{"content": text}] if text else chunks)
        try:
            chunks += self._take(self.adapter.feed(text))
            if finished:
                chunks += self._take(self.adapter.finish())
        except Exception as error:
            self._fail(error)
            chunks.append({"content": text})
        return _delta(chunks)

    def _take(self, chunks: list) -> list:
        """The adapter's chunk deltas as vLLM delta fields."""
        out = []
        for chunk in chunks:
            delta = chunk["choices"][0]["delta"]
            if "reasoning_content" in delta:
                if not self.reasoning:
                    out.append({"content": delta["reasoning_content"]})
                elif self.include_reasoning:
                    out.append({"reasoning": delta["reasoning_content"]})
            if "content" in delta:
                out.append({"content": delta["content"]})
            for call in delta.get("tool_calls") or ():
                if self.tools:
                    out.append({"tool_call": self._call(call)})
        return out

    def _call(self, call: dict) -> DeltaToolCall:
        function = call.get("function") or {}
        index = call["index"]
        if index not in self.ids:
            self.ids[index] = self.owner._new_tool_call_id(function.get("name") or "")
            return DeltaToolCall(
                index=index,
                id=self.ids[index],
                type="function",
                function=DeltaFunctionCall(name=function.get("name"), arguments=function.get("arguments") or ""),
            )
        return DeltaToolCall(index=index, function=DeltaFunctionCall(arguments=function.get("arguments") or ""))


def _delta(items: list) -> DeltaMessage | None:
    fields: dict[str, Any] = {}
    calls: list[DeltaToolCall] = []
    for item in items:
        for key, value in item.items():
            if key == "tool_call":
                if calls and calls[-1].index == value.index and value.id is None:
                    calls[-1].function.arguments = (calls[-1].function.arguments or "") + value.function.arguments
                else:
                    calls.append(value)
            elif value:
                fields[key] = fields.get(key, "") + value
    if calls:
        fields["tool_calls"] = calls
    return DeltaMessage(**fields) if fields else None


def _closed(events: list) -> list:
    """`region_malformed` as a close with no value: the OpenAI adapter then drops the
    region's calls not yet announced (and sends no text for it)."""
    return [
        {"type": "region_close", "field": e["field"], "value": None} if e["type"] == "region_malformed" else e
        for e in events
    ]


def _with_recovery(adapter, module, prefix, tools):
    """The adapter over a parser in recovery mode (the runtime's `recover=True`):
    a malformed region reads as a close with no value."""
    original = module.ResponseParser

    class _Recovering:
        def __init__(self, prefix, *, tools=None):
            # The prompt's text after its start anchor is fed as the first chunk:
            # given as the prefix, recovery mode (as vLLM's interpreter) would drop
            # from later chunks the part of it held back as a possible delimiter,
            # and the stream would then miss text its message has.
            end = last_anchor_end(original.START_ANCHOR, prefix)
            self._parser = original("" if end is None else prefix[:end], tools=tools, recover=True)
            self.tables = original
            tail = prefix if end is None else prefix[end:]
            self.initial_events = _closed(self._parser.initial_events + self._parser.feed(tail))

        def feed(self, text):
            return _closed(self._parser.feed(text))

        def finalize(self):
            message, events = self._parser.finalize()
            return message, _closed(events)

    class _Module:
        ResponseParser = _Recovering
        TEMPLATE = module.TEMPLATE

    OpenAIStreamAdapter.__init__(adapter, _Module, prefix, tools=tools, model="")
    return adapter
