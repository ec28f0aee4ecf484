"""`python -m compiler build`: every template, for every language asked for.

Each backend (compiler/backends/) renders `{output-relative path: text}`;
this module writes those files, or with `check` only compares them. Generated
runtime data that is committed (runtime/js/unicode.mjs) is part of `--all`
and `--check` too.
"""

from __future__ import annotations

import sys
from pathlib import Path

from ..frontend import source as sources
from ..backends import BACKENDS, backend
from ..errors import TemplateError
from ..pipeline import to_program


def languages(spec: str | None, *, every: bool) -> list[str]:
    """`--lang py,js` -> ["py", "js"]; no --lang: every language for --all/--check, else Python."""
    if spec is None:
        return list(BACKENDS) if every else ["py"]
    langs = [lang.strip() for lang in spec.split(",") if lang.strip()]
    unknown = [lang for lang in langs if lang not in BACKENDS]
    if unknown or not langs:
        raise ValueError(
            f"--lang: unknown language(s) {', '.join(unknown) or '(none)'} (one of: {', '.join(BACKENDS)})"
        )
    return langs


def runtime_data() -> dict[Path, str]:
    """Committed files generated from Python's own tables."""
    from ..backends.js import RUNTIME_DIR
    from ..backends.js.unicode import unicode_module

    return {RUNTIME_DIR / "unicode.mjs": unicode_module()}


def build(specs: list[str], *, langs: list[str], out: Path | None, vendor: bool, check: bool, every: bool) -> int:
    failed = False
    stale: list[str] = []
    outputs: dict[Path, str] = {}
    if every and out is None and not vendor:
        outputs.update(runtime_data())
    built: list[str] = []
    for spec in dict.fromkeys(specs):
        try:
            program = to_program(sources.read(spec))
            built.append(program.name)
            for lang in langs:
                module = backend(lang)
                folder = out or module.DEFAULT_OUT
                for name, text in module.render(program, vendor=vendor).items():
                    outputs[folder / name] = text
        except TemplateError as error:
            print(error, file=sys.stderr)
            failed = True
    if every and not failed:
        for lang in langs:  # a folder-level file, for backends that have one (js: index.mjs)
            module = backend(lang)
            if hasattr(module, "render_index"):
                folder = out or module.DEFAULT_OUT
                outputs.update({folder / name: text for name, text in module.render_index(built, out).items()})
    for target, text in outputs.items():
        current = target.read_text(encoding="utf-8") if target.is_file() else None
        if check:
            if current != text:
                stale.append(str(target))
            continue
        if current != text:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")
            print(f"wrote {target}")
        else:
            print(f"unchanged {target}")
    if failed:
        return 2
    if stale:
        print("stale or missing (run `python -m compiler build --all`):", file=sys.stderr)
        for name in stale:
            print(f"  {name}", file=sys.stderr)
        return 1
    if check:
        print(f"generated/ is up to date ({', '.join(langs)})")
    return 0
