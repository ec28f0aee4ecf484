"""Run `infer` over a folder of chat templates and tabulate what it got for each."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from . import infer_source
from .core import InferError
from .load import SourceError, load
from .sandbox import RenderError


@dataclass
class Row:
    name: str
    status: str  # complete, partial, error
    passed: int
    total: int
    parts: dict
    reason: str
    template: dict | None


def run_one(path: Path) -> Row:
    try:
        result = infer_source(load(path))
    except (InferError, RenderError, SourceError) as error:
        return Row(path.stem, "error", 0, 0, {}, str(error).splitlines()[0][:200], None)
    check = result.check
    passed = len(check.results) - len(check.failed)
    if result.complete:
        status, reason = "complete", ""
    else:
        status = "partial"
        reasons = [f"{f.part}: {f.reason}" for f in result.inferred.findings if f.part == "tool calls"]
        reasons += [f"probe {r.name} fails" for r in check.failed]
        if check.error:
            reasons.append(check.error)
        reason = "; ".join(reasons)[:200]
    return Row(path.stem, status, passed, len(check.results), result.inferred.parts, reason, result.inferred.template)


def run(folder: Path) -> list[Row]:
    return [run_one(path) for path in sorted(Path(folder).glob("*.jinja"))]


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", "\\n")


def table(rows: list[Row]) -> str:
    complete = sum(row.status == "complete" for row in rows)
    lines = [
        "| chat template | result | probes | reasoning | tool calls | notes |",
        "|---|---|---|---|---|---|",
    ]
    for row in rows:
        reasoning = row.parts.get("reasoning", "")
        reasoning = "yes" if reasoning.startswith("open") else "no"
        calls = row.parts.get("tool_calls", "")
        calls = calls.split(";")[0].replace("format ", "") if calls and not calls.startswith("none") else "no"
        probes = f"{row.passed}/{row.total}" if row.total else "-"
        lines.append(f"| `{row.name}` | {row.status} | {probes} | {reasoning} | {calls} | {_cell(row.reason)} |")
    lines.append("")
    lines.append(f"{complete} of {len(rows)} chat templates inferred completely (every validation probe comes back).")
    return "\n".join(lines)
