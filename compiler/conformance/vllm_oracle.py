"""vLLM 0.33's vendored response-template interpreter (`vllm/parser/chat_parsing/`),
the oracle of the recovery mode, loaded without importing vLLM's package (which
needs torch and much else): its three modules are read from a vllm wheel or
an installed vllm and executed as a package of their own. Only the generator of
the recovery vectors needs it; running the committed vectors does not.

Where it is looked for, in order: $RTC_VLLM (a vllm wheel, or a folder that
holds `vllm/parser/chat_parsing/`), an installed vllm distribution, the
plugin tests' `.venv-vllm` beside the checkout, then wheels named vllm-0.33*.whl in the current folder and /tmp/vd (where
`pip download vllm==0.33.0 --no-deps -d /tmp/vd` puts one).
"""

from __future__ import annotations

import importlib.util
import os
import sys
import types
import zipfile
from pathlib import Path

PACKAGE = "_rtc_vllm_chat_parsing"  # the name the modules run under
MODULE_PATH = "vllm/parser/chat_parsing"
MODULES = ("content_parsers", "response_templates", "response_parser")  # in dependency order
WHEEL_GLOB = "vllm-0.33*.whl"


def _read_from(location: Path) -> dict[str, str] | None:
    """Module name -> source from a wheel or a folder holding vllm/, or None."""
    if location.is_file() and zipfile.is_zipfile(location):
        with zipfile.ZipFile(location) as wheel:
            names = set(wheel.namelist())
            paths = [f"{MODULE_PATH}/{name}.py" for name in MODULES]
            if not all(path in names for path in paths):
                return None
            return {name: wheel.read(path).decode("utf-8") for name, path in zip(MODULES, paths)}
    folder = location / MODULE_PATH
    if folder.is_dir() and all((folder / f"{name}.py").is_file() for name in MODULES):
        return {name: (folder / f"{name}.py").read_text(encoding="utf-8") for name in MODULES}
    return None


def _candidates() -> list[Path]:
    out = []
    if os.environ.get("RTC_VLLM"):
        out.append(Path(os.environ["RTC_VLLM"]))
    try:
        from importlib.metadata import PackageNotFoundError, distribution

        out.append(Path(distribution("vllm").locate_file("")))
    except (ImportError, PackageNotFoundError):
        pass
    # the plugin tests' environment (scripts/setup-vllm), beside the checkout
    out.extend(sorted((Path(__file__).resolve().parents[2] / ".venv-vllm").glob("lib/python3*/site-packages")))
    for folder in (Path.cwd(), Path("/tmp/vd")):
        out.extend(sorted(folder.glob(WHEEL_GLOB)))
    return out


def find_sources() -> tuple[Path, dict[str, str]] | None:
    """(where, module sources) of the first vLLM found, or None."""
    for location in _candidates():
        sources = _read_from(location)
        if sources is not None:
            return location, sources
    return None


_LOADED: dict[str, types.ModuleType] = {}


def load() -> types.ModuleType | None:
    """The oracle's `response_parser` module (ResponseParser, parse_response), or None when no vLLM is found."""
    if "response_parser" in _LOADED:
        return _LOADED["response_parser"]
    found = find_sources()
    if found is None:
        return None
    _, sources = found
    if importlib.util.find_spec("regex") is None:
        raise RuntimeError("vLLM's interpreter needs the `regex` module")
    package = types.ModuleType(PACKAGE)
    package.__path__ = []
    sys.modules[PACKAGE] = package
    for name in MODULES:
        module = types.ModuleType(f"{PACKAGE}.{name}")
        module.__package__ = PACKAGE
        module.__file__ = f"<vllm>/{MODULE_PATH}/{name}.py"
        sys.modules[module.__name__] = module  # dataclasses and relative imports look it up
        exec(compile(sources[name], module.__file__, "exec"), module.__dict__)  # noqa: S102 - the oracle's own code
        setattr(package, name, module)
        _LOADED[name] = module
    return _LOADED["response_parser"]
