"""One backend per target language; each turns an IR Program into source.

A backend is a module `compiler/backends/<lang>.py` with
`render(program, *, vendor=False) -> dict[str, str]` (output-relative path ->
file text) and `DEFAULT_OUT` (where `build` writes by default). Register it
here, with one line.
"""

from __future__ import annotations

import importlib
from types import ModuleType

# Language -> backend module.
BACKENDS = {
    "py": "compiler.backends.python",
    "js": "compiler.backends.js",
    "go": "compiler.backends.go",
}


def backend(lang: str) -> ModuleType:
    if lang not in BACKENDS:
        raise ValueError(f"unknown language {lang!r} (one of: {', '.join(BACKENDS)})")
    return importlib.import_module(BACKENDS[lang])
