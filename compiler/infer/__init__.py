"""Infer a response template from a model's chat template (`python -m compiler infer`).

load (SOURCE) -> sandbox (renders) -> probes -> core + calls + diff (inference)
-> validate (round trip through the compiled template)."""

from __future__ import annotations

from dataclasses import dataclass

from .core import Inferred, InferError, infer_template
from .load import ChatSource, SourceError, load
from .sandbox import Renderer, RenderError
from .validate import RoundTrip, roundtrip


@dataclass
class Result:
    source: ChatSource
    inferred: Inferred
    check: RoundTrip

    @property
    def complete(self) -> bool:
        return self.check.complete and not any(f.part == "tool calls" for f in self.inferred.findings)


def infer_source(source: ChatSource, *, timeout: float | None = None) -> Result:
    """Infer and validate; InferError / RenderError when nothing can be inferred."""
    kwargs = {"timeout": timeout} if timeout else {}
    with Renderer(source.chat_template, bos_token=source.bos_token, eos_token=source.eos_token, **kwargs) as renderer:
        inferred = infer_template(renderer, (source.eos_token,) if source.tokens_known and source.eos_token else ())
        check = roundtrip(inferred.template, renderer, inferred.mode, inferred.enders)
    return Result(source, inferred, check)


__all__ = [
    "ChatSource",
    "InferError",
    "Inferred",
    "RenderError",
    "Renderer",
    "Result",
    "RoundTrip",
    "SourceError",
    "infer_source",
    "load",
    "roundtrip",
]
