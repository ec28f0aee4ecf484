"""Which template a vLLM server parses with, and its compiled parser.

Kept free of vLLM imports so the choice of template and the field mapping can
be read (and tested) without a vLLM install.
"""

from __future__ import annotations

import copy
import inspect
import os
from dataclasses import dataclass, field

from ...frontend import source as sources
from ..transformers import load_compiled

TEMPLATE_ENV = "RESPONSE_TEMPLATE_COMPILER_TEMPLATE"

# The message fields vLLM's chat message has a place for, by template field name.
REASONING_NAMES = ("reasoning_content", "thinking")
ROUTED = frozenset(REASONING_NAMES + ("content", "tool_calls"))


@dataclass
class Compiled:
    """A template as the plugin serves it."""

    template: dict  # as compiled: `thinking` renamed to `reasoning_content`
    module: object  # the generated parser module
    origin: str  # where the template came from, for messages
    dropped: list = field(default_factory=list)  # fields (and defaults) vLLM's message has no place for
    recovery: bool = False  # the generated parser takes `recover=True` (the runtime's recovery mode)

    @property
    def fields(self) -> dict:
        return self.template["fields"]

    @property
    def has_reasoning(self) -> bool:
        return "reasoning_content" in self.fields

    @property
    def has_tools(self) -> bool:
        return "tool_calls" in self.fields


def tokenizer_template(tokenizer) -> dict | None:
    """The tokenizer's `response_template` (attribute or tokenizer_config key), as vLLM reads it."""
    if tokenizer is None:
        return None
    template = getattr(tokenizer, "response_template", None)
    if not isinstance(template, dict):
        template = (getattr(tokenizer, "init_kwargs", None) or {}).get("response_template")
    return template if isinstance(template, dict) else None


def resolve(tokenizer, spec: str | None = None) -> tuple[dict, str]:
    """(template, origin): `spec` (a bundled name or a file), else $RESPONSE_TEMPLATE_COMPILER_TEMPLATE,
    else the tokenizer's `response_template`. Raises ValueError saying what is missing."""
    spec = spec or os.environ.get(TEMPLATE_ENV) or None
    if spec:
        return sources.read(spec).template, spec
    template = tokenizer_template(tokenizer)
    if template is None:
        raise ValueError(
            "no response template: the tokenizer has no `response_template`; name a bundled template or a file "
            f"with the parser name (e.g. compiled_template_qwen3) or ${TEMPLATE_ENV}"
        )
    return template, "the tokenizer's response_template"


def for_serving(template: dict) -> tuple[dict, list]:
    """The template with its reasoning field named `reasoning_content` (what the
    OpenAI adapter streams), and the names of what vLLM's message cannot carry."""
    if not isinstance(template, dict) or not isinstance(template.get("fields"), dict):
        return template, []  # the compiler reports the shape error
    fields = template["fields"]
    dropped = sorted(set(fields) - ROUTED)
    if "thinking" in fields and "reasoning_content" in fields:
        dropped.append("thinking")  # two reasoning fields: the standard name wins
    dropped += [f"defaults.{key}" for key in sorted(set(template.get("defaults") or {}) - {"role"})]
    if "thinking" in fields and "reasoning_content" not in fields:
        template = copy.deepcopy(template)
        template["fields"] = {("reasoning_content" if k == "thinking" else k): v for k, v in fields.items()}
    return template, dropped


def accepts_recovery(module) -> bool:
    """Whether the generated parser has the runtime's recovery mode (a `recover=` keyword)."""
    try:
        return "recover" in inspect.signature(module.parse_response).parameters
    except (TypeError, ValueError):
        return False


_MEMO: dict = {}  # template sha-256 -> Compiled
_LAST: list = []  # [(template object, snapshot, Compiled)]: a request's parsers reuse the tokenizer's dict


def compiled(tokenizer, spec: str | None = None) -> Compiled:
    """The compiled template for a tokenizer (compiled once per process, cached on disk).
    Raises ValueError (no template) or TemplateError (one the compiler rejects)."""
    template, origin = resolve(tokenizer, spec) if spec or os.environ.get(TEMPLATE_ENV) else (None, None)
    if template is None:
        template = tokenizer_template(tokenizer)
        for obj, snapshot, found in _LAST:
            if obj is template and template == snapshot:
                return found
        template, origin = resolve(tokenizer)
    key = sources.canonical_sha256(template)
    found = _MEMO.get(key)
    if found is None:
        served, dropped = for_serving(template)
        module = load_compiled(served)
        found = _MEMO[key] = Compiled(served, module, origin, dropped, accepts_recovery(module))
    if spec is None and not os.environ.get(TEMPLATE_ENV):
        _LAST[:] = [(template, copy.deepcopy(template), found)] + _LAST[:3]
    return found
