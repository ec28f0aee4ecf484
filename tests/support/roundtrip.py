"""Chat-template round trips: render a message with a model's own chat template
(transformers' sandboxed renderer), cut the generation out of the render and
parse it back with the bundled response template.

A chat template writes a message as the text the model was trained to emit,
so parsing that text must give the message again. The chat templates are
other projects' files read from `../shared/chat_templates/` beside the
checkout (the project keeps no copy); `tests/templates/roundtrip/chat_templates.json`
says which of them belong to which bundled template, and how to render them.

Run `python tests/support/roundtrip.py [NAME ...]` to print every probe's
generation and outcome.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CHAT_TEMPLATES = ROOT.parent / "shared" / "chat_templates"
MAPPING = ROOT / "tests" / "templates" / "roundtrip" / "chat_templates.json"

WEATHER = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Current weather in a city.",
        "parameters": {
            "type": "object",
            "properties": {"city": {"type": "string"}, "unit": {"type": "string", "enum": ["c", "f"]}},
            "required": ["city"],
        },
    },
}
TIME = {
    "type": "function",
    "function": {
        "name": "get_time",
        "description": "Local time in a timezone.",
        "parameters": {"type": "object", "properties": {"tz": {"type": "string"}}, "required": ["tz"]},
    },
}
TYPED = {
    "type": "function",
    "function": {
        "name": "book_table",
        "description": "Book a table.",
        "parameters": {
            "type": "object",
            "properties": {
                "name": {"type": "string"},
                "guests": {"type": "integer"},
                "budget": {"type": "number"},
                "outdoor": {"type": "boolean"},
                "notes": {"type": ["string", "null"]},
                "dishes": {"type": "array", "items": {"type": "string"}},
                "contact": {"type": "object"},
            },
            "required": ["name", "guests"],
        },
    },
}
TOOLS = [WEATHER, TIME, TYPED]


def call(name, arguments):
    return {"type": "function", "function": {"name": name, "arguments": arguments}}


# The probe messages: what the issue asks every family to write and read back.
PROBES = {
    "content": {"content": "Paris is the capital of France."},
    "reasoning_content": {
        "reasoning_content": "The user asks for a capital. France's is Paris.",
        "content": "Paris is the capital of France.",
    },
    "one_call": {"tool_calls": [call("get_weather", {"city": "Tokyo"})]},
    "text_and_call": {
        "content": "Let me check the weather.",
        "tool_calls": [call("get_weather", {"city": "Tokyo", "unit": "c"})],
    },
    "parallel_calls": {
        "tool_calls": [call("get_weather", {"city": "Tokyo"}), call("get_time", {"tz": "Asia/Tokyo"})],
    },
    "reasoning_and_call": {
        "reasoning_content": "I need the weather first.",
        "tool_calls": [call("get_weather", {"city": "Oslo"})],
    },
    "typed_arguments": {
        "tool_calls": [
            call(
                "book_table",
                {
                    "name": "Ana",
                    "guests": 4,
                    "budget": 120.5,
                    "outdoor": True,
                    "notes": None,
                    "dishes": ["soup", "fish"],
                    "contact": {"phone": "555-0100", "sms": False},
                },
            )
        ],
    },
    "markup_text": {"content": 'Use <b>bold</b> and a {"json": [1, 2]} literal, or a <tag attr="x"/>.'},
}

CONVERSATION = [
    {"role": "system", "content": "You are a helpful assistant."},
    {"role": "user", "content": "Hello, I have a question."},
]
SPECIAL = {"bos_token": "<s>", "eos_token": "</s>", "pad_token": "<pad>", "unk_token": "<unk>"}


def load_mapping() -> dict:
    return json.loads(MAPPING.read_text(encoding="utf-8"))


def chat_template_text(file: str, folder: Path | None = None) -> str:
    return ((folder or CHAT_TEMPLATES) / file).read_text(encoding="utf-8")


def render(chat_template: str, messages: list[dict], *, generation_prompt: bool, kwargs: dict) -> str:
    from transformers.utils.chat_template_utils import render_jinja_template

    rendered, _ = render_jinja_template(
        conversations=[messages],
        tools=TOOLS,
        chat_template=chat_template,
        add_generation_prompt=generation_prompt,
        **{**SPECIAL, **kwargs},
    )
    return rendered[0]


def assistant_message(probe: dict, entry: dict) -> dict:
    message = {"role": "assistant", "content": probe.get("content", "")}
    if "reasoning_content" in probe:
        message["reasoning_content"] = probe["reasoning_content"]
    if "tool_calls" in probe:
        calls = []
        for index, item in enumerate(probe["tool_calls"]):
            function = dict(item["function"])
            if entry.get("arguments_as_string"):
                function["arguments"] = json.dumps(function["arguments"], ensure_ascii=False)
            calls.append({"id": f"call{index:05d}", "type": "function", "function": function})
        message["tool_calls"] = calls
    return message


def generation(entry: dict, probe: dict, folder: Path | None = None) -> tuple[str, str]:
    """(prefix, generated text): the prompt render with the generation prompt,
    and what the full render adds after it, up to the end-of-turn marker.

    Where the prompt pre-opens reasoning (`continue.open`) and the full render
    writes that block itself, the generation starts inside it; where the full
    render drops the block (history without reasoning), the model continues
    from the opener as it would: the probe's reasoning, the closer, then the
    rendered turn. `folder` holds the chat template (default: the corpus)."""
    template = chat_template_text(entry["file"], folder)
    kwargs = entry.get("kwargs", {})
    conversation = CONVERSATION[1:] if entry.get("no_system") else list(CONVERSATION)
    if entry.get("system_suffix"):
        conversation[0] = {**conversation[0], "content": conversation[0]["content"] + entry["system_suffix"]}
    # `followed`: the chat template renders a final assistant message as a
    # prefill to continue, so the turn is rendered with a user message after it.
    after = [{"role": "user", "content": "Thanks."}] if entry.get("followed") else []
    prompt = render(template, conversation, generation_prompt=True, kwargs=kwargs)
    full = render(
        template, conversation + [assistant_message(probe, entry)] + after, generation_prompt=False, kwargs=kwargs
    )
    if full.startswith(prompt):
        text = full[len(prompt) :]
    else:
        text = continued(entry, probe, prompt, full)
    end = entry.get("end_of_turn")
    if end:
        cut = text.find(end)
        if cut >= 0:
            text = text[: cut + len(end)]
    return prompt, text


def continued(entry: dict, probe: dict, prompt: str, full: str) -> str:
    """The generation when the prompt pre-writes a tail (`prompt_tail`) that
    the full render writes otherwise: `closed` (thinking turned off, e.g.
    `<think></think>`): the model writes the rendered turn after it; `open`
    (reasoning pre-opened, e.g. `<think>\n`): the rendered turn continues the
    opened block, or, where the render drops the block, the model writes the
    probe's reasoning and the closer (`close`) first."""
    tail = entry.get("prompt_tail", {})
    text, base = tail.get("text", ""), len(prompt) - len(tail.get("text", ""))
    if not text or not prompt.endswith(text) or full[:base] != prompt[:base]:
        at = next((i for i, (a, b) in enumerate(zip(prompt, full)) if a != b), min(len(prompt), len(full)))
        raise RenderMismatch(
            f"the full render leaves the generation prompt at {at}: {prompt[at:]!r} vs {full[at:at + 40]!r}"
        )
    rest = full[base:]
    if tail["mode"] == "closed":
        cut = max(k for k in range(len(text) + 1) if rest.startswith(text[len(text) - k :]))
        return rest[cut:]
    if rest.startswith(text.strip()):
        return rest[len(text.strip()) :]
    reasoning = probe.get("reasoning_content", "")
    if reasoning and rest.startswith(reasoning):
        # The render writes the block's body without the opener the prompt wrote.
        return rest
    close = tail.get("close", "")
    if close.strip() and rest.startswith(close.strip()):
        rest = rest[len(close.strip()) :]
    return probe.get("reasoning_content", "") + close + rest.lstrip()


class RenderMismatch(Exception):
    """The chat template writes the assistant turn differently from the
    generation prompt it offers (so no generation can be cut out)."""


def expected(probe: dict, text: str | None = None) -> dict:
    """The message as the probe states it, with calls reduced to name and
    arguments; given the generation, only the fields the chat template wrote
    into it (a field it drops cannot come back)."""
    out = {}
    for key in ("reasoning_content", "content"):
        if probe.get(key) and (text is None or rendered(probe[key], text)):
            out[key] = probe[key].strip()
    calls = [c for c in probe.get("tool_calls", []) if text is None or c["function"]["name"] in text]
    if calls:
        out["tool_calls"] = [{"name": c["function"]["name"], "arguments": c["function"]["arguments"]} for c in calls]
    return out


def rendered(value: str, text: str) -> bool:
    """Whether the chat template wrote this text (escaped or not) into the generation."""
    return value.strip() in text or json.dumps(value.strip(), ensure_ascii=False)[1:-1] in text


def dropped(probe: dict, text: str) -> list[str]:
    """The probe's fields that the chat template left out of the generation."""
    full, kept = expected(probe), expected(probe, text)
    return [key for key in full if kept.get(key) != full[key]]


def comparable(message: dict) -> dict:
    """The parsed message in the same reduced form (ids and roles are not probed)."""
    out = {}
    for key in ("reasoning_content", "content"):
        value = message.get(key)
        if isinstance(value, str) and value.strip():
            out[key] = value.strip()
        elif value not in (None, "", [], {}):
            out[key] = value
    calls = message.get("tool_calls") or []
    if calls:
        reduced = []
        for item in calls:
            function = item.get("function", item) if isinstance(item, dict) else item
            if isinstance(function, dict):
                arguments = function.get("arguments")
                if isinstance(arguments, str):
                    try:
                        arguments = json.loads(arguments)
                    except ValueError:
                        pass
                reduced.append({"name": function.get("name"), "arguments": arguments})
            else:
                reduced.append(function)
        out["tool_calls"] = reduced
    return out


def cases() -> list[tuple[str, dict, str]]:
    """(bundled template, chat-template entry, probe name) for every mapped pair."""
    out = []
    for name, entries in load_mapping()["templates"].items():
        for entry in entries:
            thinking_off = entry.get("prompt_tail", {}).get("mode") == "closed"
            for probe in PROBES:
                if not (thinking_off and "reasoning_content" in PROBES[probe]):
                    out.append((name, entry, probe))
    return out


def explained(entry: dict, probe: str) -> str | None:
    return entry.get("explained", {}).get(probe)


def run_case(parse, entry: dict, probe_name: str, folder: Path | None = None):
    """('ok'|'differs'|'raises'|'mismatch'|'render-error'|'drops', detail)."""
    probe = PROBES[probe_name]
    try:
        prefix, text = generation(entry, probe, folder)
    except RenderMismatch as error:
        return "mismatch", str(error)
    except Exception as error:  # noqa: BLE001 - the chat template itself fails
        return "render-error", f"{type(error).__name__}: {error}"
    return compare(parse, entry, probe_name, prefix, text)


def compare(parse, entry: dict, probe_name: str, prefix: str, text: str):
    """Parse one generation (with the prompt it continues) and compare it with
    the probe message: ('ok'|'differs'|'raises'|'drops', detail)."""
    probe = PROBES[probe_name]
    try:
        message = parse(text, prefix=prefix, tools=TOOLS)
    except Exception as error:  # noqa: BLE001 - reported as the outcome
        return "raises", f"{type(error).__name__}: {error} on {text!r}"
    got, want = comparable(message), expected(probe, text)
    lost = [key for key in dropped(probe, text) if key not in entry.get("drops", {})]
    if lost:
        return "drops", f"the chat template drops {lost} from {text!r}"
    if got != want:
        return (
            "differs",
            f"got {json.dumps(got, ensure_ascii=False)} want {json.dumps(want, ensure_ascii=False)} on {text!r}",
        )
    return "ok", text


def main(argv: list[str]) -> int:
    sys.path[:0] = [str(ROOT), str(ROOT / "tests")]
    from compiler import compile_template

    if not CHAT_TEMPLATES.is_dir():
        print(f"no chat templates at {CHAT_TEMPLATES}")
        return 1
    counts = {}
    modules = {}
    for name, entry, probe in cases():
        if argv and name not in argv:
            continue
        if name not in modules:
            template = json.loads((ROOT / "templates_src" / f"{name}.json").read_text(encoding="utf-8"))
            modules[name] = compile_template(template, name=name)
        status, detail = run_case(modules[name].parse_response, entry, probe)
        note = explained(entry, probe) or (status == "render-error" and entry.get("render_error"))
        label = status if status == "ok" or not note else f"{status} (explained)"
        counts[label] = counts.get(label, 0) + 1
        if status != "ok" or argv:
            print(f"{name} {entry['file']} {probe}: {label}: {detail}")
    print(counts)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
