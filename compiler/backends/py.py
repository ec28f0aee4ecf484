"""The Python backend in the backends' common shape (see backends/__init__.py):
`render(program, *, vendor=False) -> {path: text}` and `DEFAULT_OUT`."""

from __future__ import annotations

from pathlib import Path

from ..ir import Program
from . import python

DEFAULT_OUT = Path(__file__).resolve().parents[2] / "generated" / "python"


def render(program: Program, *, vendor: bool = False) -> dict[str, str]:
    return {f"{program.name}.py": python.render(program, vendored=vendor)}
