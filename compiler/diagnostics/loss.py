"""Loss made visible: which spans of a model output reach neither the parsed
message nor a delimiter.

A template can parse without error and still drop text: text routed to the
null sink (no implicit field), a non-repeating field written twice (the
earlier value is overwritten), text an `xml-inline` or `kv-lines` parser
skips, or a body whose transform never uses `content`. Whitespace is never
reported (the text parser strips it by design).

The tracer runs the reference interpreter (`transformers.utils.chat_parsing`,
the oracle the compiled parsers equal) and watches where it routes each
piece of the buffer; whatever it does not route was consumed by a delimiter.
Expected losses are explained as data in `templates_src/coverage/<template>.json`:
`{"template": NAME, "explained": [{"kind", "field", "text", "reason"}, ...]}`
where `text` is a regex the lost span must fully match (`field` optional).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field as dataclass_field
from pathlib import Path

from ..resources import TEMPLATES_DIR

EXPLANATIONS = TEMPLATES_DIR / "coverage"

KINDS = ("null-sink", "overwritten", "unparsed", "unused")


@dataclass
class Loss:
    """A span of the output (offsets into the output, prefix excluded)."""

    start: int
    end: int
    text: str
    kind: str
    field: str | None
    reason: str | None = None  # set when an explanation covers it

    def as_dict(self) -> dict:
        out = {"start": self.start, "end": self.end, "text": self.text, "kind": self.kind, "field": self.field}
        if self.reason is not None:
            out["explained"] = self.reason
        return out


@dataclass
class _Region:
    field: str
    pieces: list[tuple[int, str]] = dataclass_field(default_factory=list)


def _body_spans(pieces: list[tuple[int, str]]) -> tuple[str, list[int]]:
    """The region body and, per body character, its buffer offset."""
    body = "".join(text for _, text in pieces)
    offsets = [start + i for start, text in pieces for i in range(len(text))]
    return body, offsets


def _uses_content(transform) -> bool:
    if isinstance(transform, str):
        return transform == "{content}" or transform.startswith("{content.")
    if isinstance(transform, dict):
        return any(_uses_content(v) for v in transform.values())
    if isinstance(transform, list):
        return any(_uses_content(v) for v in transform)
    return False


def _unparsed_ranges(body: str, name: str, args: dict) -> list[tuple[int, int]]:
    """Ranges of `body` the content parser skips (non-whitespace only)."""
    if name == "xml-inline":
        import regex

        covered: list[tuple[int, int]] = []
        lost: list[tuple[int, int]] = []
        pattern = args.get("tag_pattern")
        if not pattern:
            return []
        inner = args.get("value_parser") or {}
        for m in regex.finditer(pattern, body, flags=regex.DOTALL):
            covered.append(m.span())
            if inner.get("name") in ("xml-inline", "kv-lines") and m.start("value") >= 0:
                start = m.start("value")
                for a, b in _unparsed_ranges(m.group("value"), inner["name"], inner.get("args", {})):
                    lost.append((start + a, start + b))
        lost.extend(_gaps(body, covered))
        return lost
    if name == "kv-lines":
        sep = args.get("line_sep", "\n")
        kv = args.get("kv_sep", ":")
        lost = []
        pos = 0
        for line in body.split(sep):
            if line.strip() and kv not in line:
                lost.append((pos, pos + len(line)))
            pos += len(line) + len(sep)
        return lost
    return []


def _gaps(body: str, covered: list[tuple[int, int]]) -> list[tuple[int, int]]:
    gaps = []
    pos = 0
    for start, end in sorted(covered):
        if start > pos:
            gaps.append((pos, start))
        pos = max(pos, end)
    if pos < len(body):
        gaps.append((pos, len(body)))
    return gaps


def trace(template: dict, output: str, prefix: str = "", tools=None) -> list[Loss]:
    """Every span of `output` that reaches neither the message nor a delimiter.
    Raises what the reference raises (a cut-off call, say)."""
    from transformers.utils.chat_parsing.response_parser import ResponseParser

    regions: list[_Region] = []
    lost: list[tuple[int, int, str, str | None]] = []

    class Tracer(ResponseParser):
        current_region: _Region | None = None

        def _accumulate(self, events, text):
            if text:
                if self._current is None:
                    lost.append((self._pos, self._pos + len(text), "null-sink", None))
                else:
                    if Tracer.current_region is None or Tracer.current_region.field != self._current:
                        Tracer.current_region = _Region(self._current)
                    Tracer.current_region.pieces.append((self._pos, text))
            super()._accumulate(events, text)

        def _open_explicit(self, events, field, m):
            super()._open_explicit(events, field, m)
            Tracer.current_region = _Region(field.name)

        def _close_current(self, events):
            region = Tracer.current_region
            if self._current is not None and self._opened:
                if region is None or region.field != self._current:
                    region = _Region(self._current)
                regions.append(region)
            Tracer.current_region = None
            super()._close_current(events)

    parser = Tracer(template, prefix=prefix, tools=tools)
    base = len(parser._buffer)
    parser.feed(output)
    parser.finalize()

    spec = parser._spec
    last_of: dict[str, _Region] = {}
    for region in regions:
        field = spec.fields[region.field]
        body, offsets = _body_spans(region.pieces)
        if field.transform is not None and not field.transform_each and not _uses_content(field.transform) and body.strip():
            lost.extend((offsets[i], offsets[i] + 1, "unused", region.field) for i in range(len(body)))
        for a, b in _unparsed_ranges(body, field.content, field.content_args or {}):
            lost.extend((offsets[i], offsets[i] + 1, "unparsed", region.field) for i in range(a, b))
        if not field.repeats and field.join is None:
            previous = last_of.get(region.field)
            if previous is not None:
                pbody, poffsets = _body_spans(previous.pieces)
                lost.extend((poffsets[i], poffsets[i] + 1, "overwritten", region.field) for i in range(len(pbody)))
        last_of[region.field] = region
    return _merge(lost, parser._buffer, base)


def _merge(lost, buffer: str, base: int) -> list[Loss]:
    """Per-character losses merged into spans, whitespace-only spans dropped,
    offsets made relative to the output."""
    marks: dict[int, tuple[str, str | None]] = {}
    for start, end, kind, field in lost:
        for i in range(start, end):
            marks.setdefault(i, (kind, field))
    spans: list[Loss] = []
    for i in sorted(marks):
        kind, field = marks[i]
        if spans and spans[-1].end == i and (spans[-1].kind, spans[-1].field) == (kind, field):
            spans[-1].end = i + 1
        else:
            spans.append(Loss(i, i + 1, "", kind, field))
    out = []
    for span in spans:
        text = buffer[span.start : span.end]
        # Whitespace is never loss: trim it off each span's ends.
        lead = len(text) - len(text.lstrip())
        text = text.strip()
        if not text or span.end <= base:
            continue
        start = span.start + lead - base
        if start < 0:
            continue
        out.append(Loss(start, start + len(text), text, span.kind, span.field))
    return out


def load_explanations(directory: Path = EXPLANATIONS) -> dict:
    """Template name -> its explanation rules."""
    out = {}
    for path in sorted(directory.glob("*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        if data.get("template") != path.stem:
            raise ValueError(f"{path}: 'template' must be {path.stem!r}")
        out[path.stem] = data["explained"]
    return out


def explain(losses: list[Loss], template_name: str, explanations: dict | None = None) -> list[Loss]:
    """Fill in `reason` for each loss an explanation of this template covers."""
    rules = (load_explanations() if explanations is None else explanations).get(template_name, [])
    for loss in losses:
        for rule in rules:
            if rule.get("kind", loss.kind) != loss.kind:
                continue
            if rule.get("field", loss.field) != loss.field:
                continue
            if re.fullmatch(rule["text"], loss.text, flags=re.DOTALL):
                loss.reason = rule["reason"]
                break
    return losses


def unexplained(losses: list[Loss]) -> list[Loss]:
    return [loss for loss in losses if loss.reason is None]
