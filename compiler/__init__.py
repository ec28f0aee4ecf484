"""Response-template compiler: template JSON -> specialised parser modules.

Pipeline, one module per stage:
    source.py   find and read the template (file, tokenizer_config, directory)
    check.py    validate it like the reference loader; errors carry JSON paths
    lower.py    lower it to the IR (ir.py, frozen dataclasses)
    passes.py   pure IR -> IR passes (literal patterns, watch sets, context)
    backends/   one emitter per target language

transformers_compat.py: `use_compiled(tokenizer)` makes a tokenizer's
`parse_response` / `get_response_parser` run a compiled parser (disk-cached).
"""

from __future__ import annotations

from .version import __version__  # noqa: F401

from .errors import Problem, TemplateError  # noqa: E402
from .grammar import GrammarError, grammar  # noqa: E402
from .pipeline import compile_template, to_program  # noqa: E402
from .integrations.transformers import restore, use_compiled  # noqa: E402

__all__ = ["GrammarError", "grammar", "Problem", "TemplateError", "compile_template", "restore", "to_program", "use_compiled", "__version__"]
