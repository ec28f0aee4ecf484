"""Infer a response template from renders of probe conversations.

Each part comes from a pair of renders that differ in one thing:
- start anchor: the conversation rendered with and without the generation
  prompt (in every thinking mode the template has; their common start);
- end of turn: what follows the content in the content-only turn;
- reasoning: the turn with reasoning against the turn without;
- tool calls: no call, one call, two calls (see calls.py).
A part that cannot be inferred is reported with its probe pair, renders and
reason, and left out of the template.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from . import probes
from .calls import CallError, analyse, tool_field
from .diff import OPENERS, common_prefix, escape, first_token, loose, snap_left, split_markers
from .sandbox import Renderer, RenderError


class InferError(Exception):
    """Nothing can be inferred: the chat template fails on the basic probes."""


@dataclass
class Finding:
    part: str
    probes: str
    reason: str
    renders: list[str] = field(default_factory=list)

    def __str__(self) -> str:
        shown = "".join(f"\n    render: {text!r}" for text in self.renders)
        return f"{self.part}: not inferred ({self.probes}): {self.reason}{shown}"


@dataclass
class Inferred:
    template: dict
    findings: list[Finding]
    explain: list[str]
    mode: dict  # template kwargs used for the inference renders
    prompt_tail: str  # generation prompt after the anchor (pre-opened reasoning)
    end_of_turn: str
    parts: dict  # part -> short description
    enders: list[str] = field(default_factory=list)  # markers that end a turn (the content turn's and others)


def thinking_modes(chat_template: str) -> list[dict]:
    modes = [{}]
    for switch in ("enable_thinking", "thinking"):
        if re.search(r"(?<![.\w'\"])" + switch + r"\b", chat_template):
            modes += [{switch: True}, {switch: False}]
    return modes


class Inference:
    def __init__(self, renderer: Renderer, extra_stops: tuple[str, ...] = ()):
        self.renderer = renderer
        self.extra_stops = list(extra_stops)  # the eos token, when the source names it
        self.findings: list[Finding] = []
        self.explain: list[str] = []
        self.parts: dict[str, str] = {}
        self.empty_section = ""  # regex of a call section with no call in it
        self.call_lead = ""  # regex of the marker that opens a call (or the call section), when it is a marker

    def stop_regex(self, stops=None) -> str:
        """The markers that end the turn, as one regex (longest first)."""
        stops = sorted(self.stops if stops is None else stops, key=len, reverse=True)
        return stops and (escape(stops[0]) if len(stops) == 1 else "(?:" + "|".join(map(escape, stops)) + ")") or ""

    def content_close(self) -> str:
        """Content ends at a stop marker. After the turn's own end marker (or the eos token) the message is over:
        what a model writes after it (`<|im_end|>` then `<|endoftext|>`) is swallowed by the close. An empty
        call section right before the end (`<tool_calls>` alone, `[TOOL_CALLS][]`) is no call and goes too."""
        enders = self.stops[: self.enders]
        others = self.stops[self.enders :]
        empty = self.empty_section
        close = r"\s*" + (r"(?:" + empty + r"\s*)?" if empty else "") + self.stop_regex(enders) + r"[\s\S]*"
        if empty:
            close += r"|\s*" + empty + r"\s*\Z"
        if others:
            close += r"|\s*" + self.stop_regex(others)
        return close

    def log(self, label: str, text: str) -> None:
        self.explain.append(f"{label}: {text!r}")

    def render(self, messages, mode, *, gen=False) -> str:
        return self.renderer.render(
            messages, tools=probes.render_tools(self.renderer), add_generation_prompt=gen, **mode
        )

    # -- the turn after the anchor -------------------------------------------------
    def prompt(self, mode: dict) -> tuple[str, str]:
        """(conversation without the generation prompt, with it)."""
        bare = self.render([probes.USER], mode)
        full = self.render([probes.USER], mode, gen=True)
        return bare, full

    def turn(self, message: dict, mode: dict) -> str:
        """The assistant turn after the start anchor, for one message."""
        text = self.render([probes.USER, message], mode)
        bare = self.bare[self._key(mode)]
        anchor = self.anchor
        start = max(0, common_prefix(text, bare) - len(anchor))
        pos = text.find(anchor, start)
        while pos < 0 and anchor.strip():
            # This turn does not show the anchor's last marker (a `<think>` only content turns get): shorten it.
            anchor = anchor[: snap_left(anchor, len(anchor.rstrip()) - 1)]
            pos = text.find(anchor, start) if anchor.strip() else -1
        if pos < 0:
            raise RenderError(
                "render", f"the assistant turn does not contain the start anchor {self.anchor!r}: {text[-300:]!r}"
            )
        return text[pos + len(anchor) :]

    @staticmethod
    def _key(mode: dict) -> str:
        return repr(sorted(mode.items()))

    # -- the parts -------------------------------------------------------------------
    def run(self) -> Inferred:
        chat = self.renderer.chat_template
        modes = thinking_modes(chat)
        self.bare, prompts = {}, {}
        for mode in modes:
            try:
                bare, full = self.prompt(mode)
            except RenderError as error:
                if not mode:
                    try:
                        # Some templates fail on the tool schemas alone (a filter transformers lacks): render without.
                        self.renderer.probe_tools = None
                        bare, full = self.prompt(mode)
                    except RenderError:
                        raise InferError(f"the user-only conversation does not render: {error}") from None
                    self.findings.append(
                        Finding(
                            "tools in the prompt",
                            "user turn with / without tools",
                            f"renders only without tools: {error}",
                        )
                    )
                else:
                    continue
            self.bare[self._key(mode)] = bare
            prompts[self._key(mode)] = full[common_prefix(full, bare) :]
            self.log(f"generation prompt {mode or 'default'}", prompts[self._key(mode)])
        modes = [mode for mode in modes if self._key(mode) in prompts]
        base = prompts[self._key({})]
        if not base.strip():
            # No generation prompt (Mistral's `[INST]...[/INST]`): the assistant turn starts where the user's ends.
            bare = self.bare[self._key({})]
            at = bare.rfind(probes.USER["content"])
            base = bare[at + len(probes.USER["content"]) :].strip() if at >= 0 else ""
            if not base:
                raise InferError(
                    "rendering with add_generation_prompt=True adds nothing and nothing follows the user's text "
                    f"(pair: user turn with and without the generation prompt); no start anchor. Render: {bare[-200:]!r}"
                )
            prompts = {key: base + value for key, value in prompts.items()}
            self.bare = {
                key: value[: len(value) - len(base)] if value.endswith(base) else value
                for key, value in self.bare.items()
            }
            self.parts["generation prompt"] = "none; the anchor is what ends the user turn"
        anchor = base
        for mode in modes:
            anchor = anchor[: snap_left(anchor, common_prefix(anchor, prompts[self._key(mode)]))]
        if not anchor.strip():
            anchor = base
        self.anchor = self._align(anchor)
        self.prompts = prompts

        content_turn, mode, eot = self._content(modes)
        self.content_turn = content_turn
        self.stops = [stop for stop in dict.fromkeys([eot, *self.extra_stops]) if stop]
        self.enders = len(self.stops)  # the turn's own end marker and the eos token; later stops end content only
        self.mode = mode
        reasoning = self._reasoning(modes, content_turn)
        if reasoning is not None:
            open_, close, self.mode = reasoning
            mode = self.mode
            if open_ in self.anchor:
                self.anchor = self.anchor[: self.anchor.index(open_)]
                if not self.anchor.strip():
                    raise InferError("the generation prompt is only the reasoning opener; no start anchor")
        self.reasoning_pair = reasoning[:2] if reasoning is not None else None
        tools = self._tools(mode, eot)
        content_open = self._content_opener(content_turn, reasoning)
        if reasoning is not None and content_open and reasoning[1].endswith(content_open):
            reasoning = (reasoning[0], reasoning[1][: -len(content_open)].strip(), reasoning[2])
            self.parts["reasoning"] += f"; the content opener {content_open!r} is not part of the close"

        fields = {}
        if reasoning is not None:
            close = r"\s*" + escape(reasoning[1])
            markers = split_markers(reasoning[1])
            if len(markers) > 1 and _marker(markers[0]):
                # A closer of several markers (`<|end|><|start|>assistant`): a model that stops after the first
                # one (its stop token) ends the reasoning there.
                close += r"|\s*" + escape(markers[0]) + r"\s*\Z"
            if self.call_lead:
                # A call's opening marker ends unclosed reasoning: models start calls without closing it.
                close += r"|(?=\s*" + self.call_lead + ")"
                self.parts["reasoning"] += "; a call's opening marker also ends it"
            fields["reasoning_content"] = {
                "open_pattern": r"\s*" + escape(reasoning[0]),
                "close_pattern": close,
                "content": "text",
            }
        if tools is not None:
            fields["tool_calls"] = tools
        content = {"content": "text", "repeats": True, "join": "\n"}
        if self.stops:
            content = {"close_pattern": self.content_close(), **content}
        if content_open:
            # The template wraps content in markers (`<|START_TEXT|>`...): an explicit field; text outside drops.
            content = {"open_pattern": r"\s*" + escape(content_open), **content}
            self.parts["content"] = f"opened by {content_open!r}"
        fields["content"] = content
        anchors = [self.anchor] + self._tool_result_anchors(mode)
        if reasoning is not None and content_turn.lstrip().startswith(reasoning[1]):
            # The template writes a turn without reasoning as the closer alone (`</think>answer`): a prompt
            # that pre-writes it ends there.
            anchors.insert(0, self.anchor + reasoning[1])
        if reasoning is not None:
            for key, prompt in prompts.items():
                tail = prompt[len(self.anchor) :] if prompt.startswith(self.anchor) else ""
                if tail.strip() and tail.strip().startswith(reasoning[1]) and reasoning[0] not in tail:
                    anchors.insert(0, self.anchor + tail.rstrip())
        anchors = list(dict.fromkeys(anchors))
        self.parts["start_anchor"] = repr(anchors[0] if len(anchors) == 1 else anchors)
        template = {
            "version": 1,
            "defaults": {"role": "assistant"},
            "start_anchor": anchors[0] if len(anchors) == 1 else anchors,
            "fields": fields,
        }
        tail = (
            prompts[self._key(self.mode)][len(self.anchor) :]
            if prompts[self._key(self.mode)].startswith(self.anchor)
            else ""
        )
        enders = self.stops[: self.enders]
        return Inferred(template, self.findings, self.explain, self.mode, tail, eot, self.parts, enders)

    def _align(self, anchor: str) -> str:
        """Drop trailing markers of the anchor that the history turn does not show (a pre-opened `<think>`)."""
        try:
            text = self.render([probes.USER, probes.assistant(probes.CONTENT)], {})
        except RenderError as error:
            raise InferError(f"a conversation with an assistant turn does not render: {error}") from None
        shared = common_prefix(text, self.bare[self._key({})])
        start = max(0, shared - len(anchor))
        # The anchor must start where the assistant turn leaves the user-only render, not later (a template
        # that always ends with a generation prompt shows it again after the turn).
        while anchor.strip() and not 0 <= text.find(anchor, start) <= shared:
            anchor = anchor[: snap_left(anchor, len(anchor.rstrip()) - 1)]
        if not anchor.strip():
            raise InferError(
                "renders no assistant turn after the generation prompt (pair: user turn with the generation prompt / "
                f"user + assistant turn): {text[-300:]!r}"
            )
        return anchor

    def _content(self, modes):
        message = probes.assistant(probes.CONTENT)
        try:
            turn = self.turn(message, {})
        except RenderError as error:
            raise InferError(f"a conversation with an assistant turn does not render: {error}") from None
        self.log("content turn", turn)
        at = turn.find(probes.CONTENT)
        if at < 0:
            raise InferError(
                "renders no assistant turn: the assistant's content does not appear in the render "
                f"(pair: user turn / user + assistant turn). Render after the anchor: {turn[:300]!r}"
            )
        eot = first_token(turn[at + len(probes.CONTENT) :])
        if not eot:
            # Nothing closes the turn (GLM): it ends where the next user turn starts.
            try:
                turn2 = self.render([probes.USER, message, {"role": "user", "content": "USERAGAIN"}], {})
                at2 = turn2.rfind(probes.CONTENT)
                eot = first_token(turn2[at2 + len(probes.CONTENT) :].split("USERAGAIN")[0])
                self.log("content turn then a user turn", turn2[at2:])
            except RenderError:
                eot = ""
        self.parts["end_of_turn"] = repr(eot) if eot else "none (content runs to the end of generation)"
        if not eot:
            self.findings.append(
                Finding("end of turn", "content turn", "nothing follows the content in the render", [turn])
            )
        return turn, {}, eot

    def _reasoning(self, modes, content_turn):
        tried = []
        thinking = [m for m in modes if m.get("enable_thinking", m.get("thinking", True)) is not False]
        # Reasoning under reasoning_content (transformers aliases the other keys to it), then as a thinking part
        # of a content list (`[{"type": "thinking", "thinking": ...}, {"type": "text", ...}]`).
        for message, mode in [(probes.assistant(probes.CONTENT, probes.REASONING), m) for m in thinking] + [
            (probes.thinking_parts(), m) for m in thinking
        ]:
            try:
                turn = self.turn(message, mode)
            except RenderError as error:
                tried.append(f"{mode or 'default'}: {error}")
                continue
            self.log(f"reasoning turn {mode or 'default'}", turn)
            r, c = turn.find(probes.REASONING), turn.find(probes.CONTENT)
            if r < 0 or c < r or "'type'" in turn or '"type"' in turn:
                # (a content list printed as a Python or JSON value is not a rendering of its parts)
                tried.append(turn)
                continue
            before, between = turn[:r], turn[r + len(probes.REASONING) : c]
            prompt_tail = self.prompts[self._key(mode)][len(self.anchor) :]
            open_ = before.strip() or prompt_tail.strip()
            if not open_ and between.strip():
                # The anchor ends with the opener (every mode's prompt opens reasoning): split it off.
                cut = snap_left(self.anchor, len(self.anchor.rstrip()) - 1)
                if self.anchor[:cut].strip():
                    open_ = self.anchor[cut:].strip()
            close = between.strip()
            if not open_ or not close:
                missing = "opener" if not open_ else "closer"
                self.findings.append(
                    Finding(
                        "reasoning",
                        f"content turn / reasoning turn {mode or 'default'}",
                        f"no {missing} marker around the reasoning text",
                        [content_turn, turn],
                    )
                )
                return None
            self.parts["reasoning"] = f"open {open_!r}, close {close!r} (mode {mode or 'default'})"
            return open_, close, mode
        switched = (
            self._reasoning_beside_calls(thinking)
            or self._reasoning_from_switch(modes)
            or self._reasoning_from_prompt(modes)
        )
        if switched is not None:
            return switched
        head = split_markers(content_turn[: content_turn.find(probes.CONTENT)])
        if len(head) == 2:
            # History drops reasoning but writes an empty pair before the content (`<think></think>`).
            self.parts["reasoning"] = f"open {head[0]!r}, close {head[1]!r} (the empty pair the history writes)"
            return head[0], head[1], {}
        self.parts["reasoning"] = "none: the template does not render reasoning_content in the last turn"
        self.findings.append(
            Finding(
                "reasoning",
                "content turn / reasoning turn in every thinking mode",
                "the reasoning text does not appear before the content in any render",
                [content_turn] + tried[:2],
            )
        )
        return None

    def _reasoning_from_switch(self, modes):
        """History drops reasoning, but the thinking switch changes the generation prompt:
        on, it opens reasoning (`<think>`); off, it opens and closes it (`<think></think>`) or only closes it."""
        for switch in ("enable_thinking", "thinking"):
            on, off = self._key({switch: True}), self._key({switch: False})
            if on not in self.prompts or off not in self.prompts:
                continue
            prompt_on, prompt_off = self.prompts[on], self.prompts[off]
            extra = split_markers(prompt_off[len(prompt_on) :]) if prompt_off.startswith(prompt_on) else []
            if len(extra) >= 2:
                # on: `A`, off: `A<think></think>`: the off prompt opens and closes reasoning.
                tail_on, close, anchor = extra[0], extra[-1], self.anchor
            elif len(extra) == 1 and prompt_on.strip():
                # on: `A<think>`, off: `A<think></think>`: the opener is the last marker of the on prompt.
                start = snap_left(prompt_on, len(prompt_on.rstrip()) - 1)
                tail_on, close = prompt_on[start:].strip(), extra[0]
                anchor = prompt_on[:start]
            else:
                tail_on = prompt_on[len(self.anchor) :].strip()
                tail_off = prompt_off[len(self.anchor) :].strip()
                close = (tail_off[len(tail_on) :] if tail_off.startswith(tail_on) else tail_off).strip()
                anchor = self.anchor
            if not tail_on or not close or close == tail_on or not anchor.strip():
                continue
            self.anchor = anchor
            self.log(f"{switch}=True prompt", prompt_on)
            self.log(f"{switch}=False prompt", prompt_off)
            self.parts["reasoning"] = (
                f"open {tail_on!r}, close {close!r} (from the {switch} switch: the history drops reasoning)"
            )
            return tail_on, close, {switch: True}
        return None

    def _reasoning_beside_calls(self, modes):
        """Reasoning rendered only in turns with calls (a plan before the calls): the call turn with reasoning is
        the call turn without it, with the reasoning text inserted between an opener and a closer."""
        for mode in modes:
            try:
                with_reasoning = self.turn(probes.assistant("", probes.REASONING, [probes.CALL_A]), mode)
                without = self.turn(probes.assistant("", calls=[probes.CALL_A]), mode)
            except RenderError:
                continue
            r, n = with_reasoning.find(probes.REASONING), with_reasoning.find(probes.CALL_A["name"])
            if r < 0 or n < r:
                continue
            before, after = with_reasoning[:r], with_reasoning[r + len(probes.REASONING) :]
            markers = split_markers(before)
            if before + after != without or not markers:
                continue
            open_, close = markers[-1], first_token(after)
            if not _marker(open_) or not _marker(close):
                continue
            self.log(f"call turn with reasoning {mode or 'default'}", with_reasoning)
            self.parts["reasoning"] = f"open {open_!r}, close {close!r} (mode {mode or 'default'}; only beside calls)"
            return open_, close, mode
        return None

    def _reasoning_from_prompt(self, modes):
        """The generation prompt ends with an opener (`<think>`) the history turn does not show: the turn is
        written after it. Its closer is the opener's closing form (`</think>`, `[/THINK]`), confirmed by a history
        turn whose content holds reasoning, the closer, then the answer: the template drops what precedes it."""
        for mode in [m for m in modes if m.get("enable_thinking", m.get("thinking", True)) is not False]:
            prompt = self.prompts.get(self._key(mode), "")
            tail = prompt[len(self.anchor) :] if prompt.startswith(self.anchor) else ""
            markers = split_markers(tail)
            if len(markers) != 1:
                continue
            opener = markers[0]
            shape = re.fullmatch(r"(<\|?|\[)(\w[\w:.-]*)(\|?>|\])", opener)
            if not shape:
                continue
            closer = shape.group(1) + "/" + shape.group(2) + shape.group(3)
            written = probes.assistant(f"{probes.REASONING}{closer}\n\n{probes.CONTENT}")
            try:
                turn = self.turn(written, mode)
            except RenderError:
                continue
            self.log(f"content holding reasoning and {closer!r}", turn)
            if probes.CONTENT in turn and probes.REASONING not in turn:
                self.parts["reasoning"] = (
                    f"open {opener!r}, close {closer!r} (the generation prompt opens it; the history drops what "
                    f"precedes {closer!r})"
                )
                return opener, closer, mode
        return None

    def _content_opener(self, content_turn: str, reasoning) -> str:
        """What the history writes before the content, besides an (empty) reasoning block."""
        head = content_turn[: content_turn.find(probes.CONTENT)].strip()
        if reasoning is not None:
            if head.startswith(reasoning[0]):
                head = head[len(reasoning[0]) :].strip()
            if head.startswith(reasoning[1]):
                head = head[len(reasoning[1]) :].strip()
            elif reasoning[1].endswith(head):
                return head  # the reasoning closer ran into the content opener
        if not head:
            return ""
        try:
            with_call = self.turn(probes.assistant(probes.CONTENT, calls=[probes.CALL_A]), {})
        except RenderError:
            return head
        at = with_call.find(probes.CONTENT)
        if at >= 0 and not with_call[:at].rstrip().endswith(head):
            self.findings.append(
                Finding(
                    "content opener",
                    "content turn / content and call turn",
                    f"the history writes {head!r} before content, but not when the turn has a call: it stays in content",
                    [content_turn, with_call],
                )
            )
            return ""
        return head

    def _tool_result_anchors(self, mode) -> list[str]:
        """Where the assistant turn starts after a tool result: its generation prompt, or (none) the end of the result."""
        message = probes.assistant("", calls=[probes.CALL_A])
        conversation = [probes.USER, message, _tool_result(message)]
        try:
            bare = self.render(conversation, mode)
            full = self.render(conversation, mode, gen=True)
        except RenderError:
            return []
        prompt = full[common_prefix(full, bare) :]
        if not prompt.strip():
            at = bare.rfind("TOOLRESULT")
            prompt = bare[at + len("TOOLRESULT") :].strip() if at >= 0 else ""
            markers = split_markers(prompt)
            if markers and any(char in prompt for char in '"{}') and _marker(markers[-1]):
                # The result's own closing marker, after the end of its value (`...}<tool_response|>`).
                prompt = markers[-1]
        else:
            prompt = prompt[: len(prompt) - len(prompt.lstrip()) + len(prompt.strip())] if prompt.strip() else ""
            if self.anchor in prompt:
                return []
        self.log("generation prompt after a tool result", prompt)
        usable = prompt.strip() and self.anchor.strip() not in prompt and prompt.strip() not in self.stops
        if usable and not any(char in prompt for char in '"{}') and "TOOLRESULT" not in prompt:
            self.parts["start_anchor after a tool result"] = repr(prompt)
            return [prompt]
        return []

    def _stop_after_call(self, turn, one_text: str, mode) -> None:
        """What follows a call turn when a tool result comes next (GLM's `<|observation|>`) also ends a turn."""
        message = probes.assistant("", calls=[probes.CALL_A])
        try:
            text = self.render([probes.USER, message, _tool_result(message)], mode)
        except RenderError:
            return
        at = text.find("TOOLRESULT")
        start = text.find(one_text) if one_text else -1
        if at < 0 or start < 0 or start + len(one_text) > at:
            return
        stop = first_token(text[start + len(one_text) : at])
        self.log("after a call, before the tool result", text[start + len(one_text) : at])
        if _marker(stop) and stop not in self.stops and "TOOLRESULT" not in stop:
            self.stops.append(stop)
            self.parts["end_of_turn"] += f", {stop!r} (before a tool result)"

    def _tools(self, mode, eot):
        last_reason = "no render"
        renders: list[str] = []
        for id_style, string_args in ((0, False), (1, False), (0, True)):

            def turn(calls):
                return self.turn(probes.assistant("", calls=calls, id_style=id_style, string_args=string_args), mode)

            try:
                one = turn([probes.CALL_A])
            except RenderError as error:
                last_reason = f"a turn with tool calls does not render: {error}"
                continue
            try:
                zero = turn([])
            except RenderError:
                zero = ""  # an empty turn is refused (Mistral): nothing to subtract
            try:
                two = turn([probes.CALL_A, probes.CALL_B])
            except RenderError as error:
                self.log("two calls do not render", str(error))
                two = None
            renders = [zero, one] + ([two] if two is not None else [])
            if one == zero:
                last_reason = "the chat template ignores tool calls (the turn with a call renders as the turn without)"
                continue
            if probes.CALL_A["name"] not in one:
                last_reason = "the call's name does not appear in the render"
                continue
            zero_t, one_t = _before_eot(zero, eot), _before_eot(one, eot)
            two_t = _before_eot(two, eot) if two is not None else None
            start = common_prefix(zero_t, one_t)
            # The content turn without its content: an empty turn may print an empty call section.
            try:
                emptied = self.turn(probes.assistant(probes.CONTENT), mode).replace(probes.CONTENT, "")
                start = min(start, common_prefix(_before_eot(emptied, eot), one_t))
            except RenderError:
                pass
            if two_t is not None:
                start = min(start, common_prefix(zero_t, two_t))
            start = snap_left(one_t, start)
            self.log("one call", one_t[start:])
            if two_t is not None:
                self.log("two calls", two_t[start:])
            self._stop_after_call(turn, one_t, mode)
            try:
                spec = analyse(one_t[start:], two_t[start:] if two_t is not None else None)
                if self.reasoning_pair:
                    # An empty reasoning pair the call turn writes before its calls is reasoning, not a call marker.
                    pair = re.match(
                        r"\s*" + escape(self.reasoning_pair[0]) + r"\s*" + escape(self.reasoning_pair[1]),
                        spec.section_open,
                    ) or re.match(
                        r"\s*" + escape(self.reasoning_pair[0]) + r"\s*" + escape(self.reasoning_pair[1]),
                        spec.call_open,
                    )
                    if pair and spec.section_open.startswith(pair.group()):
                        spec.section_open = spec.section_open[pair.end() :]
                    elif pair and not spec.section_open.strip():
                        spec.call_open = spec.call_open[pair.end() :]
                for stop in [*self.stops, self.anchor.strip()]:
                    # A section close that runs into the turn's end (`<｜tool▁calls▁end｜><｜end▁of▁sentence｜>`)
                    # or into the next turn's start ends before it.
                    at = spec.section_close.find(stop) if stop else -1
                    if at > 0 and spec.section_close[:at].strip():
                        spec.section_close, rest = spec.section_close[:at], spec.section_close[at:]
                        ender = first_token(rest)
                        if stop not in self.stops and _marker(ender) and ender not in self.stops:
                            # What starts the next turn ends this one.
                            self.stops.insert(self.enders, ender)
                            self.enders += 1
                            self.parts["end_of_turn"] += f", {ender!r} (where the next turn starts after calls)"
                closing = spec.section_close.strip()
                if spec.fmt != "json-list" and _marker(closing) and closing not in self.stops:
                    # What ends a call section ends the turn too (Gemma's `<|tool_response>` after text).
                    self.stops.append(closing)
                built = tool_field(spec, self.stop_regex())
            except CallError as error:
                last_reason = str(error)
                renders = [one_t[start:]] + ([two_t[start:]] if two_t is not None else [])
                break
            self.parts["tool_calls"] = spec.describe()
            lead = (spec.section_open.strip() or spec.call_open.strip()) if spec.fmt != "json-list" else ""
            lead = lead or (spec.section_open.strip() if spec.fmt == "json-list" else "")
            if _marker(first_token(lead)):
                self.call_lead = loose(lead)
            if spec.section_open.strip() and _marker(first_token(spec.section_open.strip())):
                self.empty_section = loose(spec.section_open.strip())
                if spec.section_close.strip():
                    self.empty_section += r"(?:\s*" + loose(spec.section_close.strip()) + ")?"
            return built
        self.parts["tool_calls"] = f"none: {last_reason}"
        self.findings.append(Finding("tool calls", "no call / one call / two calls", last_reason, renders))
        return None


def _marker(text: str) -> bool:
    """A special-token-like marker (`<|observation|>`, `[TOOL_RESULTS]`), not JSON punctuation."""
    return bool(text) and text[0] in OPENERS and any(char.isalnum() for char in text)


def _tool_result(calls_message: dict) -> dict:
    first = calls_message["tool_calls"][0]
    return {"role": "tool", "tool_call_id": first["id"], "name": first["function"]["name"], "content": "TOOLRESULT"}


def _before_eot(turn: str, eot: str) -> str:
    if eot:
        at = turn.rfind(eot)
        if at >= 0:
            return turn[:at]
    return turn.rstrip()


def infer_template(renderer: Renderer, extra_stops: tuple[str, ...] = ()) -> Inferred:
    return Inference(renderer, extra_stops).run()
