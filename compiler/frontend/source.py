"""Stage 0: find and read a template, wherever the user keeps it.

A template comes from a response-template JSON file, from a
tokenizer_config.json (its `response_template` key), from a directory
written by `save_pretrained`, or by bare name from templates_src/.
"""

from __future__ import annotations

import hashlib
import json
import keyword
import re
from dataclasses import dataclass
from pathlib import Path

from ..errors import TemplateError, Problem

from ..resources import PROJECT_ROOT, TEMPLATES_DIR


@dataclass(frozen=True)
class Source:
    """A template as read: the raw JSON value plus where it came from."""

    template: object
    name: str  # a valid Python identifier, used for the output file
    origin: str  # shown in generated headers; never an absolute path
    sha256: str  # of the source file's bytes (or of the canonical JSON)


def module_name(stem: str) -> str:
    """`qwen3.5` -> `qwen3_5`: a valid, non-keyword Python identifier."""
    name = re.sub(r"\W", "_", stem, flags=re.ASCII) or "template"
    if name[0].isdigit():
        name = "_" + name
    if keyword.iskeyword(name):
        name += "_"
    return name


def canonical_sha256(template: object) -> str:
    text = json.dumps(template, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _display(path: Path) -> str:
    """A stable name for headers: relative to the project when inside it (a
    bundled template reads `templates_src/...` in a checkout and installed alike)."""
    resolved = path.resolve()
    for root, shown in ((TEMPLATES_DIR, "templates_src"), (PROJECT_ROOT, None)):
        if root is None:
            continue
        try:
            relative = resolved.relative_to(root.resolve()).as_posix()
        except ValueError:
            continue
        return f"{shown}/{relative}" if shown else relative
    return path.name


def resolve(spec: str) -> Path:
    """A path, or a bare name looked up in templates_src/."""
    path = Path(spec)
    if path.exists():
        return path
    if "/" not in spec and "\\" not in spec:
        names = (f"{spec}.json", spec) if spec.endswith(".json") else (f"{spec}.json",)
        for candidate in [folder / name for name in names for folder in (TEMPLATES_DIR, Path("templates_src"))]:
            if candidate.is_file():
                return candidate
    known = ", ".join(sorted(p.stem for p in TEMPLATES_DIR.glob("*.json"))) or "none"
    raise TemplateError([Problem("", f"no template file or directory {spec!r} (bundled templates: {known})")], spec)


def read(spec: str) -> Source:
    """Read a template from a file, a tokenizer_config.json or a saved tokenizer directory."""
    path = resolve(spec)
    if path.is_dir():
        config = path / "tokenizer_config.json"
        if not config.is_file():
            raise TemplateError([Problem("", "directory has no tokenizer_config.json")], str(path))
        path, stem = config, path.resolve().name
    else:
        stem = path.resolve().parent.name if path.name == "tokenizer_config.json" else path.stem
    raw = path.read_bytes()
    try:
        document = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise TemplateError([Problem("", f"not valid JSON: {error}")], str(path)) from None
    if isinstance(document, dict) and "fields" not in document and "response_template" in document:
        document = document["response_template"]
        if document is None:
            raise TemplateError(
                [Problem("response_template", "is null: this tokenizer has no response template")], str(path)
            )
    elif isinstance(document, dict) and path.name == "tokenizer_config.json" and "fields" not in document:
        raise TemplateError([Problem("", "tokenizer_config.json has no 'response_template' key")], str(path))
    return Source(
        template=document,
        name=module_name(stem),
        origin=_display(path),
        sha256=hashlib.sha256(raw).hexdigest(),
    )


def from_dict(template: object, name: str = "template") -> Source:
    """A template given in memory (compile_template)."""
    return Source(template=template, name=module_name(name), origin="<dict>", sha256=canonical_sha256(template))


def bundled() -> list[Path]:
    """Every template in templates_src/, in a stable order."""
    return sorted(TEMPLATES_DIR.glob("*.json"))
