"""Agreement of an inferred template with the hand-written one of its family, on the family's samples
(templates_src/samples/).

A sample *agrees* when both templates parse it to the same message (role, content, reasoning_content,
tool_calls, call ids aside) or both raise the same exception class. A sample that does not agree is
*explained* when it belongs to one of the classes below, each a kind of output a render of the chat template
cannot show, tested on the sample and both results (not on its name alone); every other one is
*unexplained*. The report lists both, with the class of each explained sample.
"""

from __future__ import annotations

import json

import regex
from collections import Counter
from dataclasses import dataclass, field
from typing import Callable

from ..frontend import source as sources
from ..pipeline import compile_template
from ..resources import TEMPLATES_DIR
from . import probes
from .diff import OPENERS, common_prefix, common_suffix, first_token, json_shapes, snap_left, snap_right, split_markers
from .probes import REASONING_KEYS
from .sandbox import RenderError, Renderer
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

MESSAGE_KEYS = ("role", "content", "reasoning_content", "tool_calls")


@dataclass
class Case:
    """One disagreeing sample: the sample, both outcomes (a message, or an exception class name), both templates,
    and the chat template's text."""

    sample: dict
    want: dict | str
    got: dict | str
    hand: dict
    inferred: dict | None
    chat_template: str
    renderer: Renderer | None = None

    @property
    def text(self) -> str:
        return self.sample["output"]

    def rendered_turn(self) -> str | None:
        """What the chat template writes for the hand-written result (its content, reasoning and calls) through its
        end of turn: its render of that assistant turn from where it leaves the render of an empty one (or, when it
        refuses an empty one, the generation prompt), to where the two meet again, and the first marker after that.
        "" when it refuses to render the calls, None when it refuses the turn without them too."""
        calls = []
        for call in self.want.get("tool_calls") or []:
            function = call.get("function") or {}
            arguments = function.get("arguments")
            if isinstance(arguments, str):
                try:
                    arguments = json.loads(arguments)
                except ValueError:
                    pass
            calls.append({"name": function.get("name"), "arguments": arguments})
        tools = probes.render_tools(self.renderer)
        content, reasoning = self.want.get("content") or "", self.want.get("reasoning_content")
        try:
            turn = self.renderer.render([probes.USER, probes.assistant(content, reasoning, calls)], tools=tools)
        except RenderError:
            try:
                self.renderer.render([probes.USER, probes.assistant(content, reasoning)], tools=tools)
            except RenderError:
                return None
            return "" if calls else None
        try:
            empty = self.renderer.render([probes.USER, probes.assistant("")], tools=tools)
        except RenderError:  # an empty turn refused (Mistral): the turn runs from the generation prompt to the end
            prompt = self.renderer.render([probes.USER], tools=tools, add_generation_prompt=True)
            return turn[snap_left(turn, common_prefix(turn, prompt)) :]
        start = snap_left(turn, common_prefix(turn, empty))
        end = snap_right(turn, len(turn) - common_suffix(turn[start:], empty[start:]))
        return turn[start:end] + first_token(turn[end:])

    def inferred_has(self, *names: str) -> bool:
        fields = (self.inferred or {}).get("fields", {})
        return any(name in fields for name in names)

    def hand_markers_in_output(self, name: str) -> bool:
        """Whether the hand-written template's open or close of field `name` occurs in the sample's turn."""
        spec = self.hand.get("fields", {}).get(name)
        if not spec:
            return False
        turn = self.sample["prefix"][-200:] + self.text
        for key in ("open", "close"):
            literal = spec.get(key)
            for item in [literal] if isinstance(literal, str) else literal or []:
                if item and item in turn:
                    return True
            pattern = spec.get(key + "_pattern")
            found = regex.search(pattern, turn, regex.S) if pattern else None
            if found is not None and found.group().strip():
                return True
        return False

    def only_content_differs(self) -> bool:
        if isinstance(self.want, str) or isinstance(self.got, str):
            return False
        keys = set(self.want) | set(self.got)
        return all(self.want.get(key) == self.got.get(key) for key in keys - {"content"})


def _reasoning_not_rendered(case: Case) -> bool:
    """Only the reasoning is wrong: the calls came out the same."""
    if case.inferred_has(*REASONING_KEYS) or isinstance(case.want, str) or isinstance(case.got, str):
        return False
    if case.want.get("tool_calls") != case.got.get("tool_calls"):
        return False
    want_reasoning = isinstance(case.want, dict) and "reasoning_content" in case.want
    return want_reasoning or case.hand_markers_in_output("reasoning_content")


def _calls_not_rendered(case: Case) -> bool:
    if case.inferred_has("tool_calls"):
        return False
    want_calls = isinstance(case.want, dict) and "tool_calls" in case.want
    return want_calls or case.hand_markers_in_output("tool_calls") or _hand_markers_left(case)


def _hand_markers_left(case: Case) -> bool:
    """Only content differs, by markers of the hand-written template's own (an empty call section it drops)."""
    if not case.only_content_differs():
        return False
    got = case.got.get("content") or ""
    for word in (case.want.get("content") or "").split():
        got = got.replace(word, " ", 1)
    left = "".join(split_markers(got))
    if not left or left[0] not in OPENERS:
        return False
    for spec in case.hand.get("fields", {}).values():
        for key in ("open", "close"):
            literal = spec.get(key)
            pattern = spec.get(key + "_pattern") or (
                "|".join(map(regex.escape, [literal] if isinstance(literal, str) else literal)) if literal else ""
            )
            found = regex.search(pattern, left, regex.S) if pattern else None
            if found is not None and found.group().strip() == left:
                return True
    return False


def _call_kept_in_reasoning(case: Case) -> bool:
    """The hand-written template keeps a call written inside unclosed reasoning as reasoning text."""
    if not isinstance(case.want, dict) or not isinstance(case.got, dict) or case.want.get("tool_calls"):
        return False
    names = [c.get("function", {}).get("name", "") for c in case.got.get("tool_calls") or []]
    reasoning = case.want.get("reasoning_content") or ""
    return bool(names) and all(name and name in reasoning for name in names)


def _unnamed_eos(case: Case) -> bool:
    """The output ends with a token the chat template never writes (the model's eos; a bare .jinja names none),
    and it is all that differs."""
    if not case.only_content_differs():
        return False
    want, got = case.want.get("content") or "", case.got.get("content") or ""
    if not got.startswith(want):
        return False
    extra = got[len(want) :].strip()
    return (
        bool(extra)
        and extra[0] in OPENERS
        and not any(char.isspace() for char in extra)
        and case.text.rstrip().endswith(extra)
        and extra not in case.chat_template
    )


def _joined_otherwise(case: Case) -> bool:
    """Content written between or after calls, joined with another whitespace separator."""
    if not case.only_content_differs() or not case.want.get("tool_calls"):
        return False
    want, got = case.want.get("content") or "", case.got.get("content") or ""
    return want != got and want.split() == got.split()


def _written_otherwise(case: Case) -> bool:
    """The sample's turn is not written as the chat template writes the hand-written result (JSON values reduced
    to their shape, whitespace aside), or the chat template refuses to write its calls."""
    if case.renderer is None or isinstance(case.want, str):
        return False
    turn = case.rendered_turn()
    return turn is not None and (not turn or json_shapes(turn) not in json_shapes(case.text))


def _cut_off(case: Case) -> bool:
    """The output stops before its turn's end (max tokens): the sample says so and the inferred template's end of
    turn is nowhere in it."""
    said = "cut off" in case.sample.get("description", "").lower() or case.sample["id"].startswith("cut_off")
    if not said:
        return False
    close = ((case.inferred or {}).get("fields", {}).get("content") or {}).get("close_pattern")
    return not close or not regex.search(close, case.text, regex.S)


@dataclass(frozen=True)
class Quirk:
    name: str
    reason: str  # why a render cannot show it
    test: Callable[[Case], bool]
    tested: str  # what `test` checks, in words


# In the order they are tried; the first that holds explains the sample.
QUIRKS = (
    Quirk(
        "reasoning not rendered",
        "the sample holds reasoning, but this chat template renders none from a standard message "
        "(reasoning_content or its aliases, or a thinking content part): an earlier or non-reasoning model of "
        "the family, or reasoning in a message shape of the template's own",
        _reasoning_not_rendered,
        "the inferred template has no reasoning field, the sample holds reasoning (the hand-written result has it, "
        "or the hand-written reasoning markers are in the output), and the calls came out the same",
    ),
    Quirk(
        "calls not rendered",
        "the sample holds tool calls, but this chat template renders none (it ignores them, or renders them "
        "only in a way the sandbox refuses)",
        _calls_not_rendered,
        "the inferred template has no tool-call field, and the sample holds calls (the hand-written result has "
        "them, or its call markers are in the output) or only content differs, by a delimiter of the "
        "hand-written template (an empty call section it drops)",
    ),
    Quirk(
        "cut off",
        "the output stops before the turn's end: a render is always whole, so whether a cut-off call raises or "
        "keeps its fragment, and where a cut-off delimiter goes, is the hand-written template's choice",
        _cut_off,
        "the sample is described as cut off, and the inferred end of turn is nowhere in it",
    ),
    Quirk(
        "call kept in unclosed reasoning",
        "a call written inside reasoning that was never closed: a render cannot show where the model meant the "
        "reasoning to end; the hand-written template keeps the call as reasoning text",
        _call_kept_in_reasoning,
        "the hand-written result has no calls, and its reasoning holds the names of the calls the inferred "
        "template found",
    ),
    Quirk(
        "unnamed eos",
        "the output ends with a token the chat template never writes (the model's eos token, which a bare "
        ".jinja does not name; pass --eos-token)",
        _unnamed_eos,
        "only content differs, by one token at the end of the output that the chat template never writes",
    ),
    Quirk(
        "written otherwise",
        "the model writes its turn in a form the chat template never renders (calls as a JSON list where it "
        "renders one object per call, another tag, key or end of turn, several calls where it renders one, text "
        "between calls): renders cannot show that form",
        _written_otherwise,
        "the chat template's render of the hand-written result, from where it leaves the render of an empty "
        "assistant turn through its end of turn (JSON values reduced to their shape, whitespace aside), does not "
        "occur in the output, or the chat template refuses to render its calls",
    ),
    Quirk(
        "content joined otherwise",
        "content written between or after calls: a message has one content string, rendered in one place, so "
        "how the pieces around calls are joined cannot be rendered; the hand-written template joins them with "
        "another whitespace",
        _joined_otherwise,
        "only content differs, by whitespace, in a message with calls",
    ),
)


@dataclass
class Agreement:
    family: str
    agree: int = 0
    total: int = 0
    explained: dict[str, list[str]] = field(default_factory=dict)  # quirk name -> sample ids
    disagreements: list[str] = field(default_factory=list)  # unexplained sample ids
    details: dict[str, str] = field(default_factory=dict)  # unexplained sample id -> what differs

    @property
    def ratio(self) -> float:
        return self.agree / self.total if self.total else 0.0

    @property
    def explained_count(self) -> int:
        return sum(len(ids) for ids in self.explained.values())

    @property
    def covered(self) -> float:
        """Agreeing or explained, as a share of the samples."""
        return (self.agree + self.explained_count) / self.total if self.total else 0.0

    def reasons(self) -> str:
        counts = Counter({name: len(ids) for name, ids in self.explained.items()})
        parts = [f"{name} {count}" for name, count in counts.most_common()]
        kinds = Counter(self.details.values())
        parts += [f"unexplained: {kind} {count}" for kind, count in kinds.most_common()]
        return "; ".join(parts)


def _outcome(module, sample):
    try:
        return normalise(module.parse_response(sample["output"], prefix=sample["prefix"], tools=sample.get("tools")))
    except (ValueError, KeyError, TypeError) as error:
        return type(error).__name__


def _differs(want, got) -> str:
    if isinstance(want, str) or isinstance(got, str):
        return f"{want if isinstance(want, str) else 'message'} vs {got if isinstance(got, str) else 'message'}"
    keys = [key for key in MESSAGE_KEYS if want.get(key) != got.get(key)]
    keys += sorted(key for key in set(want) | set(got) if key not in MESSAGE_KEYS and want.get(key) != got.get(key))
    return "differs in " + ", ".join(keys)


def agreement(inferred: dict | None, family: str, chat_template: str = "") -> Agreement:
    result = Agreement(family)
    data = json.loads((TEMPLATES_DIR / "samples" / f"{family}.json").read_text(encoding="utf-8"))
    hand_template = sources.read(family).template
    hand = compile_template(hand_template, name=family)
    module = compile_template(inferred, name="inferred") if inferred is not None else None
    with Renderer(chat_template) as renderer:  # started by its first render: only a disagreeing sample with calls
        for sample in data["samples"]:
            result.total += 1
            want = _outcome(hand, sample)
            got = _outcome(module, sample) if module is not None else "no template"
            if got == want:
                result.agree += 1
                continue
            case = Case(sample, want, got, hand_template, inferred, chat_template, renderer if chat_template else None)
            quirk = next((q for q in QUIRKS if q.test(case)), None)
            if quirk is not None:
                result.explained.setdefault(quirk.name, []).append(sample["id"])
            else:
                result.disagreements.append(sample["id"])
                result.details[sample["id"]] = _differs(want, got)
    return result
