"""Response-template compiler: template JSON -> specialised parser modules.

The pipeline, one folder per stage, read top to bottom:
    frontend/   find and read a template (source.py), validate it like the
                reference loader with JSON paths in errors (check.py), and
                lower it to the IR (lower.py; ir.py holds the frozen dataclasses)
    passes/     pure IR -> IR passes (literal patterns, watch sets, states, cuts)
    backends/   one renderer per target language (python, js, go)
    grammar/    grammars for constrained decoding, from the same IR
pipeline.py runs the stages; cli/ is `python -m compiler`; integrations/
hold the transformers drop-in (`use_compiled`) and the vLLM plugin.

The public names below are imported on first use, so that `import compiler`
(and the CLI's workers, which import it) does not load the whole compiler.
"""

from __future__ import annotations

import importlib

from .version import __version__  # noqa: F401

_PUBLIC = {
    "Problem": ".errors",
    "TemplateError": ".errors",
    "GrammarError": ".grammar",
    "grammar": ".grammar",  # the package, callable as its `grammar` function
    "compile_template": ".pipeline",
    "to_program": ".pipeline",
    "restore": ".integrations.transformers",
    "use_compiled": ".integrations.transformers",
}

__all__ = sorted(_PUBLIC) + ["__version__"]


def __getattr__(name: str):
    if name not in _PUBLIC:
        raise AttributeError(f"module 'compiler' has no attribute {name!r}")
    module = importlib.import_module(_PUBLIC[name], __name__)
    value = module if name == "grammar" else getattr(module, name)
    globals()[name] = value
    return value
