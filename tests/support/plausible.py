"""Plausible outputs composed from a template's own pieces, for the no-crash
property (tests/templates/test_plausible.py).

A piece is a complete model turn the template is known to read: a
hand-checked sample that parses, or a chat-template round-trip render
(tests/support/roundtrip.py), with its end-of-turn marker taken off. A
composition strings pieces of the same prompt together the way models
really write: text before, between and after them, a piece repeated
(repeated reasoning, parallel call blocks), an empty piece, and at most one
end-of-turn marker at the end. A cut-off composition is one cut anywhere,
inside a delimiter or a body.
"""

from __future__ import annotations

import os

from hypothesis import strategies as st

from roundtrip import CHAT_TEMPLATES, PROBES, generation, load_mapping
from samples import SAMPLES_DIR, load_samples

EXAMPLES = int(os.environ.get("PLAUSIBLE_EXAMPLES", "25"))

# End-of-turn markers of the bundled families (a composition places one at its end only).
END_OF_TURN = sorted(
    {
        "<|im_end|>",
        "<|endoftext|>",
        "<|end|>",
        "<|eot_id|>",
        "<|eom_id|>",
        "<|eot|>",
        "</s>",
        "<seed:eos>",
        "<｜end▁of▁sentence｜>",
        "<|return|>",
        "<turn|>",
        "<|END_OF_TURN_TOKEN|>",
        "<|end_of_text|>",
        "<|eos|>",
        "[e~[",
        "<|assistant_end|>",
        "<|user|>",
        "<|observation|>",
        "<end_of_turn>",
        "<|im_end|>\n",
    },
    key=len,
    reverse=True,
)

# Markers after which a model stops (a call that waits for its result), kept in the piece.
STOPS = ("<|call|>",)

WORDS = ["Sure.", "Done", "The answer is 42.", "ok", "Let me think.", "Résumé: ça va", "x = 1;", "\n", " "]


def strip_end(text: str) -> tuple[str, str]:
    """(text without its trailing end-of-turn markers, the markers)."""
    end = ""
    changed = True
    while changed:
        changed = False
        stripped = text.rstrip()
        for marker in END_OF_TURN:
            if stripped.endswith(marker.strip()):
                end = marker.strip() + end
                text = stripped[: -len(marker.strip())]
                changed = True
                break
    return text, end


def pieces(name: str) -> dict[str, list[tuple[str, str, list | None]]]:
    """prefix -> [(piece without end of turn, its end-of-turn text, tools)]."""
    out: dict[str, list] = {}
    if (SAMPLES_DIR / f"{name}.json").is_file():
        for sample in load_samples(name):
            if "expected" in sample and "cut" not in sample["id"]:
                body, end = strip_end(sample["output"])
                out.setdefault(sample["prefix"], []).append((body, end, sample.get("tools")))
    if CHAT_TEMPLATES.is_dir():
        from roundtrip import TOOLS

        for entry in load_mapping()["templates"].get(name, []):
            for probe_name, probe in PROBES.items():
                if probe_name in entry.get("explained", {}):
                    continue
                try:
                    prefix, text = generation(entry, probe)
                except Exception:  # noqa: BLE001 - renders that fail are covered by the round-trip test
                    continue
                body, end = strip_end(text)
                out.setdefault(prefix, []).append((body, end, TOOLS))
    return {prefix: items for prefix, items in out.items() if items}


@st.composite
def compositions(draw, groups: dict[str, list]):
    """(prefix, text, tools, cut): a plausible output, possibly cut off."""
    prefix = draw(st.sampled_from(sorted(groups)))
    items = groups[prefix]
    # A prompt that pre-writes part of a call (`{"name": ..., "parameters": `) takes one piece.
    most = 1 if prefix.rstrip().endswith((":", "{", ",", "[", "(")) else 4
    chosen = draw(st.lists(st.sampled_from(items), min_size=1, max_size=most))
    tools = next((tools for _, _, tools in chosen if tools), None)
    parts = []
    for body, _, _ in chosen:
        # Nothing may come before a piece that continues a call the prompt opened.
        parts.append(draw(st.sampled_from(["", "", "\n"] + WORDS)) if most > 1 else "")
        parts.append(body)
    parts.append(draw(st.sampled_from(["", ""] + WORDS)))
    text = ""
    for part in parts:
        if text.rstrip().endswith(STOPS):
            break
        # Formats without a closing tag end a JSON or pythonic call at its
        # last bracket: models start what follows on a new line.
        if part and text.rstrip(" ").endswith(("}", "]", ")")) and not part.startswith("\n"):
            part = "\n" + part
        text += part
    ends = [end for _, end, _ in chosen if end]
    if ends and not text.rstrip().endswith(STOPS) and draw(st.booleans()):
        text += ends[-1]
    cut = draw(st.booleans())
    if cut and text:
        text = text[: draw(st.integers(0, len(text) - 1))]
    return prefix, text, tools, cut
