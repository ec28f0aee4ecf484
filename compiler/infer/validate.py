"""The round trip: render validation probes (never used for inference) through the
chat template and parse each render with the compiled response template
(the Python backend); every probe must come back as the message it was
rendered from.

The prompt is the user turn with the generation prompt; the model output is
what the full conversation renders after it (cut at a marker boundary, so a
prompt that pre-opens reasoning keeps its opener), up to the first end-of-turn
marker (one turn: a template that writes part of a message as a later turn
shows that part after the marker).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from ..errors import TemplateError
from ..pipeline import compile_template
from . import probes
from .diff import common_prefix, first_token, snap_left
from .sandbox import Renderer, RenderError


@dataclass
class ProbeResult:
    name: str
    ok: bool
    detail: str = ""
    prefix: str = ""
    output: str = ""


@dataclass
class RoundTrip:
    results: list[ProbeResult] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)
    error: str | None = None

    @property
    def failed(self) -> list[ProbeResult]:
        return [r for r in self.results if not r.ok]

    @property
    def complete(self) -> bool:
        return self.error is None and bool(self.results) and not self.failed

    def summary(self) -> str:
        if self.error:
            return f"round trip not run: {self.error}"
        passed = len(self.results) - len(self.failed)
        text = f"round trip: {passed}/{len(self.results)} validation probes come back"
        if self.skipped:
            text += f" ({len(self.skipped)} not applicable)"
        return text

    def lines(self) -> list[str]:
        out = [self.summary()]
        for result in self.failed:
            out.append(f"  FAIL {result.name}: {result.detail}")
            out.append(f"    output: {result.output!r}")
        for name, reason in self.skipped:
            out.append(f"  skip {name}: {reason}")
        return out


def normalise(message: dict) -> dict:
    """Call ids are not part of what a probe checks (templates print them in their own styles)."""
    out = dict(message)
    if isinstance(out.get("tool_calls"), list):
        out["tool_calls"] = [
            (
                {"type": c.get("type"), "function": {k: c.get("function", {}).get(k) for k in ("name", "arguments")}}
                if isinstance(c, dict)
                else c
            )
            for c in out["tool_calls"]
        ]
    return out


def probe_text(
    renderer: Renderer, message: dict, mode: dict, end_of_turn: str, modes: list[dict] = (), stops=()
) -> list[tuple[str, str]]:
    """Candidate (prefix, model output) pairs for one assistant message, the likeliest first."""
    full = renderer.render([probes.USER, message], tools=probes.render_tools(renderer), **mode)
    # Under each thinking mode's prompt, the output is what the history turn adds after the point where it
    # leaves the prompt; the prompt is taken whole (a `<think>` it opens, the output closes) or cut there.
    pairs = []
    for other in [mode] + [m for m in modes if m != mode]:
        try:
            prompt = renderer.render(
                [probes.USER], tools=probes.render_tools(renderer), add_generation_prompt=True, **other
            )
        except RenderError:
            continue
        cut = snap_left(full, common_prefix(full, prompt))
        output = full[cut:]
        ends = [(output.find(stop), stop) for stop in (end_of_turn, *stops) if stop and stop in output]
        if ends:
            at, stop = min(ends)
            output = output[: at + len(stop)]
        else:
            output = output.rstrip()
        for pair in ((prompt[:cut], output), (prompt, output)):
            if pair not in pairs:
                pairs.append(pair)
    return pairs


def end_of_turn(renderer: Renderer, mode: dict) -> str:
    turn = renderer.render([probes.USER, probes.assistant(probes.CONTENT)], tools=probes.render_tools(renderer), **mode)
    at = turn.rfind(probes.CONTENT)
    return first_token(turn[at + len(probes.CONTENT) :]) if at >= 0 else ""


def roundtrip(template: dict, renderer: Renderer, mode: dict | None = None, stops=()) -> RoundTrip:
    """`stops`: markers that end a turn besides the content turn's own (what infer found after calls)."""
    from .core import thinking_modes

    mode = mode or {}
    modes = thinking_modes(renderer.chat_template)
    report = RoundTrip()
    try:
        module = compile_template(template, name="inferred")
    except TemplateError as error:
        report.error = f"the template does not compile: {error}"
        return report
    fields = template.get("fields", {}) if isinstance(template, dict) else {}
    has = {"reasoning": any(k in fields for k in probes.REASONING_KEYS), "tools": "tool_calls" in fields}
    try:
        eot = end_of_turn(renderer, mode)
    except RenderError as error:
        report.error = f"the content probe does not render: {error}"
        return report
    for name, content, reasoning, calls, needs in probes.VALIDATION:
        missing = [need for need in needs if not has[need]]
        if missing:
            report.skipped.append((name, f"the template has no {' or '.join(missing)} field"))
            continue
        message = probes.assistant(content, reasoning, calls)
        try:
            pairs = probe_text(renderer, message, mode, eot, modes, stops)
        except RenderError as error:
            report.skipped.append((name, f"does not render: {error}"))
            continue
        if not pairs:
            report.skipped.append((name, "no generation prompt renders"))
            continue
        shown = pairs[0][0] + pairs[0][1]
        unseen = [v for v in (content, reasoning) if v and v.split()[0] not in shown]
        unseen += [c["name"] for c in calls if c["name"] not in shown]
        if unseen:
            report.skipped.append((name, f"the chat template does not show {unseen[0]!r} in this turn"))
            continue
        want = probes.expected(content, reasoning, calls)
        first = None
        for prefix, output in pairs:
            try:
                got = normalise(module.parse_response(output, prefix=prefix, tools=probes.TOOLS))
            except (ValueError, KeyError, TypeError) as error:
                result = ProbeResult(name, False, f"{type(error).__name__}: {error}", prefix, output)
            else:
                ok = got == want
                detail = (
                    ""
                    if ok
                    else f"got {json.dumps(got, ensure_ascii=False)}, want {json.dumps(want, ensure_ascii=False)}"
                )
                result = ProbeResult(name, ok, detail, prefix, output)
            first = first or result
            if result.ok:
                first = result
                break
        report.results.append(first)
    return report
