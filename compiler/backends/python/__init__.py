"""The Python backend in the backends' common shape (see backends/__init__.py):
`render(program, *, vendor=False) -> {path: text}` and `DEFAULT_OUT`."""

from __future__ import annotations

from ...ir import Program
from ...resources import GENERATED_DIR
from . import module as python

DEFAULT_OUT = GENERATED_DIR / "python"


def render(program: Program, *, vendor: bool = False) -> dict[str, str]:
    return {f"{program.name}.py": python.render(program, vendored=vendor)}
