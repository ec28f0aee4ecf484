"""Errors the compiler reports to users: every problem with its JSON path."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Problem:
    path: str  # JSON path, e.g. "fields.tool_calls.open_pattern"; "" for the whole document
    message: str

    def __str__(self) -> str:
        return f"{self.path or '(template)'}: {self.message}"


class TemplateError(ValueError):
    """A template the compiler cannot accept; lists all of its problems."""

    def __init__(self, problems: list[Problem], origin: str = "<template>"):
        self.problems = list(problems)
        self.origin = origin
        lines = [f"{origin}: {len(self.problems)} problem(s)"] + [f"  {p}" for p in self.problems]
        super().__init__("\n".join(lines))


def json_path(*parts: object) -> str:
    """Dotted JSON path; keys that are not plain words are bracket-quoted."""
    out = ""
    for part in parts:
        if isinstance(part, int):
            out += f"[{part}]"
        elif isinstance(part, str) and part.replace("_", "a").isalnum() and part.isascii():
            out += f".{part}" if out else part
        else:
            out += f"[{part!r}]"
    return out
