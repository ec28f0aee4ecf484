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

Markers inside values: models write code and documentation that quote
their own format, so a string argument, the content or the reasoning may
hold a delimiter of the template (`<tool_call>` inside a JSON string,
`</parameter>` inside a value, half a marker). `markers` lists a
template's literal delimiter texts; `marked_candidates` finds, in each
piece, a string value of the message it parses to and where that value
sits in the text; `marked_compositions` puts a marker (or a prefix of
one) inside such a value, as the piece alone (whose message is then known:
the piece's own with the value changed) or among other pieces, and puts
markers in the filler text between pieces.
"""

from __future__ import annotations

import copy
import json
import os
from dataclasses import dataclass

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
        "<|plamo:tag|>",
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


# ---------------------------------------------------------------------------
# Markers inside values
# ---------------------------------------------------------------------------


def _literal_runs(pattern: str) -> set[str]:
    """The runs of literal characters in a regex delimiter (`<tool_call>`, `</parameter>`)."""
    from compiler.regex.nodes import Char, Concat, children, root_of
    from compiler.regex.syntax import parse

    out: set[str] = set()

    def visit(node):
        if isinstance(node, Concat):
            run = ""
            for item in node.items:
                if isinstance(item, Char):
                    run += item.char
                    continue
                if run:
                    out.add(run)
                run = ""
                visit(item)
            if run:
                out.add(run)
        elif isinstance(node, Char):
            out.add(node.char)
        else:
            for child in children(node):
                visit(child)

    visit(root_of(parse(pattern)))
    return out


def markers(template: dict) -> list[str]:
    """A template's literal delimiter texts of three characters or more that are not plain words."""
    found: set[str] = set()
    for value in [template.get("start_anchor")] + [
        field.get(key) for field in template["fields"].values() for key in ("open", "close")
    ]:
        for literal in [value] if isinstance(value, str) else value or []:
            found.add(literal)
    patterns = [template.get("start_anchor_pattern")]
    for field in template["fields"].values():
        patterns += [field.get("open_pattern"), field.get("close_pattern")]
        stack = [field.get("content_args") or {}]
        while stack:  # content_args, and those of nested value parsers
            args = stack.pop()
            patterns.append(args.get("tag_pattern"))
            for pair in args.get("string_delims") or []:
                found.update(pair)
            nested = (args.get("value_parser") or {}).get("args")
            if nested:
                stack.append(nested)
    for pattern in filter(None, patterns):
        found |= _literal_runs(pattern)
    cleaned = {text.strip() for text in found}
    return sorted(text for text in cleaned if len(text) >= 3 and not text.replace("_", "").isalnum())


@dataclass(frozen=True)
class Candidate:
    """A string value of a piece's message and the one place its text sits in the piece."""

    prefix: str
    body: str
    end: str
    tools: list | None
    message: dict  # the reference's message for body + end
    path: tuple  # where the value sits in the message
    where: str  # "content", "reasoning_content" or "arguments"
    value: str
    encoding: str  # "raw" or "json": how the value is written in the body


def _encode(value: str, encoding: str) -> str:
    return value if encoding == "raw" else json.dumps(value, ensure_ascii=False)[1:-1]


def _string_leaves(message: dict):
    for key in ("content", "reasoning_content"):
        if isinstance(message.get(key), str) and message[key]:
            yield (key,), key, message[key]
    for index, call in enumerate(message.get("tool_calls") or []):
        arguments = call.get("function", {}).get("arguments") if isinstance(call, dict) else None
        stack = [(("tool_calls", index, "function", "arguments"), arguments)]
        while stack:
            path, value = stack.pop()
            if isinstance(value, dict):
                stack.extend((path + (k,), v) for k, v in value.items())
            elif isinstance(value, list):
                stack.extend((path + (i,), v) for i, v in enumerate(value))
            elif isinstance(value, str) and value:
                yield path, "arguments", value


def with_value(message: dict, path: tuple, value: str) -> dict:
    out = copy.deepcopy(message)
    node = out
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    return out


def _places(value: str) -> list[int]:
    """Where a marker goes in a value: its start, middle and end."""
    return sorted({0, len(value) // 2, len(value)})


def _reads_back(template, prefix, body, end, tools, written, encoding, message, path, probe) -> bool:
    from transformers.utils.chat_parsing import parse_response

    try:
        got = parse_response(
            body.replace(written, _encode(probe, encoding)) + end, template, prefix=prefix, tools=tools
        )
    except Exception:  # noqa: BLE001
        return False
    return got == with_value(message, path, probe)


def marked_candidates(template: dict, groups: dict[str, list]) -> list[Candidate]:
    """Every string value of every piece whose text occurs once in the piece,
    checked by putting a neutral word (with a quote) at its start, middle and end: the
    reference must then give the piece's message with that value changed,
    and nothing else."""
    from transformers.utils.chat_parsing import parse_response

    out = []
    for prefix, items in sorted(groups.items()):
        for body, end, tools in items:
            try:
                message = parse_response(body + end, template, prefix=prefix, tools=tools)
            except Exception:  # noqa: BLE001 - a piece that does not parse has no values to mark
                continue
            for path, where, value in _string_leaves(message):
                # A quote in the probe tells a JSON string (where it must be escaped) from raw text.
                for encoding in ("json", "raw"):
                    written = _encode(value, encoding)
                    if body.count(written) != 1:
                        continue
                    if all(
                        _reads_back(template, prefix, body, end, tools, written, encoding, message, path, probe)
                        for probe in {value[:at] + 'z"q' + value[at:] for at in _places(value)}
                    ):
                        out.append(Candidate(prefix, body, end, tools, message, path, where, value, encoding))
                        break
    return out


def _spells(text: str, start: int, length: int, marks: list[str]) -> bool:
    """Whether a whole marker occurs in `text` overlapping text[start:start + length]."""
    for mark in marks:
        at = text.find(mark, max(0, start - len(mark) + 1))
        while 0 <= at < start + length:
            if at + len(mark) > start:
                return True
            at = text.find(mark, at + 1)
    return False


@st.composite
def marked_text(draw, marks: list[str]) -> tuple[str, str]:
    """(a marker or a prefix of one, the full marker)."""
    mark = draw(st.sampled_from(marks))
    cut = draw(st.sampled_from([len(mark), len(mark), max(1, len(mark) // 2), len(mark) - 1]))
    return mark[:cut], mark


@st.composite
def marked_compositions(draw, candidates: list[Candidate], groups: dict[str, list], marks: list[str]):
    """(prefix, text, tools, cut, rendered, used): a marker (or a prefix of
    one) put inside a piece's string value; `rendered` is the message the
    text was written from when the piece stands alone, else None; `used` the
    (where, marker, partial) triples of the markers the text holds: the
    value's, and "content" for those in the filler text between pieces
    (partial: only a prefix of the marker, spelling no whole delimiter
    with the text around it)."""
    candidate = draw(st.sampled_from(candidates))
    inserted, marker = draw(marked_text(marks))
    at = draw(st.sampled_from(_places(candidate.value)))
    value = candidate.value[:at] + inserted + candidate.value[at:]
    written = _encode(candidate.value, candidate.encoding)
    body = candidate.body.replace(written, _encode(value, candidate.encoding))
    # "partial": only a prefix of the marker, and it does not spell a whole
    # delimiter with the text around it.
    start = candidate.body.index(written) + len(_encode(candidate.value[:at], candidate.encoding))
    used = [
        (
            candidate.where,
            marker,
            not _spells(body + candidate.end, start, len(_encode(inserted, candidate.encoding)), marks),
        )
    ]
    # A prompt that pre-writes part of a call takes the piece alone (as in `compositions`).
    if candidate.prefix.rstrip().endswith((":", "{", ",", "[", "(")) or draw(st.booleans()):
        return (
            candidate.prefix,
            body + candidate.end,
            candidate.tools,
            False,
            with_value(candidate.message, candidate.path, value),
            used,
        )
    # Among other pieces of the same prompt, with markers in the filler text too.
    others = groups[candidate.prefix]
    parts = [b for b, _, _ in draw(st.lists(st.sampled_from(others), max_size=2))] + [body]
    parts += [b for b, _, _ in draw(st.lists(st.sampled_from(others), max_size=1))]
    text = ""
    fillers = []  # (where in the text, the marker text written, the marker)
    for part in parts + [""]:
        if text.rstrip().endswith(STOPS):
            break  # a model waits for its tool result
        lead = draw(st.sampled_from(["", "", "\n", "See ", "x = 1; "]))
        mark = draw(marked_text(marks)) if draw(st.booleans()) else None
        chunk = lead + (mark[0] + draw(st.sampled_from(["", " ", "\n"])) if mark else "") + part
        shift = 0
        if chunk and text.rstrip(" ").endswith(("}", "]", ")")) and not chunk.startswith("\n"):
            chunk, shift = "\n" + chunk, 1
        if mark:
            fillers.append((len(text) + shift + len(lead), mark[0], mark[1]))
        text += chunk
    if not text.rstrip().endswith(STOPS) and draw(st.booleans()):
        text += candidate.end
    for at, piece, full in fillers:
        used.append(("content", full, not _spells(text, at, len(piece), marks)))
    cut = draw(st.booleans()) and bool(text)
    if cut:
        text = text[: draw(st.integers(0, len(text) - 1))]
    return candidate.prefix, text, candidate.tools, cut, None, used
