"""The pipeline, stage by stage, and in-process compilation."""

from __future__ import annotations

import sys
import types

from .frontend import source as sources
from .frontend.check import check
from .ir import Program
from .frontend.lower import lower
from .passes import run_passes


def to_program(source: sources.Source) -> Program:
    """Source -> checked template -> IR -> passes."""
    return run_passes(lower(check(source)))


def python_source(source: sources.Source, *, vendored: bool = False) -> str:
    from .backends.python.module import render

    return render(to_program(source), vendored=vendored)


# Compiled modules by template hash (sources.canonical_sha256), shared by
# compile_template and the disk cache of transformers_compat.
_MODULES: dict[str, types.ModuleType] = {}


def module_from_code(code: str, source: sources.Source, filename: str | None = None) -> types.ModuleType:
    """Execute generated source as a new (unregistered) module; `filename` shows in tracebacks."""
    module = types.ModuleType(f"compiled_{source.name}_{source.sha256[:12]}")
    module.__file__ = filename or f"<compiled {source.name}>"
    exec(compile(code, module.__file__, "exec"), module.__dict__)
    module.SOURCE_CODE = code
    return module


def compile_template(template: dict, *, name: str = "template") -> types.ModuleType:
    """Compile a template dict to a parser module in memory (cached by template hash)."""
    source = sources.from_dict(template, name)
    module = _MODULES.get(source.sha256)
    if module is None:
        module = module_from_code(python_source(source), source)
        _MODULES[source.sha256] = module
    return module
