"""Where the compiler's data lives: in a source checkout, or in an installed wheel.

A checkout keeps `templates_src/`, `runtime/` and `generated/` beside
`compiler/`. A wheel carries the bundled templates inside the package
(`compiler/_bundled/`, copied there by setup.py's build step) and the
runtimes as the `runtime` package; `build` then writes under the current
directory's `generated/`.
"""

from __future__ import annotations

from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parent
CHECKOUT = PACKAGE_DIR.parent
IN_CHECKOUT = (CHECKOUT / "templates_src").is_dir() and (CHECKOUT / "runtime" / "core.py").is_file()

# The bundled response templates, their samples and coverage notes.
TEMPLATES_DIR = CHECKOUT / "templates_src" if IN_CHECKOUT else PACKAGE_DIR / "_bundled"
# The runtimes generated code calls: runtime/ (runtime.core), runtime/js/, runtime/go/
# (the `runtime` package beside `compiler`, in a checkout and installed alike).
RUNTIME_DIR = CHECKOUT / "runtime"
# Where `build` writes by default (relative to the current directory when installed).
GENERATED_DIR = CHECKOUT / "generated" if IN_CHECKOUT else Path("generated")
# The project root in a checkout (for paths shown relative to it); None when installed.
PROJECT_ROOT = CHECKOUT if IN_CHECKOUT else None
